/**
 * The WAL's HISTOGRAMS record (src/record/wal-records.ts numbers it;
 * docs/format/wal.md describes it): the native histogram samples one
 * append took, integer and float ones alike (each body says which).
 *
 *   base time   i64 (ms), the first sample's
 *   groups      series id (zigzag varint, delta from the previous group's
 *               id), sample count (uvarint), then per sample: time (zigzag
 *               varint, delta from the base for a group's first sample,
 *               then from the previous one), body length (uvarint), body
 *               (src/record/histogram-body.ts, as the histogram batch carried it)
 *
 * Little-endian. The head writes it by copying bodies out of the batch: no
 * histogram is encoded again to be logged.
 */
import { MAX_VARINT_BYTES, VarintReader, putUvarint, putUvarintPadded, putVarint } from '../encoding/varint.js';

const TWO_32 = 4294967296;

/** Collects accepted histogram samples into one HISTOGRAMS payload. */
export class HistogramRecordWriter {
  private buf = Buffer.allocUnsafe(4096);
  private len = 0;
  private baseT = 0;
  private prevId = 0;
  private prevT = 0;
  private countAt = 0;
  private count = 0;
  /** Samples written since the last reset. */
  samples = 0;

  get empty(): boolean {
    return this.len === 0;
  }

  /** Starts the group of series `id`; its samples follow with sample(). */
  group(id: number, firstT: number): void {
    if (this.len === 0) {
      this.reserve(8);
      const hi = Math.floor(firstT / TWO_32);
      this.buf.writeUInt32LE(firstT - hi * TWO_32, 0);
      this.buf.writeInt32LE(hi, 4);
      this.len = 8;
      this.baseT = firstT;
      this.prevId = 0;
    }
    this.endGroup();
    this.reserve(2 * MAX_VARINT_BYTES + 5);
    this.len = putVarint(this.buf, this.len, id - this.prevId);
    this.prevId = id;
    // The count is not known yet: 5 bytes kept for it, a padded varint.
    this.countAt = this.len;
    this.len += 5;
    this.count = 0;
    this.prevT = this.baseT;
  }

  /** Adds a sample to the open group: its time and body (bytes [at, end) of `body`). */
  sample(t: number, body: Uint8Array, at: number, end: number): void {
    const n = end - at;
    this.reserve(2 * MAX_VARINT_BYTES + n);
    this.len = putVarint(this.buf, this.len, t - this.prevT);
    this.prevT = t;
    this.len = putUvarint(this.buf, this.len, n);
    this.buf.set(body.subarray(at, end), this.len);
    this.len += n;
    this.count++;
    this.samples++;
  }

  /** The payload (a view; valid until the next call). */
  payload(): Uint8Array {
    this.endGroup();
    return this.buf.subarray(0, this.len);
  }

  reset(): void {
    this.len = 0;
    this.countAt = 0;
    this.count = 0;
    this.samples = 0;
  }

  /** Writes the open group's count into its 5 reserved bytes (a varint padded with continuation bits). */
  private endGroup(): void {
    if (this.countAt === 0) return;
    putUvarintPadded(this.buf, this.countAt, this.count, 5);
    this.countAt = 0;
  }

  private reserve(extra: number): void {
    const need = this.len + extra;
    if (need <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
}

/**
 * Calls `visit` for each sample of a HISTOGRAMS payload, in order: series
 * id, time, and where its body lies in `payload` ([at, end)). Returns false
 * if the payload is malformed (visits may have happened before).
 */
export function readHistogramRecord(
  payload: Uint8Array,
  visit: (id: number, t: number, payload: Uint8Array, at: number, end: number) => void,
): boolean {
  const end = payload.length;
  if (end === 0) return true;
  // The base time, then at least one group: the writer never writes less.
  if (end <= 8) return false;
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const baseT = view.getInt32(4, true) * TWO_32 + view.getUint32(0, true);
  // A cursor per call, not one shared: `visit` may read another record meanwhile.
  const r = new VarintReader();
  r.reset(payload, 8, end);
  let id = 0;
  while (r.at < end) {
    id += r.varint();
    const count = r.uvarint();
    if (!r.ok || id < 0 || id > 0xffffffff) return false;
    let t = baseT;
    for (let k = 0; k < count; k++) {
      t += r.varint();
      const n = r.uvarint();
      const from = r.at;
      if (!r.ok || from + n > end) return false;
      r.at = from + n;
      visit(id, t, payload, from, r.at);
    }
  }
  return true;
}
