/**
 * The engine's WAL record types and payloads (docs/format/wal.md has the
 * framing). Little-endian throughout.
 *
 * SERIES:  repeated [id u32][length u32][canonical label bytes]
 * SERIES_SNAPPY: a SERIES payload as a snappy block (checkpoints).
 * SAMPLES: [base time i64], then groups: [series id: zigzag varint delta from the
 *          previous group's id][count: varint, 5 bytes][count × (zigzag varint time
 *          delta from the base, then from the previous sample; value bits u64)]
 *          (written and replayed by assembly/head.ts)
 * EXEMPLARS: repeated [series id u32][timestamp i64][value bits u64]
 *          [length u32][the exemplar's canonical label bytes]
 *          (src/exemplars: replayed into the exemplar store, oldest first)
 * HISTOGRAMS: [base time i64], then groups: [series id: zigzag varint delta][count:
 *          varint, 5 bytes][count × (zigzag varint time delta, as SAMPLES; body
 *          length varint; histogram body)] (src/record/histogram-record.ts, histogram-body.ts)
 */
export const RECORD_SERIES = 1;
export const RECORD_SAMPLES = 2;
/**
 * A SERIES payload compressed as one snappy block: checkpoints hold every
 * live series, whose label sets repeat names and values over and over
 * (node_exporter-like sets shrink about fourfold).
 */
export const RECORD_SERIES_SNAPPY = 3;
/**
 * Samples accepted out of order (the out-of-order head), in the SAMPLES
 * payload format; written by the host (src/record/ooo-records.ts), replayed
 * into the out-of-order head. Checkpoints hold the whole out-of-order head
 * in such records. Numbered apart from the others: types 4 to 9 are left
 * for records of other kinds.
 */
export const RECORD_OOO_SAMPLES = 10;
/**
 * A step of writing the out-of-order head's older samples into blocks:
 * [phase u8: 1 begin, 2 end][end time i64], little-endian. Begin: the
 * out-of-order samples older than `end` held now are being written; end:
 * they are in blocks (src/record/ooo-records.ts).
 */
export const RECORD_OOO_CUT = 11;
/**
 * Exemplars appended, after the SERIES record that created their series
 * (Prometheus logs exemplars to its WAL too, so that they survive a
 * restart); checkpoints carry those of live series.
 */
export const RECORD_EXEMPLARS = 4;
/**
 * Native histogram samples an append took in order, integer and float ones
 * (each body says which), after the SERIES record that created their
 * series; replayed as SAMPLES are (src/record/histogram-record.ts). Like
 * SAMPLES, never in checkpoints: a checkpoint first cuts the open chunks
 * it would need them for into the chunk files.
 */
export const RECORD_HISTOGRAMS = 5;

const TWO_32 = 4294967296;

/** Collects exemplars into one EXEMPLARS payload. */
export class ExemplarRecordWriter {
  private buf = Buffer.allocUnsafe(1024);
  private len = 0;

  get empty(): boolean {
    return this.len === 0;
  }

  /** Adds one exemplar: series id, timestamp (ms, exact within ±2^53), value bits as two words (low first), canonical label bytes. */
  add(id: number, ts: number, valueLo: number, valueHi: number, labelBytes: Uint8Array): void {
    const need = this.len + 24 + labelBytes.length;
    if (need > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
      this.buf.copy(next, 0, 0, this.len);
      this.buf = next;
    }
    const b = this.buf;
    let at = this.len;
    b.writeUInt32LE(id, at);
    const hi = Math.floor(ts / TWO_32);
    b.writeUInt32LE(ts - hi * TWO_32, at + 4);
    b.writeInt32LE(hi, at + 8);
    b.writeInt32LE(valueLo | 0, at + 12);
    b.writeInt32LE(valueHi | 0, at + 16);
    b.writeUInt32LE(labelBytes.length, at + 20);
    at += 24;
    b.set(labelBytes, at);
    this.len = at + labelBytes.length;
  }

  /** The payload (a view; valid until the next add or reset). */
  payload(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }

  reset(): void {
    this.len = 0;
  }
}

/** Calls `visit` for each exemplar of an EXEMPLARS payload (label bytes a view of it); false if it is malformed. */
export function readExemplarRecord(
  payload: Uint8Array,
  visit: (id: number, ts: number, valueLo: number, valueHi: number, labelBytes: Uint8Array) => void,
): boolean {
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  let at = 0;
  while (at < payload.length) {
    if (at + 24 > payload.length) return false;
    const len = view.getUint32(at + 20, true);
    if (at + 24 + len > payload.length) return false;
    const ts = view.getInt32(at + 8, true) * TWO_32 + view.getUint32(at + 4, true);
    visit(view.getUint32(at, true), ts, view.getInt32(at + 12, true), view.getInt32(at + 16, true), payload.subarray(at + 24, at + 24 + len));
    at += 24 + len;
  }
  return true;
}

/** Collects series into one SERIES payload. */
export class SeriesRecordWriter {
  private buf = Buffer.allocUnsafe(4096);
  private len = 0;

  get empty(): boolean {
    return this.len === 0;
  }

  get byteLength(): number {
    return this.len;
  }

  add(id: number, labelBytes: Uint8Array): void {
    const need = this.len + 8 + labelBytes.length;
    if (need > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
      this.buf.copy(next, 0, 0, this.len);
      this.buf = next;
    }
    this.buf.writeUInt32LE(id, this.len);
    this.buf.writeUInt32LE(labelBytes.length, this.len + 4);
    this.buf.set(labelBytes, this.len + 8);
    this.len = need;
  }

  /** The payload (a view; valid until the next add or reset). */
  payload(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }

  reset(): void {
    this.len = 0;
  }
}

/** Calls `visit` for each series of a SERIES payload; false if it is malformed. */
export function readSeriesRecord(payload: Uint8Array, visit: (id: number, labelBytes: Uint8Array) => void): boolean {
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  let at = 0;
  while (at < payload.length) {
    if (at + 8 > payload.length) return false;
    const id = view.getUint32(at, true);
    const len = view.getUint32(at + 4, true);
    if (at + 8 + len > payload.length) return false;
    visit(id, payload.subarray(at + 8, at + 8 + len));
    at += 8 + len;
  }
  return true;
}
