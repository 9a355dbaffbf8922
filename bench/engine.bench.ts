// npm run bench:engine — the storage engine in process: ingestion of 100k
// series x 120 samples (samples/s, event-loop delay p99 while ingesting),
// memory per active series, and query latency (selective matcher, regex over
// 100k values, a 10k-series range read in chunks/s).
//
// Batches are built before the clock starts, as the pool's parser hands
// them over (label hashes included), 2000 series per batch, one sample per
// series per batch: a remote-write shaped load. Only Db.append is timed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Bench } from 'tinybench';
import { Db } from '../src/db/db.js';
import { AppendBatchBuilder, viewAppendBatch } from '../src/record/append-batch.js';
import { instantiateHeadWasm } from '../src/wasm/head.js';
import { MatchType } from '../src/index/types.js';
import type { LabelMatcher } from '../src/index/types.js';

const SERIES = Number(process.env.BENCH_SERIES ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 120);
const PER_BATCH = 2000;
const METRICS = 100;
const GROUPS = 10;
// A chunk-range boundary (a multiple of 2 h), so chunks hold 120 samples as in Prometheus.
const START = 1_699_999_200_000;
const gc = (globalThis as { gc?: () => void }).gc;

function labelsOf(i: number): string[] {
  return [
    '__name__', `node_metric_${i % METRICS}`,
    'group', `g${i % GROUPS}`,
    'instance', `host-${Math.floor(i / METRICS)}:9100`,
    'job', 'node',
    'series_id', String(i).padStart(6, '0'),
  ];
}

// One template per batch: entries, hashes and labels fixed; the sample
// columns are rewritten each round. The second half of the rounds appends
// by series id, as Prometheus' benchmark appends by cached reference (ids
// are given in creation order, from 1).
interface Template { buffer: ArrayBuffer; ts: BigInt64Array; vals: Float64Array }
const builderWasm = instantiateHeadWasm();
function template(first: number, byRef: boolean): Template {
  const b = new AppendBatchBuilder(builderWasm);
  const one = new BigInt64Array(1);
  const v = new Float64Array(1);
  for (let i = first; i < Math.min(SERIES, first + PER_BATCH); i++) {
    if (byRef) b.addRef(i + 1, one, v);
    else b.add(labelsOf(i), one, v);
  }
  const buffer = b.finish();
  const view = viewAppendBatch(buffer);
  return { buffer, ts: new BigInt64Array(buffer, view.timestampsAt, view.samples), vals: new Float64Array(buffer, view.valuesAt, view.samples) };
}
const byLabels: Template[] = [];
const byRef: Template[] = [];
for (let first = 0; first < SERIES; first += PER_BATCH) {
  byLabels.push(template(first, false));
  byRef.push(template(first, true));
}

const dir = mkdtempSync(join(tmpdir(), 'strata-bench-engine-'));
gc?.();
const rssBefore = process.memoryUsage().rss;
const heapBefore = process.memoryUsage().heapUsed;
const db = await Db.open({ dataDir: dir, log: undefined });
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
// The same, from the second round on: appends to existing series only.
const steadyDelay = monitorEventLoopDelay({ resolution: 1 });

let appendMs = 0;
let firstRoundMs = 0;
let labelMs = 0;
let refMs = 0;
const REF_FROM = Math.ceil(SAMPLES / 2);
const wallStart = performance.now();
for (let round = 0; round < SAMPLES; round++) {
  const t = BigInt(START + round * 15_000);
  const templates = round >= REF_FROM ? byRef : byLabels;
  if (round === 1) steadyDelay.enable();
  for (const [bi, tpl] of templates.entries()) {
    tpl.ts.fill(t);
    const base = bi * PER_BATCH;
    for (let j = 0; j < tpl.vals.length; j++) {
      const id = base + j;
      // counters, gauges and constants, a third each
      tpl.vals[j] = id % 3 === 0 ? round * 10 + id : id % 3 === 1 ? Math.sin(round + id) * 100 : 42;
    }
    const t0 = performance.now();
    const r = db.append(tpl.buffer);
    const dt = performance.now() - t0;
    appendMs += dt;
    if (round === 0) firstRoundMs += dt;
    else if (round >= REF_FROM) refMs += dt;
    else labelMs += dt;
    if (r.appended !== tpl.vals.length) throw new Error(`round ${round}: appended ${r.appended}`);
    // Let timers (and the delay monitor) run between batches, as a server does between requests.
    await new Promise((r) => setImmediate(r));
  }
}
const wallMs = performance.now() - wallStart;
delay.disable();
steadyDelay.disable();
gc?.();
const mem = process.memoryUsage();
const wasmBytes = db.head.wasm.memory.buffer.byteLength;
const total = SERIES * SAMPLES;

// Queries.
const q = () => db.querier();
const maxT = START + (SAMPLES - 1) * 15_000;
const eq = (name: string, value: string): LabelMatcher => ({ type: MatchType.EQ, name, value });
const re = (name: string, value: string): LabelMatcher => ({ type: MatchType.RE, name, value });
let sink = 0;
const queries: [string, () => void][] = [
  ['selective: {__name__="node_metric_7", instance="host-420:9100"}', () => { sink += q().select([eq('__name__', 'node_metric_7'), eq('instance', 'host-420:9100')], START, maxT).length; }],
  ['regex prefix over 100k values: {series_id=~"0123.*"}', () => { sink += q().select([re('series_id', '0123.*')], START, maxT).length; }],
  ['regex general over 100k values: {series_id=~"0[0-9]{2}7(1|3)[0-9]"}', () => { sink += q().select([re('series_id', '0[0-9]{2}7(1|3)[0-9]')], START, maxT).length; }],
  ['label values of series_id (100k)', () => { sink += q().labelValues('series_id', [], START, maxT).length; }],
];
const bench = new Bench({ time: 1500, warmupTime: 300 });
for (const [name, fn] of queries) bench.add(name, fn);
await bench.run();

// A 10k-series range read, every chunk of one group: first from the head's
// open chunks, then (after a WAL truncation cuts them) from the chunk files.
const READS = 5;
function rangeRead(): { chunks: number; bytes: number; ms: number } {
  let chunks = 0;
  let bytes = 0;
  const t0 = performance.now();
  for (let i = 0; i < READS; i++) {
    for (const s of q().select([eq('group', 'g3')], START, maxT)) {
      for (const c of s.chunks) {
        chunks++;
        bytes += c.data.length;
      }
    }
  }
  return { chunks, bytes, ms: performance.now() - t0 };
}
const fromHead = rangeRead();
await db.truncateWal(1);
const fromFiles = rangeRead();

const f = (x: number, d = 0): string => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
console.log(`Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${new Date().toISOString().slice(0, 10)}`);
console.log(`${f(SERIES)} series x ${SAMPLES} samples, ${PER_BATCH} series per batch\n`);
console.log('| measure | value |');
console.log('|---|---|');
console.log(`| ingestion, Db.append only, all rounds | ${f(total / (appendMs / 1000))} samples/s |`);
console.log(`| ingestion, series found by labels (rounds 2-${REF_FROM}) | ${f((SERIES * (REF_FROM - 1)) / (labelMs / 1000))} samples/s |`);
console.log(`| ingestion, series given by id (rounds ${REF_FROM + 1}-${SAMPLES}) | ${f((SERIES * (SAMPLES - REF_FROM)) / (refMs / 1000))} samples/s |`);
console.log(`| ingestion, wall clock (batch refill and yields included) | ${f(total / (wallMs / 1000))} samples/s |`);
console.log(`| first round (series creation) | ${f(SERIES / (firstRoundMs / 1000))} series/s |`);
console.log(`| event-loop delay while ingesting, p99 / max (all rounds; the first creates 2000 series a batch) | ${f(delay.percentile(99) / 1e6, 2)} ms / ${f(delay.max / 1e6, 2)} ms |`);
console.log(`| event-loop delay while ingesting, p99 / max (rounds 2-${SAMPLES}: existing series) | ${f(steadyDelay.percentile(99) / 1e6, 2)} ms / ${f(steadyDelay.max / 1e6, 2)} ms |`);
console.log(`| memory per series: RSS growth | ${f((mem.rss - rssBefore) / SERIES)} B |`);
console.log(`| memory per series: JS heap growth | ${f((mem.heapUsed - heapBefore) / SERIES)} B |`);
console.log(`| memory per series: module memory (open chunks, slots, table) | ${f(wasmBytes / SERIES)} B |`);
console.log(`| disk: WAL + chunk files | ${f(db.diskBytes().wal / 1e6, 1)} MB + ${f(db.diskBytes().chunks / 1e6, 1)} MB |`);
for (const task of bench.tasks) {
  const r = task.result;
  if (r.state !== 'completed') throw new Error(`${task.name}: ${r.state}`);
  console.log(`| query ${task.name} | mean ${f(r.latency.mean, 3)} ms, p99 ${f(r.latency.p99 ?? 0, 3)} ms |`);
}
for (const [where, r] of [['open head chunks', fromHead], ['chunk files', fromFiles]] as const) {
  console.log(`| 10k-series range read from ${where} ({group="g3"}) | ${f(r.chunks / (r.ms / 1000))} chunks/s, ${f(r.bytes / 1e6 / (r.ms / 1000), 0)} MB/s, ${f(r.ms / READS, 1)} ms per read |`);
}
const peer = promtoolWrite();
if (peer !== undefined) {
  const byId = (SERIES * (SAMPLES - REF_FROM)) / (refMs / 1000);
  const byLabel = (SERIES * (REF_FROM - 1)) / (labelMs / 1000);
  console.log(`| peer: promtool tsdb bench write (${f(SERIES)} series, cached refs) | ${f(peer)} samples/s; Strata by id ${(byId / peer).toFixed(2)}x, by labels ${(byLabel / peer).toFixed(2)}x |`);
}
if (gc === undefined) console.log('\n(run with node --expose-gc for exact memory figures)');
if (sink === 0.5) console.log(sink);
await db.close();
rmSync(dir, { recursive: true, force: true });

/** Prometheus' own write benchmark on the same label sets, if promtool is installed. */
function promtoolWrite(): number | undefined {
  if (process.env.BENCH_PEERS === '0') return undefined;
  const work = mkdtempSync(join(tmpdir(), 'strata-bench-promtool-'));
  try {
    const lines: string[] = [];
    for (let i = 0; i < SERIES; i++) {
      const l = labelsOf(i);
      const o: Record<string, string> = {};
      for (let k = 0; k < l.length; k += 2) o[l[k]!] = l[k + 1]!;
      lines.push(JSON.stringify(o));
    }
    writeFileSync(join(work, 'series.json'), `${lines.join('\n')}\n`);
    const r = spawnSync('promtool', ['tsdb', 'bench', 'write', `--out=${join(work, 'out')}`, `--metrics=${SERIES}`,
      `--scrapes=${SAMPLES}`, join(work, 'series.json')], { encoding: 'utf8', timeout: 300_000 });
    const m = /samples\/sec: ([0-9.e+]+)/.exec(`${r.stdout}${r.stderr}`);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
