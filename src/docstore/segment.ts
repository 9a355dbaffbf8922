/**
 * One segment file, mapped. The active segment's map is larger than the
 * file (mapped once, it sees every later write as the file grows); the file
 * itself only ever holds bytes really written, never a sparse tail: on tmpfs
 * or a full disk, touching a hole through a map is SIGBUS, while a write
 * that finds no room is an error the store can answer. A sealed segment is
 * mapped at exactly its size.
 */
import { closeSync, fdatasyncSync, ftruncateSync, openSync, unlinkSync, writeSync, constants as fsc } from 'node:fs';
import { join } from 'node:path';
import { FLAG_COMPACTED, HEADER_SIZE, segmentFileName } from './format.js';
import { encodeHeader, type SegmentHeader } from './header.js';
import { mapFile } from '../files/mmap.js';

export class Segment {
  /** Open descriptor; -1 once sealed and synced (reads need only the map). */
  fd: number;
  /** The file, mapped read-only and shared. */
  map: Buffer;
  /** End of the data: the next frame goes here. */
  size: number;
  /** No more appends: cut to `size`, synced, mapped exactly. */
  sealed = false;
  /** Async fsyncs in flight on `fd` (it is closed only when none are). */
  syncing = 0;
  /** Bytes of ops in the file, and of those, ops superseded or deleted. */
  opBytes = 0;
  deadBytes = 0;
  /** Bytes of delete ops a compaction kept (dead only once nothing older remains). */
  tombstoneBytes = 0;
  /** A failed append could not be cut back: the file's tail is unknown. */
  broken = false;

  constructor(
    readonly path: string,
    readonly header: SegmentHeader,
    fd: number,
    map: Buffer,
    size: number,
  ) {
    this.fd = fd;
    this.map = map;
    this.size = size;
  }

  /** The file's number (its name). */
  get num(): number {
    return this.header.num;
  }

  /** Whether the file is a compaction output. */
  get compacted(): boolean {
    return (this.header.flags & FLAG_COMPACTED) !== 0;
  }

  /**
   * Creates a new active segment in `dir`: header written, `mapSize` bytes
   * mapped. Nothing is synced: the group commit syncs the file and the
   * directory before any record in it is acknowledged. On an error no file
   * is left behind.
   */
  static create(dir: string, header: SegmentHeader, mapSize: number): Segment {
    const path = join(dir, segmentFileName(header.num));
    const fd = openSync(path, fsc.O_RDWR | fsc.O_CREAT | fsc.O_EXCL, 0o644);
    try {
      writeAll(fd, encodeHeader(header), 0);
      return new Segment(path, header, fd, mapFile(fd, mapSize), HEADER_SIZE);
    } catch (err) {
      closeSync(fd);
      unlinkSync(path);
      throw err;
    }
  }

  /** Whether `bytes` more fit in the map. */
  fits(bytes: number): boolean {
    return this.size + bytes <= this.map.length;
  }

  /**
   * Writes `frame` at the end of the data and returns its offset. On failure
   * cuts the file back (a partial frame must not stay ahead of later ones)
   * and throws; the segment is then as before.
   */
  append(frame: Uint8Array): number {
    const at = this.size;
    try {
      writeAll(this.fd, frame, at);
    } catch (err) {
      try {
        ftruncateSync(this.fd, at);
      } catch {
        this.broken = true;
      }
      throw err;
    }
    this.size += frame.length;
    return at;
  }

  /**
   * Extends the active segment's map to `bytes`, for a record bigger than
   * the room a fresh segment has. Views of the old map stay valid.
   */
  grow(bytes: number): void {
    this.map = mapFile(this.fd, bytes);
  }

  /**
   * Seals the segment: cuts it to its data and fdatasyncs it (the one
   * synchronous sync, once per segment, so that no later segment can reach
   * the disk before this one's tail), then maps it at its exact size.
   */
  seal(): void {
    ftruncateSync(this.fd, this.size);
    fdatasyncSync(this.fd);
    this.map = mapFile(this.fd, this.size);
    this.sealed = true;
    if (this.syncing === 0) this.closeFd();
  }

  /** Closes the descriptor if open. */
  closeFd(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }

  /** Bytes of ops that a compaction would keep. */
  get liveBytes(): number {
    return this.opBytes - this.deadBytes;
  }
}

/** Writes all of `bytes` at `position`, looping over short writes. */
export function writeAll(fd: number, bytes: Uint8Array, position: number): void {
  let done = 0;
  while (done < bytes.length) {
    done += writeSync(fd, bytes, done, bytes.length - done, position + done);
  }
}
