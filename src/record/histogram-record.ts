/**
 * The WAL's HISTOGRAMS record (src/record/wal-records.ts numbers it;
 * docs/format/wal.md describes it): the native histogram samples one
 * append took, integer and float ones alike (each body says which), in
 * the grouped framing (grouped-record.ts), each sample's body length
 * (uvarint) and body (histogram-body.ts, as the histogram batch carried
 * it) after its time. The head writes it by copying bodies out of the
 * batch: no histogram is encoded again to be logged.
 */
import { MAX_VARINT_BYTES, putUvarint } from '../encoding/varint.js';
import { GroupedRecordWriter, readGroupedRecord } from './grouped-record.js';

/** Collects accepted histogram samples into one HISTOGRAMS payload. */
export class HistogramRecordWriter extends GroupedRecordWriter {
  /** Starts the group of series `id`; its samples follow with sample(). */
  group(id: number, firstT: number): void {
    this.openGroup(id, firstT);
  }

  /** Adds a sample to the open group: its time and body (bytes [at, end) of `body`). */
  sample(t: number, body: Uint8Array, at: number, end: number): void {
    const n = end - at;
    this.sampleTime(t, MAX_VARINT_BYTES + n);
    this.len = putUvarint(this.buf, this.len, n);
    // Byte by byte: a body is tens of bytes, and a view of it an object a sample.
    const buf = this.buf;
    let o = this.len;
    for (let i = at; i < end; i++) buf[o++] = body[i]!;
    this.len = o;
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
  return readGroupedRecord(payload, 0, (id, t, r) => {
    const n = r.uvarint();
    const from = r.at;
    if (!r.ok || from + n > r.end) return false;
    r.at = from + n;
    visit(id, t, payload, from, r.at);
    return true;
  });
}
