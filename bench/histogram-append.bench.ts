// npm run bench:histograms — native histogram ingestion in process:
// Db.appendHistograms over SERIES series x ROUNDS rounds, one integer
// histogram per series per round (float histograms with BENCH_FLOAT=1:
// the same counts, absolute), BUCKETS positive buckets in two spans
// whose layout never changes (the common case: a scrape of the same
// histogram), counts growing (no counter resets).
//
// Batches are built before the clock starts, as the pool's parser hands
// them over (label hashes included), PER_BATCH series per batch. Only
// Db.appendHistograms is timed. The first round creates the series and is
// reported apart; "steady" is rounds 2.. (appends to existing series only).
//
// Profile it: node --cpu-prof --import tsx bench/histogram-append.bench.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FloatHistogram, Histogram } from '../src/chunkenc/histogram/types.js';
import { Db } from '../src/db/db.js';
import { instantiateHeadWasm } from '../src/wasm/head.js';
import { HistogramBatchBuilder } from '../src/record/histogram-batch.js';

const SERIES = Number(process.env.BENCH_SERIES ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const BUCKETS = Number(process.env.BENCH_BUCKETS ?? 20);
const PER_BATCH = Number(process.env.BENCH_PER_BATCH ?? 5_000);
const FLOAT = process.env.BENCH_FLOAT === '1';
// A chunk-range boundary (a multiple of 2 h), as Prometheus' chunks start.
const START = 1_699_999_200_000;
const STEP = 15_000;
const gc = (globalThis as { gc?: () => void }).gc;

/** Series i's histogram at round r as a float histogram: the same counts, buckets absolute. */
function floatHistogramOf(i: number, r: number): FloatHistogram {
  const h = histogramOf(i, r);
  let abs = 0;
  return { ...h, positiveBuckets: h.positiveBuckets.map((d) => (abs += d)) };
}

/** Series i's histogram at round r: BUCKETS buckets in two spans, absolute counts growing with r. */
function histogramOf(i: number, r: number): Histogram {
  const half = BUCKETS >> 1;
  const deltas: number[] = [];
  let prev = 0;
  let count = 0;
  for (let k = 0; k < BUCKETS; k++) {
    const abs = (k + 1 + (i % 7)) * (r + 1);
    deltas.push(abs - prev);
    prev = abs;
    count += abs;
  }
  return {
    counterResetHint: 0, schema: 3, zeroThreshold: 2 ** -128, zeroCount: r, count: count + r, sum: count * 0.25 + i,
    positiveSpans: [{ offset: -2, length: half }, { offset: 3, length: BUCKETS - half }], negativeSpans: [],
    positiveBuckets: deltas, negativeBuckets: [],
  };
}

const wasm = instantiateHeadWasm();
const batches: ArrayBuffer[][] = [];
for (let r = 0; r < ROUNDS; r++) {
  const round: ArrayBuffer[] = [];
  for (let first = 0; first < SERIES; first += PER_BATCH) {
    const b = new HistogramBatchBuilder(wasm);
    for (let i = first; i < Math.min(SERIES, first + PER_BATCH); i++) {
      b.add(['__name__', 'rpc_duration_seconds', 'instance', `host-${i % 100}:9100`, 'series_id', String(i).padStart(6, '0')], [START + r * STEP], [FLOAT ? floatHistogramOf(i, r) : histogramOf(i, r)], FLOAT);
    }
    round.push(b.finish());
  }
  batches.push(round);
}

const dir = mkdtempSync(join(tmpdir(), 'strata-bench-histograms-'));
const db = await Db.open({ dataDir: dir, log: undefined });
gc?.();
let firstMs = 0;
let steadyMs = 0;
// CPU time too: on a shared machine wall time swings with the load, CPU time much less.
let firstCpu = 0;
let steadyCpu = 0;
for (let r = 0; r < ROUNDS; r++) {
  for (const batch of batches[r]!) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const res = db.appendHistograms(batch);
    const dt = performance.now() - t0;
    const c1 = process.cpuUsage(c0);
    const cpu = (c1.user + c1.system) / 1000;
    if (r === 0) {
      firstMs += dt;
      firstCpu += cpu;
    } else {
      steadyMs += dt;
      steadyCpu += cpu;
    }
    const rejected = res.outOfOrder + res.conflict + res.tooOld + res.tooFarInFuture;
    if (rejected > 0 || res.appended === 0) throw new Error(`round ${r}: appended ${res.appended}, rejected ${rejected}`);
    // Let timers run between batches, as a server does between requests.
    await new Promise((resolve) => setImmediate(resolve));
  }
}
await db.close();
rmSync(dir, { recursive: true, force: true });

const fmt = (samples: number, ms: number, cpuMs: number): string =>
  `${Math.round(samples / (ms / 1000)).toLocaleString('en-US')} samples/s, ${((ms * 1000) / samples).toFixed(2)} µs/sample (CPU ${((cpuMs * 1000) / samples).toFixed(2)} µs/sample)`;
const steadySamples = SERIES * (ROUNDS - 1);
console.log(`${FLOAT ? 'float ' : ''}histogram append: ${SERIES} series x ${ROUNDS} rounds, ${BUCKETS} buckets, ${PER_BATCH} series a batch`);
console.log(`  first round (creates series): ${fmt(SERIES, firstMs, firstCpu)}`);
if (steadySamples > 0) console.log(`  steady (rounds 2..${ROUNDS}):      ${fmt(steadySamples, steadyMs, steadyCpu)}`);
console.log(`  all:                          ${fmt(SERIES * ROUNDS, firstMs + steadyMs, firstCpu + steadyCpu)}`);
