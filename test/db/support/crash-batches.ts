import { batchBuilder } from '../../support/db.js';

/** Series written by batch i: 40 steady series, plus one new series every 10th batch. */
export function crashBatchSeries(i: number): string[][] {
  const out: string[][] = [];
  for (let s = 0; s < 40; s++) out.push(['__name__', 'steady', 'i', String(s)]);
  if (i % 10 === 0) out.push(['__name__', 'born', 'at', String(i)]);
  return out;
}

/** Timestamps of batch i for every series: 3 samples, 15 s apart, continuing across batches. */
export function crashBatchTimes(i: number): number[] {
  return [0, 1, 2].map((k) => (i * 3 + k) * 15_000);
}

export function crashValue(i: number, s: number, k: number): number {
  return ((i * 7919 + s * 104729 + k * 31) % 1000) / 8;
}

export function crashBatch(i: number): ArrayBuffer {
  const b = batchBuilder();
  const ts = BigInt64Array.from(crashBatchTimes(i).map(BigInt));
  crashBatchSeries(i).forEach((labels, s) => {
    b.add(labels, ts, Float64Array.from([0, 1, 2], (k) => crashValue(i, s, k)));
  });
  return b.finish();
}
