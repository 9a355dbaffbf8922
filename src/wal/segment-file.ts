/**
 * The open segment: synchronous positional writes, asynchronous coalesced
 * fdatasync. One writer (the WAL) calls write(); sync() may be called by
 * anyone, any number of times at once.
 */
import { close, closeSync, ftruncateSync, openSync, unlinkSync, writevSync } from 'node:fs';
import { join } from 'node:path';
import { KIND_SEGMENT, segmentName } from './format.js';
import { encodeFileHeader } from './frame.js';
import { syncData } from '../files/durable.js';
import { partsAfter } from './record-input.js';
import { writeStalled } from './errors.js';
import { isDiskFault } from '../files/disk-reserve.js';

export class SegmentFile {
  /** Bytes in the file: header and whole records. */
  size: number;
  private synced: number;
  private syncing: Promise<void> | undefined;
  private failure: unknown;
  /** Set when a failed write could not be undone: the file may end in a partial record. */
  broken = false;

  private constructor(
    readonly n: number,
    readonly path: string,
    /** -1 for a segment whose file a full disk kept from being made: the first write makes it. */
    private fd: number,
    private readonly onSync: () => void,
  ) {
    this.size = 0;
    this.synced = 0;
  }

  /**
   * Creates segment `n` in `dir` (it must not exist) and writes its header.
   * Synchronous: called from append() when the open segment is full.
   * `onSync` is called after each completed fdatasync (for statistics).
   */
  static create(dir: string, n: number, onSync: () => void): SegmentFile {
    const seg = new SegmentFile(n, join(dir, segmentName(n)), -1, onSync);
    seg.makeFile();
    return seg;
  }

  /**
   * Segment `n`, made now if the disk lets it (as create()), or else by its
   * first write: a WAL opened on a full disk still opens, and takes
   * records once there is room.
   */
  static createWhenPossible(dir: string, n: number, onSync: () => void): SegmentFile {
    const seg = new SegmentFile(n, join(dir, segmentName(n)), -1, onSync);
    try {
      seg.makeFile();
    } catch (err) {
      if (!isDiskFault(err)) throw err;
    }
    return seg;
  }

  private makeFile(): void {
    const fd = openSync(this.path, 'wx');
    try {
      this.fd = fd;
      const header = encodeFileHeader(KIND_SEGMENT, this.n);
      this.write([header], header.byteLength);
    } catch (err) {
      // Leave no file behind, or the next attempt would find its name taken.
      this.fd = -1;
      closeSync(fd);
      unlinkSync(this.path);
      throw err;
    }
  }

  /** True when bytes were written since the last completed fdatasync. */
  get dirty(): boolean {
    return this.synced < this.size;
  }

  /**
   * Writes `parts` (`total` bytes) at the end of the file with pwritev,
   * looping only on a short write. The parts are handed to the kernel, not
   * copied, and may be reused once this returns. On an error the file is
   * cut back to where it was (or `broken` is set) and the error rethrown.
   */
  write(parts: readonly Uint8Array[], total: number): void {
    if (this.fd < 0) this.makeFile();
    const at = this.size;
    try {
      let done = writevSync(this.fd, parts, at);
      while (done < total) {
        const n = writevSync(this.fd, partsAfter(parts, done), at + done);
        if (n <= 0) throw writeStalled(this.path);
        done += n;
      }
    } catch (err) {
      try {
        ftruncateSync(this.fd, at);
      } catch {
        this.broken = true;
      }
      throw err;
    }
    this.size = at + total;
  }

  /**
   * Resolves once every byte written before the call is durable. Calls made
   * while an fdatasync runs wait for it and share the next one. After a
   * failed fdatasync every call rejects: the kernel may have dropped the
   * dirty pages, so retrying could report data durable that is not.
   */
  async sync(): Promise<void> {
    if (this.fd < 0) return;
    const target = this.size;
    while (this.synced < target) {
      if (this.failure !== undefined) throw this.failure;
      if (this.syncing === undefined) {
        const upTo = this.size;
        this.syncing = syncData(this.fd).then(
          () => {
            this.synced = Math.max(this.synced, upTo);
            this.syncing = undefined;
            this.onSync();
          },
          (err: unknown) => {
            this.failure = err;
            this.syncing = undefined;
            throw err;
          },
        );
      }
      await this.syncing;
    }
  }

  /** Syncs, then closes the file. No write may follow. */
  async close(): Promise<void> {
    if (this.fd < 0) return;
    try {
      await this.sync();
    } finally {
      await new Promise<void>((resolve, reject) => close(this.fd, (err) => (err ? reject(err) : resolve())));
    }
  }

  /** Closes without syncing (a failed open). */
  closeNow(): void {
    if (this.fd >= 0) closeSync(this.fd);
  }
}
