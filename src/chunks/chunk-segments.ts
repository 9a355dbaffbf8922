import fs from 'node:fs';
import { join } from 'node:path';
import { isZero } from '../encoding/bytes.js';
import { syncFd } from '../files/durable.js';
import { mapFile, releasePages } from '../files/mmap.js';
import { crc32c } from '@node-rs/crc32';
import { ENCODING_XOR, isKnownEncoding } from '../chunkenc/encoding.js';
import { chunkFileCorrupt } from './errors.js';
import { MAX_ENTRY_HEADER, readEntryHeader, writeEntryHeader } from './entry.js';
import type { EntryHeader } from './entry.js';

/**
 * Full head chunks in memory-mapped segment files under DATA/chunks_head/.
 * Format: docs/format/chunks-head.md. One writer (the head); reads are
 * views of the maps and cost no copy.
 */

/** "STCH": Strata head chunks. */
export const CHUNK_SEGMENT_MAGIC = 0x53544348;
export const CHUNK_SEGMENT_VERSION = 2;
const FILE_HEADER = 8;
const CRC_BYTES = 4;
/**
 * 128 MiB, as Prometheus' head chunk files: a busy head fills one every
 * few minutes, and retention frees space in steps of this size.
 */
export const DEFAULT_CHUNK_SEGMENT_BYTES = 128 * 1024 * 1024;
const TWO_32 = 4294967296;
/** Scratch for read(): refs are read one at a time on one thread. */
const header: EntryHeader = { id: 0, minT: 0, maxT: 0, encoding: 0, dataAt: 0, dataLen: 0 };

export interface ChunkSegmentsOptions {
  dir: string;
  segmentBytes?: number;
  log?: { info(o: object, msg: string): void; warn(o: object, msg: string): void };
}

/** Called for every chunk found on open, in file order, with its encoding (1 XOR, 2 histogram, 3 float histogram). */
export type ChunkVisitor = (id: number, ref: number, minT: number, maxT: number, encoding: number) => void;

interface Segment {
  seq: number;
  path: string;
  fd: number;
  map: Buffer;
  /** Bytes in use: the header and whole entries. */
  size: number;
  minT: number;
  maxT: number;
  chunks: number;
}

export class ChunkSegments {
  private readonly segments = new Map<number, Segment>();
  private active!: Segment;
  private stage = Buffer.allocUnsafe(1 << 20);
  private staged = 0;
  private readonly unsynced: Segment[] = [];
  private readonly segmentBytes: number;

  private constructor(private readonly opts: ChunkSegmentsOptions) {
    this.segmentBytes = opts.segmentBytes ?? DEFAULT_CHUNK_SEGMENT_BYTES;
  }

  /**
   * Opens the directory (creating it), calls `visit` for every chunk of the
   * existing segments, and starts a new segment for writing. A torn tail of
   * the last segment is truncated with a log line; a failed check anywhere
   * else throws a ChunkFileCorruptionError naming the file and offset.
   */
  static open(opts: ChunkSegmentsOptions, visit: ChunkVisitor): ChunkSegments {
    const cs = new ChunkSegments(opts);
    fs.mkdirSync(opts.dir, { recursive: true });
    const seqs = fs.readdirSync(opts.dir).filter((f) => /^\d{6,}$/.test(f)).map(Number).sort((a, b) => a - b);
    seqs.forEach((seq, i) => cs.load(seq, i === seqs.length - 1, visit));
    cs.active = cs.create((seqs.at(-1) ?? 0) + 1);
    return cs;
  }

  /**
   * Stages a chunk of `encoding` (Prometheus' number: 1 XOR, the default,
   * 2 histogram, 3 float histogram) for writing and returns its ref. The
   * bytes reach the file at the next flush(); read() flushes first, so a
   * ref is readable as soon as it is returned.
   */
  add(id: number, minT: number, maxT: number, data: Uint8Array, encoding = ENCODING_XOR): number {
    const most = MAX_ENTRY_HEADER + data.length + CRC_BYTES;
    if (this.active.size + this.staged + most > this.segmentBytes && this.active.size + this.staged > FILE_HEADER) this.roll();
    if (this.staged + most > this.stage.length) {
      this.flush();
      if (most > this.stage.length) this.stage = Buffer.allocUnsafe(most);
    }
    const b = this.stage;
    const at = this.staged;
    const dataAt = writeEntryHeader(b, at, id, minT, maxT, encoding, data.length);
    b.set(data, dataAt);
    const end = dataAt + data.length;
    b.writeUInt32LE(crc32c(b.subarray(at, end)), end);
    this.staged = end + CRC_BYTES;
    const seg = this.active;
    if (minT < seg.minT) seg.minT = minT;
    if (maxT > seg.maxT) seg.maxT = maxT;
    seg.chunks++;
    return seg.seq * TWO_32 + seg.size + at;
  }

  /** Writes the staged chunks to the OS (one write). */
  flush(): void {
    if (this.staged === 0) return;
    const seg = this.active;
    fs.writeSync(seg.fd, this.stage, 0, this.staged, seg.size);
    seg.size += this.staged;
    this.staged = 0;
  }

  /**
   * The chunk's bytes: a view of the memory map, valid for as long as the
   * caller holds it (the map lives while any view of it does), read-only.
   */
  read(ref: number): Uint8Array {
    if (this.staged > 0) this.flush();
    const seq = Math.floor(ref / TWO_32);
    const seg = this.segments.get(seq);
    if (seg === undefined) throw new RangeError(`chunk ref ${ref}: segment ${seq} is gone`);
    const at = ref - seq * TWO_32;
    if (!readEntryHeader(seg.map, at, seg.size, header)) throw new RangeError(`chunk ref ${ref}: no entry there`);
    return seg.map.subarray(header.dataAt, header.dataAt + header.dataLen);
  }

  /**
   * The encoding of the chunk at `ref`, as its entry records it (1 XOR, 2
   * histogram, 3 float histogram): what a reader passes on with read()'s
   * bytes.
   */
  encodingOf(ref: number): number {
    if (this.staged > 0) this.flush();
    const seq = Math.floor(ref / TWO_32);
    const seg = this.segments.get(seq);
    if (seg === undefined) throw new RangeError(`chunk ref ${ref}: segment ${seq} is gone`);
    if (!readEntryHeader(seg.map, ref - seq * TWO_32, seg.size, header)) throw new RangeError(`chunk ref ${ref}: no entry there`);
    return header.encoding;
  }

  /** The segment number a ref points into. */
  static segmentOf(ref: number): number {
    return Math.floor(ref / TWO_32);
  }

  /**
   * Deletes every closed segment whose chunks all end before `cutoff` and
   * returns their numbers. Refs into them must not be read afterwards.
   */
  deleteEndingBefore(cutoff: number): number[] {
    const gone: number[] = [];
    for (const seg of this.segments.values()) {
      if (seg === this.active || seg.maxT >= cutoff) continue;
      if (this.unsynced.includes(seg)) continue;
      fs.closeSync(seg.fd);
      fs.unlinkSync(seg.path);
      // A read in flight may still hold a view: the map stays valid, but its
      // pages need not count in the process' memory until it is collected.
      releasePages(seg.map);
      this.segments.delete(seg.seq);
      gone.push(seg.seq);
    }
    return gone;
  }

  /**
   * Lets the resident pages of every full segment go (they were read once
   * to write a block, say); later reads fault back in what they touch.
   */
  releaseResidentPages(): void {
    for (const seg of this.segments.values()) if (seg !== this.active) releasePages(seg.map);
  }

  /** fsyncs every segment written since the last sync (off the event loop). */
  async sync(): Promise<void> {
    this.flush();
    const pending = this.unsynced.splice(0);
    await Promise.all(pending.map((seg) => syncFd(seg.fd).then(() => {
      if (seg !== this.active && this.segments.get(seg.seq) === seg) {
        // Closed segments keep their map for reads; the descriptor is only needed for deletion.
      }
    })));
    await syncFd(this.active.fd);
  }

  /** Bytes in use in all segments. */
  diskBytes(): number {
    let total = this.staged;
    for (const seg of this.segments.values()) total += seg.size;
    return total;
  }

  get segmentCount(): number {
    return this.segments.size;
  }

  /** Flushes, trims the active segment to its size, fsyncs and closes the files. */
  async close(): Promise<void> {
    this.flush();
    fs.ftruncateSync(this.active.fd, this.active.size);
    await this.sync();
    for (const seg of this.segments.values()) fs.closeSync(seg.fd);
    this.segments.clear();
  }

  private roll(): void {
    this.flush();
    const old = this.active;
    fs.ftruncateSync(old.fd, old.size);
    this.unsynced.push(old);
    this.active = this.create(old.seq + 1);
  }

  private create(seq: number): Segment {
    const path = join(this.opts.dir, String(seq).padStart(6, '0'));
    const fd = fs.openSync(path, 'wx+');
    const header = Buffer.alloc(FILE_HEADER);
    header.writeUInt32BE(CHUNK_SEGMENT_MAGIC, 0);
    header[4] = CHUNK_SEGMENT_VERSION;
    fs.writeSync(fd, header, 0, FILE_HEADER, 0);
    // A sparse file of the full size, mapped once: later writes show
    // through the shared map without remapping.
    fs.ftruncateSync(fd, this.segmentBytes);
    const map = mapFile(fd, this.segmentBytes);
    const seg: Segment = { seq, path, fd, map, size: FILE_HEADER, minT: Infinity, maxT: -Infinity, chunks: 0 };
    this.segments.set(seq, seg);
    return seg;
  }

  private load(seq: number, last: boolean, visit: ChunkVisitor): void {
    const name = String(seq).padStart(6, '0');
    const path = join(this.opts.dir, name);
    const fd = fs.openSync(path, 'r+');
    const fileSize = fs.fstatSync(fd).size;
    if (fileSize < FILE_HEADER) {
      if (!last) throw chunkFileCorrupt(path, 0, `${fileSize} bytes, shorter than the header`);
      fs.closeSync(fd);
      fs.unlinkSync(path);
      this.opts.log?.warn({ file: path }, 'removed a chunk segment torn before its header');
      return;
    }
    const map = mapFile(fd, fileSize);
    if (map.readUInt32BE(0) !== CHUNK_SEGMENT_MAGIC) throw chunkFileCorrupt(path, 0, 'bad magic number');
    if (map[4] !== CHUNK_SEGMENT_VERSION) throw chunkFileCorrupt(path, 4, `unknown version ${map[4]}`);
    const seg: Segment = { seq, path, fd, map, size: FILE_HEADER, minT: Infinity, maxT: -Infinity, chunks: 0 };
    let at = FILE_HEADER;
    let bad: string | undefined;
    const h: EntryHeader = { id: 0, minT: 0, maxT: 0, encoding: 0, dataAt: 0, dataLen: 0 };
    let badEnd = fileSize;
    while (at < fileSize) {
      // Series ids start at 1: a zero byte where an entry starts is the unused rest of the file.
      if (map[at] === 0) {
        if (isZero(map, at, fileSize)) break;
        bad = 'zero bytes followed by data';
        badEnd = at;
        break;
      }
      if (!readEntryHeader(map, at, fileSize, h)) {
        bad = 'entry header cut short or malformed';
        badEnd = Math.min(fileSize, at + MAX_ENTRY_HEADER);
        break;
      }
      const end = h.dataAt + h.dataLen;
      if (end + CRC_BYTES > fileSize) {
        bad = `entry of ${h.dataLen} bytes runs past the end of the file`;
        break;
      }
      // A segment holds Prometheus' XOR, HISTOGRAM and FLOAT_HISTOGRAM chunks.
      if (!isKnownEncoding(h.encoding)) {
        bad = `unknown encoding ${h.encoding}`;
        badEnd = end + CRC_BYTES;
        break;
      }
      if (crc32c(map.subarray(at, end)) !== map.readUInt32LE(end)) {
        bad = 'checksum mismatch';
        badEnd = end + CRC_BYTES;
        break;
      }
      if (h.minT < seg.minT) seg.minT = h.minT;
      if (h.maxT > seg.maxT) seg.maxT = h.maxT;
      seg.chunks++;
      visit(h.id, seq * TWO_32 + at, h.minT, h.maxT, h.encoding);
      at = end + CRC_BYTES;
    }
    if (bad !== undefined) {
      // A failed entry is a torn tail only in the last file, and only with nothing but zeros after it.
      const torn = last && (badEnd >= fileSize || isZero(map, badEnd, fileSize));
      if (!torn) throw chunkFileCorrupt(path, at, bad);
      this.opts.log?.warn({ file: path, offset: at, dropped: fileSize - at }, `truncated a torn chunk segment tail (${bad})`);
    }
    seg.size = at;
    if (fileSize > at) fs.ftruncateSync(fd, at);
    this.segments.set(seq, seg);
  }
}

