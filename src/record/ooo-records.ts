/**
 * Payloads of the out-of-order WAL records (src/record/wal-records.ts has the
 * types, docs/format/wal.md the format):
 *
 * OOO_SAMPLES: the SAMPLES payload, as assembly/head.ts writes it:
 *   [base time i64], then groups [series id: zigzag varint delta from the
 *   previous group's id][count: varint][count × (zigzag varint time delta,
 *   from the base for the first sample, then from the previous one; value
 *   bits u64)]. Little-endian.
 * OOO_CUT: [phase u8: 1 begin, 2 end][end time i64].
 */

import { putUvarintPadded, putVarint, VarintReader } from '../encoding/varint.js';

const TWO_32 = 4294967296;

/** OOO_CUT phases. */
export const CUT_BEGIN = 1;
export const CUT_END = 2;

/** Collects samples into one OOO_SAMPLES payload; consecutive samples of a series share a group. */
export class SamplesRecordWriter {
  private buf = Buffer.allocUnsafe(4096);
  private len = 0;
  private base = 0;
  private prevId = 0;
  private prevT = 0;
  private groupId = -1;
  private countAt = 0;
  private count = 0;
  private samplesTotal = 0;

  get empty(): boolean {
    return this.len === 0;
  }

  /** Samples added since the last reset. */
  get samples(): number {
    return this.samplesTotal;
  }

  get byteLength(): number {
    return this.len;
  }

  /** Adds sample (t, value bits lo/hi) of series `id`. */
  add(id: number, t: number, lo: number, hi: number): void {
    this.ensure(8 + 10 + 5 + 10 + 8);
    const b = this.buf;
    if (this.len === 0) {
      writeI64(b, 0, t);
      this.len = 8;
      this.base = t;
      this.prevId = 0;
    }
    if (id !== this.groupId) {
      this.closeGroup();
      this.len = putVarint(b, this.len, id - this.prevId);
      this.prevId = id;
      this.groupId = id;
      // The count goes here once the group is complete: 5 bytes reserved, a varint padded as assembly/head.ts writes it.
      this.countAt = this.len;
      this.len += 5;
      this.count = 0;
      this.prevT = this.base;
    }
    this.len = putVarint(b, this.len, t - this.prevT);
    b.writeUInt32LE(lo >>> 0, this.len);
    b.writeUInt32LE(hi >>> 0, this.len + 4);
    this.len += 8;
    this.prevT = t;
    this.count++;
    this.samplesTotal++;
  }

  /** The payload (a view; valid until the next add or reset). */
  payload(): Uint8Array {
    this.closeGroup();
    return this.buf.subarray(0, this.len);
  }

  reset(): void {
    this.len = 0;
    this.groupId = -1;
    this.count = 0;
    this.samplesTotal = 0;
  }

  private closeGroup(): void {
    if (this.groupId < 0) return;
    putUvarintPadded(this.buf, this.countAt, this.count, 5);
    this.groupId = -1;
  }

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.len + extra, this.buf.length * 2));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
}

/**
 * Calls `visit` for every sample of a SAMPLES-format payload, in order;
 * false if it is malformed (then some samples may have been visited).
 */
export function readSamplesRecord(payload: Uint8Array, visit: (id: number, t: number, lo: number, hi: number) => void): boolean {
  if (payload.length === 0) return true;
  if (payload.length < 8) return false;
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const base = view.getInt32(4, true) * TWO_32 + view.getUint32(0, true);
  const end = payload.length;
  // A cursor per call, not one shared: `visit` may read another record meanwhile.
  const r = new VarintReader();
  r.reset(payload, 8, end);
  let id = 0;
  while (r.at < end) {
    id += r.varint();
    const count = r.uvarint();
    if (!r.ok || count > (end - r.at) / 9) return false;
    if (id < 0 || id > 0xffffffff) return false;
    let t = base;
    for (let k = 0; k < count; k++) {
      t += r.varint();
      if (!r.ok || r.at + 8 > end) return false;
      visit(id, t, view.getUint32(r.at, true), view.getUint32(r.at + 4, true));
      r.at += 8;
    }
  }
  return true;
}

/** An OOO_CUT payload. */
export function cutRecord(phase: typeof CUT_BEGIN | typeof CUT_END, end: number): Uint8Array {
  const b = Buffer.alloc(9);
  b[0] = phase;
  writeI64(b, 1, end);
  return b;
}

/** Reads an OOO_CUT payload; undefined if it is malformed. */
export function readCutRecord(payload: Uint8Array): { phase: number; end: number } | undefined {
  if (payload.length !== 9 || (payload[0] !== CUT_BEGIN && payload[0] !== CUT_END)) return undefined;
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  return { phase: payload[0], end: view.getInt32(5, true) * TWO_32 + view.getUint32(1, true) };
}

function writeI64(b: Buffer, at: number, t: number): void {
  const hi = Math.floor(t / TWO_32);
  b.writeUInt32LE(t - hi * TWO_32, at);
  b.writeInt32LE(hi, at + 4);
}
