// node --expose-gc --import tsx bench/out-of-order.bench.ts — the engine with
// --tsdb.out-of-order.time-window, in process:
// - in-order appends with the window off and on (the same batches; the
//   window must cost the in-order path nothing measurable);
// - out-of-order appends: 10k series, the samples between each series'
//   in-order ones, shuffled per batch (samples/s, and memory per sample);
// - reads of series with out-of-order samples (merged at read time) and
//   of series without (chunks as stored), chunks/s: the first reads and
//   steady ones;
// - the checkpoint's bytes per out-of-order sample;
// - the head compaction that merges them into a block.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Db } from '../src/db/db.js';
import { AppendBatchBuilder, viewAppendBatch } from '../src/record/append-batch.js';
import { instantiateHeadWasm } from '../src/wasm/head.js';
import { MatchType } from '../src/index/types.js';

const SERIES = Number(process.env.BENCH_SERIES ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 120);
const PER_BATCH = 2000;
const STEP = 30_000;
/** On the 2 h grid. */
const START = 1_699_999_200_000;
const HOUR = 3_600_000;
const gc = (globalThis as { gc?: () => void }).gc;
const wasm = instantiateHeadWasm();
const labelsOf = (i: number) => ['__name__', `m${i % 100}`, 'group', `g${i % 10}`, 'series_id', String(i).padStart(6, '0')];

/** Batches of one sample per series at times t(round, series). */
function batches(rounds: number, time: (round: number, i: number) => number): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (let r = 0; r < rounds; r++) {
    for (let first = 0; first < SERIES; first += PER_BATCH) {
      const b = new AppendBatchBuilder(wasm);
      for (let i = first; i < Math.min(SERIES, first + PER_BATCH); i++) b.add(labelsOf(i), BigInt64Array.of(BigInt(time(r, i))), Float64Array.of(r * 0.5 + i));
      out.push(b.finish());
    }
  }
  return out;
}

/** Appends every batch; wall and CPU time (ms) spent in Db.append. */
function appendAll(db: Db, list: readonly ArrayBuffer[]): { ms: number; cpuMs: number; samples: number; ooo: number } {
  let ms = 0;
  let cpuMs = 0;
  let samples = 0;
  let ooo = 0;
  for (const batch of list) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = db.append(batch);
    ms += performance.now() - t0;
    const c = process.cpuUsage(c0);
    cpuMs += (c.user + c.system) / 1000;
    samples += viewAppendBatch(batch).samples;
    ooo += r.oooAppended;
    if (r.appended !== viewAppendBatch(batch).samples) throw new Error(`appended ${r.appended} of ${viewAppendBatch(batch).samples}`);
  }
  return { ms, cpuMs, samples, ooo };
}

const f = (x: number, d = 0): string => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const rows: string[] = [];

// In-order appends, window off and on, alternating runs on fresh stores.
// CPU time per sample is the steadier figure where other work shares the machine.
const inOrder = batches(ROUNDS, (r) => START + r * STEP);
const rates: Record<string, number[]> = { off: [], on: [] };
const cpu: Record<string, number[]> = { off: [], on: [] };
for (let run = 0; run < 6; run++) {
  for (const mode of run % 2 === 0 ? ['off', 'on'] : ['on', 'off']) {
    const dir = mkdtempSync(join(tmpdir(), 'strata-bench-ooo-'));
    const db = await Db.open({ dataDir: dir, ...(mode === 'on' ? { outOfOrderWindowMs: HOUR } : {}) });
    const r = appendAll(db, inOrder);
    rates[mode]!.push(r.samples / (r.ms / 1000));
    cpu[mode]!.push((r.cpuMs * 1000) / r.samples);
    await db.close({ flush: false });
    rmSync(dir, { recursive: true, force: true });
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
rows.push(`| in-order appends, window off (median of 6) | ${f(median(rates.off!))} samples/s, ${f(median(cpu.off!), 3)} µs CPU per sample |`);
rows.push(`| in-order appends, window 1 h (median of 6) | ${f(median(rates.on!))} samples/s, ${f(median(cpu.on!), 3)} µs CPU per sample |`);

// Out of order: the same series, every other 15 s slot written later, shuffled.
const dir = mkdtempSync(join(tmpdir(), 'strata-bench-ooo-'));
const db = await Db.open({ dataDir: dir, outOfOrderWindowMs: 2 * HOUR, walSegmentsKept: 1000 });
appendAll(db, inOrder);
gc?.();
// The JS heap plus the out-of-order head's sample columns (array buffers,
// which the WebAssembly memories' growth would blur if counted as a whole).
const used = () => process.memoryUsage().heapUsed;
const heapBefore = used();
const shuffle = (r: number, i: number) => (r * 7919 + i * 104729) % ROUNDS;
const late = batches(ROUNDS, (r, i) => START + shuffle(r, i) * STEP + 15_000);
const o = appendAll(db, late);
gc?.();
const dataBytes = db.head.ooo.columnBytes;
const heapPer = (used() - heapBefore + dataBytes) / o.ooo;
rows.push(`| out-of-order appends (${f(SERIES)} series x ${ROUNDS}, shuffled) | ${f(o.samples / (o.ms / 1000))} samples/s, ${f((o.cpuMs * 1000) / o.samples, 3)} µs CPU per sample (${f(o.ooo)} kept out of order) |`);
rows.push(`| memory per out-of-order sample (JS heap growth and column bytes) | ${f(heapPer, 1)} B |`);

// A sender catching up: every series' late samples in time order, a batch a round.
const dirLate = mkdtempSync(join(tmpdir(), 'strata-bench-ooo-'));
const lateDb = await Db.open({ dataDir: dirLate, outOfOrderWindowMs: 2 * HOUR });
appendAll(lateDb, inOrder);
const catchUp = appendAll(lateDb, batches(ROUNDS, (r) => START + r * STEP + 15_000).slice(0, -(SERIES / PER_BATCH)));
rows.push(`| out-of-order appends of a sender catching up (in time order, behind) | ${f(catchUp.samples / (catchUp.ms / 1000))} samples/s, ${f((catchUp.cpuMs * 1000) / catchUp.samples, 3)} µs CPU per sample |`);
await lateDb.close({ flush: false });
rmSync(dirLate, { recursive: true, force: true });

// Reads of a tenth of the series, with out-of-order samples. The head
// keeps the chunks a read merged for the next read of the same series
// (src/head/merged-cache.ts) until the series changes, so two kinds of
// read: cold, the cache emptied before every timed read (untimed): the
// merges of a first read after new late samples, on the same samples as
// every other row; and warm, a read again with nothing new (a dashboard
// refreshing between scrapes). "First reads": 1 untimed, then READS timed,
// while the JIT and the codec module's tier-up still run; "steady": after
// STEADY_WARM more untimed, STEADY timed, as in a server that has answered
// reads for a while. The same for the store without out-of-order samples.
const READS = 10;
const STEADY_WARM = 40;
const STEADY = 20;
const g3 = [{ type: MatchType.EQ, name: 'group', value: 'g3' }];
/** `times` reads of group g3 (each with the merged-chunk cache emptied first when `cold`); chunks answered, wall and CPU ms of the reads. */
function reads(store: Db, times: number, cold = false): { chunks: number; ms: number; cpuMs: number } {
  let chunks = 0;
  let ms = 0;
  let cpuMs = 0;
  for (let k = 0; k < times; k++) {
    if (cold) store.head.merged.clear();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (const s of store.querier().select(g3, START, START + ROUNDS * STEP)) chunks += s.chunks.length;
    ms += performance.now() - t0;
    const c = process.cpuUsage(c0);
    cpuMs += (c.user + c.system) / 1000;
  }
  return { chunks, ms, cpuMs };
}
const row = (what: string, r: { chunks: number; ms: number; cpuMs: number }, n: number) =>
  rows.push(`| ${what} | ${f(r.chunks / (r.ms / 1000))} chunks/s, ${f(r.ms / n, 1)} ms per read (${f(r.cpuMs / n, 1)} ms CPU) |`);
/** First reads (1 untimed, READS timed), then steady ones; warm ones too when `cold`. */
function readRows(store: Db, what: string, cold: boolean): void {
  reads(store, 1, cold);
  const kind = cold ? ', cold' : '';
  row(`${what}${kind}, first reads (${READS} after 1)`, reads(store, READS, cold), READS);
  reads(store, STEADY_WARM, cold);
  row(`${what}${kind}, steady (${STEADY} after ${1 + READS + STEADY_WARM})`, reads(store, STEADY, cold), STEADY);
  if (cold) row(`${what}, warm: read again, nothing new (${STEADY} after ${1 + READS + STEADY_WARM + STEADY})`, reads(store, STEADY), STEADY);
}
readRows(db, `read of ${f(SERIES / 10)} series with out-of-order samples (merged at read time)`, true);
const cache = db.head.merged;
rows.push(`| merged-chunk cache after those reads | ${f(cache.bytes / 1e6, 1)} MB, ${f(cache.hits)} hits, ${f(cache.misses)} misses |`);
await db.close();

// The same read on a store whose series hold no out-of-order samples.
const dir2 = mkdtempSync(join(tmpdir(), 'strata-bench-ooo-'));
const plain = await Db.open({ dataDir: dir2, compaction: false });
appendAll(plain, inOrder);
readRows(plain, 'the same read, no out-of-order samples (chunks as stored)', false);
{
  const t0 = performance.now();
  appendAll(plain, batches(1, () => START + 4 * HOUR));
  await plain.settle();
  rows.push(`| head compaction of [0, 2 h), in-order samples only (${plain.blockCount} block) | ${f(performance.now() - t0)} ms |`);
}
await plain.close();
rmSync(dir2, { recursive: true, force: true });

// Checkpoint bytes: the flush at close wrote the out-of-order head into the checkpoint.
const walDir = join(dir, 'wal');
const cp = readdirSync(walDir).find((n) => n.startsWith('checkpoint.'));
const cpBytes = cp === undefined ? 0 : statSync(join(walDir, cp)).size;
rows.push(`| checkpoint with the out-of-order head | ${f(cpBytes / 1e6, 1)} MB (${f(cpBytes / o.ooo, 1)} B per out-of-order sample, series records included) |`);

// Head compaction merges them into the block: reopen, push the head past 3 h, time the cut.
const db3 = await Db.open({ dataDir: dir, outOfOrderWindowMs: 2 * HOUR, compaction: false });
const t0 = performance.now();
appendAll(db3, batches(1, () => START + 4 * HOUR));
await db3.settle();
rows.push(`| head compaction of [0, 2 h), as many out-of-order samples merged in (${db3.blockCount} block) | ${f(performance.now() - t0)} ms |`);
await db3.close();
rmSync(dir, { recursive: true, force: true });

console.log(`Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${new Date().toISOString().slice(0, 10)}`);
console.log(`${f(SERIES)} series x ${ROUNDS} samples in order (30 s apart), as many out of order (15 s past, shuffled)\n`);
console.log('| measure | value |');
console.log('|---|---|');
for (const r of rows) console.log(r);
if (gc === undefined) console.log('\n(run with node --expose-gc for exact memory figures)');
