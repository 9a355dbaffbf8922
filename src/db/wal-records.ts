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
 */
export const RECORD_SERIES = 1;
export const RECORD_SAMPLES = 2;
/**
 * A SERIES payload compressed as one snappy block: checkpoints hold every
 * live series, whose label sets repeat names and values over and over
 * (node_exporter-like sets shrink about fourfold).
 */
export const RECORD_SERIES_SNAPPY = 3;

/** Collects series into one SERIES payload. */
export class SeriesRecordBuilder {
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
