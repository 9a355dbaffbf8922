/**
 * Payloads of the out-of-order WAL records (src/record/wal-records.ts has the
 * types, docs/format/wal.md the format):
 *
 * OOO_SAMPLES: the SAMPLES payload, as assembly/head.ts writes it: the
 *   grouped framing (grouped-record.ts), each sample's value bits (u64)
 *   after its time.
 * OOO_CUT: [phase u8: 1 begin, 2 end][end time i64].
 */

import { GroupedRecordWriter, readGroupedRecord } from './grouped-record.js';

const TWO_32 = 4294967296;

/** OOO_CUT phases. */
export const CUT_BEGIN = 1;
export const CUT_END = 2;

/** Collects samples into one SAMPLES-format payload; consecutive samples of a series share a group. */
export class SamplesRecordWriter extends GroupedRecordWriter {
  private groupId = -1;

  /** Adds sample (t, value bits lo/hi) of series `id`. */
  add(id: number, t: number, lo: number, hi: number): void {
    if (!this.groupOpen || id !== this.groupId) {
      this.openGroup(id, t);
      this.groupId = id;
    }
    this.sampleTime(t, 8);
    this.buf.writeUInt32LE(lo >>> 0, this.len);
    this.buf.writeUInt32LE(hi >>> 0, this.len + 4);
    this.len += 8;
  }
}

/**
 * Calls `visit` for every sample of a SAMPLES-format payload, in order;
 * false if it is malformed (then some samples may have been visited).
 */
export function readSamplesRecord(payload: Uint8Array, visit: (id: number, t: number, lo: number, hi: number) => void): boolean {
  return readGroupedRecord(payload, 9, (id, t, r, view) => {
    if (r.at + 8 > r.end) return false;
    visit(id, t, view.getUint32(r.at, true), view.getUint32(r.at + 4, true));
    r.at += 8;
    return true;
  });
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
