/**
 * The framing the SAMPLES, OOO_SAMPLES and HISTOGRAMS records share
 * (wal-records.ts numbers them; docs/format/wal.md describes them):
 *
 *   base time   i64 (ms), the first sample's
 *   groups      series id (zigzag varint, delta from the previous group's
 *               id), sample count (a varint padded to 5 bytes: it is
 *               written once the group is complete), then per sample: its
 *               time (zigzag varint, delta from the base for a group's
 *               first sample, then from the previous one) and what the
 *               record carries for it (value bits, a histogram body)
 *
 * Little-endian. assembly/head.ts writes SAMPLES records in this framing
 * too; the writers here serve the host's records.
 */
import { MAX_VARINT_BYTES, VarintReader, putUvarintPadded, putVarint } from '../encoding/varint.js';

const TWO_32 = 4294967296;
/** Bytes kept for a group's sample count. */
const COUNT_BYTES = 5;

/** Collects samples into one grouped payload; a record type adds what each sample carries. */
export abstract class GroupedRecordWriter {
  protected buf = Buffer.allocUnsafe(4096);
  protected len = 0;
  private baseT = 0;
  private prevId = 0;
  private prevT = 0;
  /** Where the open group's count goes; 0 while no group is open. */
  private countAt = 0;
  private count = 0;
  /** Samples written since the last reset. */
  samples = 0;

  get empty(): boolean {
    return this.len === 0;
  }

  get byteLength(): number {
    return this.len;
  }

  /** The payload (a view; valid until the next call). */
  payload(): Uint8Array {
    this.closeGroup();
    return this.buf.subarray(0, this.len);
  }

  reset(): void {
    this.len = 0;
    this.countAt = 0;
    this.count = 0;
    this.samples = 0;
  }

  /** Whether a group is open (samples may follow in it). */
  protected get groupOpen(): boolean {
    return this.countAt !== 0;
  }

  /** Starts the group of series `id`; the payload's first group sets the base time, `firstT`. */
  protected openGroup(id: number, firstT: number): void {
    if (this.len === 0) {
      this.reserve(8);
      const hi = Math.floor(firstT / TWO_32);
      this.buf.writeUInt32LE(firstT - hi * TWO_32, 0);
      this.buf.writeInt32LE(hi, 4);
      this.len = 8;
      this.baseT = firstT;
      this.prevId = 0;
    }
    this.closeGroup();
    this.reserve(MAX_VARINT_BYTES + COUNT_BYTES);
    this.len = putVarint(this.buf, this.len, id - this.prevId);
    this.prevId = id;
    this.countAt = this.len;
    this.len += COUNT_BYTES;
    this.count = 0;
    this.prevT = this.baseT;
  }

  /** Writes a sample's time into the open group, with room for `extra` bytes of what it carries after it. */
  protected sampleTime(t: number, extra: number): void {
    this.reserve(MAX_VARINT_BYTES + extra);
    this.len = putVarint(this.buf, this.len, t - this.prevT);
    this.prevT = t;
    this.count++;
    this.samples++;
  }

  private closeGroup(): void {
    if (this.countAt === 0) return;
    putUvarintPadded(this.buf, this.countAt, this.count, COUNT_BYTES);
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
 * Walks a grouped payload in order, calling `sample` for each sample with
 * its series id, its time, and the cursor at what the sample carries,
 * which `sample` reads (advancing the cursor past it) and answers whether
 * it could. `minSampleBytes` bounds a group's count by what is left.
 * Returns false if the payload is malformed (samples before the fault have
 * been visited). A cursor per call, not one shared: `sample` may read
 * another record meanwhile.
 */
export function readGroupedRecord(
  payload: Uint8Array,
  minSampleBytes: number,
  sample: (id: number, t: number, r: VarintReader, view: DataView) => boolean,
): boolean {
  const end = payload.length;
  if (end === 0) return true;
  // The base time, then at least one group: a writer never writes less.
  if (end <= 8) return false;
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const baseT = view.getInt32(4, true) * TWO_32 + view.getUint32(0, true);
  const r = new VarintReader();
  r.reset(payload, 8, end);
  let id = 0;
  while (r.at < end) {
    id += r.varint();
    const count = r.uvarint();
    if (!r.ok || id < 0 || id > 0xffffffff || count * minSampleBytes > end - r.at) return false;
    let t = baseT;
    for (let k = 0; k < count; k++) {
      t += r.varint();
      if (!r.ok || !sample(id, t, r, view)) return false;
    }
  }
  return true;
}
