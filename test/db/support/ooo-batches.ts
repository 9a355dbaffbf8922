// Deterministic batches with out-of-order samples for the kill -9 test
// (test/db/ooo-crash.test.ts): every sample of every batch is accepted
// whatever came before, so a batch written again after a crash changes
// nothing (its samples are held already: ignored).
import { batchBuilder } from '../../support/db.js';

/** The block range of the test: ten minutes, so that blocks are cut every dozen batches. */
export const OOO_CRASH_RANGE_MS = 600_000;
/** The out-of-order window: 15 min. Out-of-order samples lag 12 min, some before the head's floor. */
export const OOO_CRASH_WINDOW_MS = 900_000;
const LAG_BATCHES = 16;
export const OOO_CRASH_SERIES = 20;

export function oooCrashLabels(s: number): string[] {
  return ['__name__', 'ooo', 's', String(s).padStart(2, '0')];
}

/** Batch i's samples of series s: three in order (15 s apart, 45 s a batch), then one out of order, 12 min back. */
export function oooCrashSamples(i: number, s: number): Array<[number, number]> {
  const out: Array<[number, number]> = [0, 1, 2].map((k) => [(i * 3 + k) * 15_000, ((i * 7919 + s * 104729 + k * 31) % 1000) / 8]);
  out.push([(i - LAG_BATCHES) * 45_000 + 7_500, -((i * 31 + s) % 977) / 4]);
  return out;
}

export function oooCrashBatch(i: number): ArrayBuffer {
  const b = batchBuilder();
  for (let s = 0; s < OOO_CRASH_SERIES; s++) {
    const x = oooCrashSamples(i, s);
    b.add(oooCrashLabels(s), BigInt64Array.from(x.map(([t]) => BigInt(t))), Float64Array.from(x.map(([, v]) => v)));
  }
  return b.finish();
}
