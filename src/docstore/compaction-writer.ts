/**
 * Writes a compaction output: the header, then the kept ops packed into
 * frames of about FRAME_TARGET bytes, and remembers where each kept value
 * landed so the index can be pointed there.
 *
 * Shaped for hundreds of thousands of ops without garbage: ops are encoded
 * straight into one scratch buffer, and what is remembered per kept value
 * lives in parallel arrays of numbers, not in an object per value (young
 * objects that survive until the install are what makes scavenges slow).
 */
import { putUvarint, uvarintSize } from '../encoding/varint.js';
import { FRAME_HEADER_SIZE, HEADER_SIZE, KIND_OPS, OP_DELETE, OP_PUT } from './format.js';
import { sealFrame } from './frame.js';
import type { Location } from './record-index.js';
import { opSize } from './ops-codec.js';
import { writeAll } from './segment.js';

/**
 * Payload bytes per output frame. Big enough that framing costs little,
 * small enough that a frame is one quick write.
 */
const FRAME_TARGET = 64 * 1024;

export class CompactionWriter {
  private pos = HEADER_SIZE;
  private scratch = Buffer.allocUnsafe(FRAME_TARGET * 2);
  private used = 0;
  private count = 0;
  /** Kept values written so far or pending in `scratch` (from `firstPending`). */
  readonly locs: Location[] = [];
  readonly codes: number[] = [];
  readonly ids: number[] = [];
  readonly sizes: number[] = [];
  /** New offset of each kept value's JSON (offset in `scratch` while pending). */
  readonly newAt: number[] = [];
  private firstPending = 0;
  /** Bytes of ops written, and of those, deletes. */
  opBytes = 0;
  tombstoneBytes = 0;

  constructor(private readonly fd: number, header: Uint8Array) {
    writeAll(fd, header, 0);
  }

  /** Keeps a put whose JSON is `len` bytes at `at` in `src`. */
  put(code: number, id: number, src: Buffer, at: number, len: number, loc: Location): void {
    const size = opSize(id, len);
    this.reserve(size);
    let p = this.used;
    this.scratch[p++] = (code << 4) | OP_PUT;
    p = putUvarint(this.scratch, p, id);
    p = putUvarint(this.scratch, p, len);
    this.locs.push(loc);
    this.codes.push(code);
    this.ids.push(id);
    this.sizes.push(size);
    this.newAt.push(p);
    src.copy(this.scratch, p, at, at + len);
    this.added(size);
  }

  /** Keeps a delete. */
  delete(code: number, id: number): void {
    const size = opSize(id, undefined);
    this.reserve(size);
    this.scratch[this.used] = (code << 4) | OP_DELETE;
    putUvarint(this.scratch, this.used + 1, id);
    this.tombstoneBytes += size;
    this.added(size);
  }

  /** Whether anything was kept. */
  get empty(): boolean {
    return this.opBytes === 0;
  }

  /** Writes what is buffered; returns the file's size. */
  finish(): number {
    this.flush();
    return this.pos;
  }

  private reserve(size: number): void {
    if (this.used + size <= this.scratch.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.scratch.length * 2, this.used + size));
    this.scratch.copy(bigger, 0, 0, this.used);
    this.scratch = bigger;
  }

  private added(size: number): void {
    this.used += size;
    this.count++;
    this.opBytes += size;
    if (this.used >= FRAME_TARGET) this.flush();
  }

  private flush(): void {
    if (this.count === 0) return;
    const prefix = FRAME_HEADER_SIZE + 1 + uvarintSize(this.count);
    const frame = Buffer.allocUnsafe(prefix + this.used);
    frame[FRAME_HEADER_SIZE] = KIND_OPS;
    putUvarint(frame, FRAME_HEADER_SIZE + 1, this.count);
    this.scratch.copy(frame, prefix, 0, this.used);
    writeAll(this.fd, sealFrame(frame), this.pos);
    for (let i = this.firstPending; i < this.newAt.length; i++) this.newAt[i] = this.pos + prefix + this.newAt[i]!;
    this.firstPending = this.newAt.length;
    this.pos += frame.length;
    this.used = 0;
    this.count = 0;
  }
}
