import { ExemplarRecordWriter } from '../record/wal-records.js';
import type { Head } from '../head/head.js';
import { ExemplarBatchView } from '../record/exemplar-batch.js';
import type { ExemplarSeries, ExemplarStore } from './exemplar-store.js';

/** What became of a batch's exemplars. */
export interface ExemplarAppendResult {
  /** Stored, or accepted as a duplicate of the series' newest, or accepted and dropped while the store keeps none (as Prometheus counts them). */
  written: number;
  outOfOrder: number;
  /** Labels over 128 characters. */
  tooLong: number;
  /** The series is not in the head (no sample of it was ever taken, or it has gone): dropped, as Prometheus drops them. */
  unknownSeries: number;
  /** The first out-of-order exemplar, e.g. `{__name__="rpc_seconds_bucket", le="0.5"} at 1700000000000`. */
  firstOutOfOrder?: string;
}

function seriesText(labels: readonly string[]): string {
  const parts: string[] = [];
  for (let i = 0; i < labels.length; i += 2) parts.push(`${labels[i]}=${JSON.stringify(labels[i + 1])}`);
  return `{${parts.join(', ')}}`;
}

/**
 * Offers a batch's exemplars (exemplar-batch.ts) to the store, each to the
 * head series its labels name, and collects the ones stored into `record`
 * (an EXEMPLARS WAL payload) for the caller to log. Call it after the
 * batch of the same request was appended: that may have created the series.
 */
export function appendExemplars(head: Head, store: ExemplarStore, batch: ArrayBuffer, record: ExemplarRecordWriter): ExemplarAppendResult {
  const v = new ExemplarBatchView(batch);
  const result: ExemplarAppendResult = { written: 0, outOfOrder: 0, tooLong: 0, unknownSeries: 0 };
  record.reset();
  let lastOff = -1;
  let series: ExemplarSeries | undefined;
  for (let i = 0; i < v.count; i++) {
    // Exemplars of one series share its labels: one lookup per series.
    if (v.seriesOff(i) !== lastOff) {
      lastOff = v.seriesOff(i);
      const bytes = v.seriesLabels(i);
      const s = head.find(bytes);
      series = s === undefined ? undefined : { key: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1'), labels: head.labelsOf(s), id: s.id };
    }
    if (series === undefined) {
      result.unknownSeries++;
      continue;
    }
    const labels = v.exemplarLabels(i);
    const key = Buffer.from(labels.buffer, labels.byteOffset, labels.length).toString('latin1');
    const ts = v.ts(i);
    switch (store.add(series, ts, v.valueLo(i), v.valueHi(i), key)) {
      case 'added':
        record.add(series.id, ts, v.valueLo(i), v.valueHi(i), labels);
        result.written++;
        break;
      case 'duplicate':
      case 'disabled':
        result.written++;
        break;
      case 'out-of-order':
        result.outOfOrder++;
        result.firstOutOfOrder ??= `${seriesText(series.labels)} at ${ts}`;
        break;
      case 'too-long':
        result.tooLong++;
        break;
    }
  }
  return result;
}
