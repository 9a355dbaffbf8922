// Out-of-order samples (issue 16): --tsdb.out-of-order.time-window's rule
// at its edges, one value per timestamp against everything held, reads
// that answer each sample once in chunks that do not overlap, blocks cut
// from in-order and out-of-order data together, blocks of ranges already
// cut (overlapping, merged by compaction), restart, and the
// too-far-in-future limit.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../../src/db/db.js';
import { readMetaFile } from '../../src/blocks/meta.js';
import { rejectionError } from '../../src/ingest/rejections.js';
import { SamplesRejectedError } from '../../src/errors/errors.js';
import { MatchType, type LabelMatcher } from '../../src/index/types.js';
import { compareLabels } from '../../src/encoding/utf8.js';
import type { SelectedSeries } from '../../src/query/types.js';
import { batchBuilder, bitsHex, decodeSelected, openSmallDb, samples, tempDir } from '../support/db.js';
import { onPath, parseDump, runPromtool, sameFloat } from '../support/promtool-dump.js';

const tmp = tempDir();
after(() => tmp.remove());
const MIN = 60_000;
const HOUR = 3_600_000;
const ALL: LabelMatcher[] = [{ type: MatchType.RE, name: '__name__', value: '.+' }];

/** What was acknowledged: per series key, value bits by timestamp. */
class Model {
  readonly series = new Map<string, { labels: string[]; at: Map<number, string> }>();

  add(labels: string[], t: number, v: number): void {
    const key = labels.join(',');
    let s = this.series.get(key);
    if (s === undefined) this.series.set(key, (s = { labels, at: new Map() }));
    s.at.set(t, bitsHex(v));
  }

  /** Series sorted by labels, samples sorted by time, within [minT, maxT]. */
  expected(minT = -Infinity, maxT = Infinity): Array<{ labels: string[]; t: number[]; v: string[] }> {
    return [...this.series.values()]
      .map((s) => {
        const pts = [...s.at].filter(([t]) => t >= minT && t <= maxT).sort((a, b) => a[0] - b[0]);
        return { labels: s.labels, t: pts.map(([t]) => t), v: pts.map(([, v]) => v) };
      })
      .filter((s) => s.t.length > 0)
      .sort((a, b) => compareLabels(a.labels, b.labels));
  }
}

/** Appends one batch of (labels, times, values) runs; the model learns what `keep` says was kept. */
function write(db: Db, model: Model | undefined, runs: Array<[string[], number[], number[]]>) {
  const b = batchBuilder();
  for (const [labels, ts, vs] of runs) b.add(labels, ...samples(ts, vs));
  const batch = b.finish();
  const r = db.append(batch);
  if (model !== undefined) for (const [labels, ts, vs] of runs) ts.forEach((t, i) => model.add(labels, t, vs[i]!));
  return { r, err: rejectionError(r, batch) };
}

/** In-order samples of `labels` every `step` from `from` (inclusive) to `to` (exclusive), value f(t), 60 a batch. */
function inOrder(db: Db, model: Model, labels: string[], from: number, to: number, step: number, f: (t: number) => number): void {
  for (let t0 = from; t0 < to; t0 += 60 * step) {
    const ts: number[] = [];
    for (let t = t0; t < Math.min(to, t0 + 60 * step); t += step) ts.push(t);
    const { r } = write(db, model, [[labels, ts, ts.map(f)]]);
    assert.equal(r.appended, ts.length, `in-order write at ${t0}`);
  }
}

/** Asserts that a read over [minT, maxT] answers exactly the model's samples, once each, in chunks that do not overlap. */
function assertReads(db: Db, model: Model, what: string, minT = -Infinity, maxT = Infinity): SelectedSeries[] {
  const sel = db.querier().select(ALL, minT, maxT);
  for (const s of sel) assertDisjoint(s, what);
  const got = decodeSelected(sel).map((s) => {
    const keep = s.t.map((t) => t >= minT && t <= maxT);
    return { labels: s.labels, t: s.t.filter((_, i) => keep[i]), v: s.v.filter((_, i) => keep[i]) };
  });
  const want = model.expected(minT, maxT);
  assert.deepEqual(got.map((s) => s.labels.join(',')), want.map((s) => s.labels.join(',')), `${what}: series`);
  for (const [i, s] of got.entries()) {
    assert.deepEqual(s.t, want[i]!.t, `${what}: timestamps of ${s.labels.join(',')}`);
    assert.deepEqual(s.v, want[i]!.v, `${what}: values of ${s.labels.join(',')}`);
  }
  return sel;
}

function assertDisjoint(s: SelectedSeries, what: string): void {
  for (let i = 1; i < s.chunks.length; i++) {
    assert.ok(s.chunks[i]!.minT > s.chunks[i - 1]!.maxT, `${what}: chunks ${i - 1} and ${i} of ${s.labels.join(',')} overlap`);
  }
}

function blockMetas(dir: string) {
  return Promise.all(readdirSync(join(dir, 'blocks')).filter((n) => /^[0-9A-Z]{26}$/.test(n)).map((n) => readMetaFile(join(dir, 'blocks', n))));
}

const A = ['__name__', 'a', 'job', 'x'];
const B = ['__name__', 'b', 'job', 'x'];
const C = ['__name__', 'c', 'job', 'x'];
const D = ['__name__', 'd', 'job', 'x'];
const value = (t: number) => t / MIN + 0.25;

test('window 0 refuses as before; a window takes out-of-order samples back to the newest minus the window, not one ms more', async () => {
  const dir = `${tmp.dir}/edges`;
  // Without a window: as before (out of order, too old).
  let db = await openSmallDb(dir, { compaction: false });
  const model = new Model();
  inOrder(db, model, A, 0, 4 * HOUR + MIN, MIN, value);
  await db.settle();
  assert.equal(db.blockCount, 1, '[0, 2 h) was cut');
  assert.equal(db.minValidTime, 2 * HOUR);
  assert.equal(db.oooMinValidTime, Infinity);
  let w = write(db, undefined, [[A, [3 * HOUR + 30_000], [1]]]);
  assert.equal(w.r.outOfOrder, 1);
  w = write(db, undefined, [[C, [2 * HOUR - 1], [1]]]);
  assert.equal(w.r.tooOld, 1);
  await db.close();

  // A one-hour window: the newest held is 4 h.
  db = await openSmallDb(dir, { compaction: false, outOfOrderWindowMs: HOUR });
  assert.equal(db.oooMinValidTime, 3 * HOUR);
  assert.equal(db.minValidTime, 2 * HOUR, 'the floor is older than the window');
  w = write(db, model, [[A, [3 * HOUR, 3 * HOUR + 30_000, 3 * HOUR + 90_000], [value(3 * HOUR), 7, 8]]]);
  assert.deepEqual([w.r.appended, w.r.oooAppended, w.r.ignored, w.err], [2, 2, 1, undefined], 'the edge itself is in the window (an equal sample held: ignored)');
  w = write(db, undefined, [[A, [3 * HOUR - 30_000], [1]]]);
  assert.equal(w.r.tooOld, 1, 'out of order before the window: too old, as Prometheus says with a window');
  assert.ok(w.err instanceof SamplesRejectedError);
  assert.match(w.err.message, /too old sample \(1, first \{__name__="a", job="x"\} at 10770000\)/);
  w = write(db, model, [[B, [3 * HOUR - 30_000], [2]]]);
  assert.deepEqual([w.r.appended, w.r.oooAppended, w.r.created], [1, 0, 1], 'a new series after the floor: in order');
  w = write(db, undefined, [[C, [2 * HOUR - 1], [1]]]);
  assert.deepEqual([w.r.tooOld, w.r.created], [1, 0], 'before the floor and the window: too old, no series made');
  assertReads(db, model, 'one-hour window');
  await db.close();

  // A three-hour window reaches past the floor, into the range a block holds.
  db = await openSmallDb(dir, { compaction: false, outOfOrderWindowMs: 3 * HOUR });
  assert.equal(db.oooMinValidTime, HOUR);
  assert.equal(db.minValidTime, HOUR);
  w = write(db, model, [[A, [HOUR, HOUR + 30_000], [value(HOUR), 5]], [D, [HOUR + 10_000], [6]]]);
  assert.deepEqual([w.r.appended, w.r.oooAppended, w.r.ignored, w.r.created], [2, 2, 1, 1], 'the block\'s equal sample: ignored; a new series before the floor: out of order');
  w = write(db, undefined, [[A, [HOUR + MIN], [99]]]);
  assert.equal(w.r.conflict, 1, 'another value for a time the block holds: a conflict');
  assert.match(w.err!.message, /duplicate sample for timestamp \(1, first \{__name__="a", job="x"\} at 3660000\)/);
  w = write(db, undefined, [[A, [HOUR - 1], [1]], [C, [HOUR - 1], [1]]]);
  assert.deepEqual([w.r.tooOld, w.r.created], [2, 0]);
  assertReads(db, model, 'three-hour window');
  const c = db.counters;
  assert.deepEqual([c.oooAppended, c.conflict, c.tooOld], [2, 1, 2]);
  await db.close();
});

test('one value per timestamp against the in-order chunks, open and in chunk files, and the out-of-order head', async () => {
  const dir = `${tmp.dir}/duplicates`;
  let db = await openSmallDb(dir, { outOfOrderWindowMs: 2 * HOUR, compaction: false });
  const model = new Model();
  inOrder(db, model, A, 0, 100 * MIN, MIN, value);
  await db.close(); // the open chunk goes to the chunk files
  db = await openSmallDb(dir, { outOfOrderWindowMs: 2 * HOUR, compaction: false });
  inOrder(db, model, A, 100 * MIN, 110 * MIN, MIN, value);
  for (const t of [5 * MIN, 105 * MIN]) {
    let w = write(db, undefined, [[A, [t], [value(t)]]]);
    assert.deepEqual([w.r.ignored, w.r.appended], [1, 0], `equal sample at ${t}: ignored`);
    w = write(db, undefined, [[A, [t], [value(t) + 1]]]);
    assert.deepEqual([w.r.conflict, w.r.appended], [1, 0], `other value at ${t}: conflict`);
  }
  let w = write(db, model, [[A, [5 * MIN + 1, 105 * MIN + 1], [1, 2]]]);
  assert.equal(w.r.oooAppended, 2);
  w = write(db, undefined, [[A, [5 * MIN + 1, 105 * MIN + 1, 105 * MIN + 1], [1, 3, 2]]]);
  assert.deepEqual([w.r.ignored, w.r.conflict, w.r.appended], [2, 1, 0]);
  // Within one batch: the first of two values for a time wins, the second is a conflict.
  w = write(db, undefined, [[A, [7 * MIN + 1, 7 * MIN + 1], [1, 2]]]);
  model.add(A, 7 * MIN + 1, 1);
  assert.deepEqual([w.r.oooAppended, w.r.conflict], [1, 1]);
  // A stale marker keeps its bits out of order too.
  const b = batchBuilder();
  b.add(A, BigInt64Array.of(9n * 60_000n + 1n), new Float64Array(new BigUint64Array([0x7ff0000000000002n]).buffer));
  assert.equal(db.append(b.finish()).oooAppended, 1);
  const got = decodeSelected(db.querier().select([{ type: MatchType.EQ, name: '__name__', value: 'a' }], 9 * MIN + 1, 9 * MIN + 1))[0]!;
  assert.equal(got.v[got.t.indexOf(9 * MIN + 1)], '7ff0000000000002');
  model.series.get(A.join(','))!.at.set(9 * MIN + 1, '7ff0000000000002');
  assertReads(db, model, 'after duplicates');
  await db.close();
});

test('one value per timestamp against an open chunk evenly spaced at first, then not (the check by arithmetic, and the seek)', async () => {
  const db = await openSmallDb(`${tmp.dir}/even-prefix`, { outOfOrderWindowMs: 2 * HOUR, compaction: false });
  const model = new Model();
  // 20 samples a minute apart, then jitter: one open chunk.
  const t0 = 7 * MIN + 3;
  const uneven = [t0 + 19 * MIN + 7, t0 + 19 * MIN + 20, t0 + 19 * MIN + 21];
  const all = [...Array.from({ length: 20 }, (_, k) => t0 + k * MIN), ...uneven];
  let w = write(db, model, [[A, all, all.map(value)]]);
  assert.equal(w.r.appended, all.length);
  for (const t of [t0, t0 + MIN, t0 + 10 * MIN, t0 + 19 * MIN, ...uneven.slice(0, 2)]) {
    w = write(db, undefined, [[A, [t], [value(t)]]]);
    assert.deepEqual([w.r.ignored, w.r.appended], [1, 0], `equal sample at ${t}: ignored`);
    w = write(db, undefined, [[A, [t], [value(t) + 1]]]);
    assert.deepEqual([w.r.conflict, w.r.appended], [1, 0], `other value at ${t}: conflict`);
  }
  // Late samples off the grid of the even ones, and between the uneven ones: kept.
  const between = [t0 - 1, t0 + 1, t0 + MIN + 1, t0 + 10 * MIN - 1, t0 + 19 * MIN + 8, t0 + 19 * MIN + 19];
  w = write(db, model, [[A, between, between.map(value)]]);
  assert.deepEqual([w.r.oooAppended, w.r.ignored, w.r.conflict], [between.length, 0, 0]);
  assertReads(db, model, 'even prefix, then uneven');
  await db.close();
});

test('reads answer each sample once in time order, chunks not overlapping; in-order series as stored; labels see out-of-order data', async () => {
  const db = await openSmallDb(`${tmp.dir}/reads`, { outOfOrderWindowMs: 2 * HOUR, compaction: false });
  const model = new Model();
  const Z = ['__name__', 'z', 'job', 'x'];
  inOrder(db, model, Z, 0, 90 * MIN, 15_000, value);
  const zBefore = db.querier().select([{ type: MatchType.EQ, name: '__name__', value: 'z' }], -Infinity, Infinity)[0]!.chunks.map((c) => Buffer.from(c.data).toString('hex'));
  inOrder(db, model, A, 0, 90 * MIN, 30_000, value);
  // Out of order: between in-order samples, before them, scattered, over several batches.
  const ts = Array.from({ length: 400 }, (_, i) => 15_000 + ((i * 7919) % 179) * 30_000 + (i % 3) * 1000);
  const uniq = [...new Set(ts)];
  for (let i = 0; i < uniq.length; i += 50) {
    const part = uniq.slice(i, i + 50);
    const w = write(db, model, [[A, part, part.map((t) => -t)]]);
    assert.equal(w.r.oooAppended, part.length);
  }
  // A series whose first sample came last: its others are out of order.
  write(db, model, [[B, [80 * MIN], [1]]]);
  write(db, model, [[B, [10 * MIN, 20 * MIN, 30 * MIN], [1, 2, 3]]]);
  const sel = assertReads(db, model, 'full range');
  assertReads(db, model, 'a slice', 20 * MIN + 1, 40 * MIN - 1);
  assertReads(db, model, 'one millisecond', 15_000, 15_000);
  const z = sel.find((s) => s.labels[1] === 'z')!;
  assert.deepEqual(z.chunks.map((c) => Buffer.from(c.data).toString('hex')), zBefore, 'an in-order series: chunks as stored');
  const a = sel.find((s) => s.labels[1] === 'a')!;
  assert.ok(a.chunks.every((c) => (c.data[0]! << 8 | c.data[1]!) <= 120), 'merged chunks hold at most 120 samples');
  // Labels: B has data in [10, 30] min only through out-of-order samples.
  const q = db.querier();
  assert.deepEqual(q.labelValues('__name__', [], 10 * MIN, 30 * MIN), ['a', 'b', 'z']);
  assert.deepEqual(q.labelValues('__name__', [{ type: MatchType.EQ, name: '__name__', value: 'b' }], 10 * MIN, 30 * MIN), ['b']);
  assert.deepEqual(q.labelValues('__name__', [{ type: MatchType.EQ, name: '__name__', value: 'b' }], 40 * MIN, 70 * MIN), []);
  assert.deepEqual(q.labelNames([{ type: MatchType.EQ, name: '__name__', value: 'b' }], 5 * MIN, 15 * MIN), ['__name__', 'job']);
  assert.equal(db.oooSamples, uniq.length + 3);
  await db.close();
});

test('blocks: a range cut with its out-of-order samples merged; later ones make an overlapping block that compaction merges; reads merge meanwhile', async () => {
  const dir = `${tmp.dir}/blocks`;
  const db = await openSmallDb(dir, { outOfOrderWindowMs: 3 * HOUR, compaction: false });
  const model = new Model();
  // Even minutes in order up to 2 h 50 min (no range closed yet), then odd minutes of [0, 2 h) out of order.
  inOrder(db, model, A, 0, 170 * MIN, 2 * MIN, value);
  for (let m = 1; m < 120; m += 20) {
    const ts = Array.from({ length: 10 }, (_, k) => (m + 2 * k) * MIN);
    const w = write(db, model, [[A, ts, ts.map(value)]]);
    assert.equal(w.r.oooAppended, 10);
  }
  // A series with out-of-order data only in [0, 2 h): its first sample came late.
  write(db, model, [[B, [160 * MIN], [1]]]);
  write(db, model, [[B, [30 * MIN, 31 * MIN], [1, 2]]]);
  inOrder(db, model, A, 170 * MIN, 250 * MIN, 2 * MIN, value);
  await db.settle();
  let metas = await blockMetas(dir);
  assert.equal(metas.length, 1, 'the head spans more than 3 h: [0, 2 h) is cut');
  assert.deepEqual([metas[0]!.minTime, metas[0]!.maxTime, metas[0]!.compaction.hints], [0, 2 * HOUR, undefined]);
  assert.equal(metas[0]!.stats.numSamples, 60 + 60 + 2, 'even and odd minutes of a, two of b');
  assert.equal(db.oooSamples, 0, 'the out-of-order head let go of them');
  assertReads(db, model, 'after the first cut');

  // Out of order into the range the block holds: read merged with the block.
  // The newest held is 248 min: the window reaches back to 68 min.
  const late = [70 * MIN + 15_000, 90 * MIN + 15_000, 110 * MIN + 15_000];
  let w = write(db, model, [[A, late, late.map((t) => t / 7)], [C, [100 * MIN], [3]]]);
  assert.deepEqual([w.r.oooAppended, w.r.created], [4, 1]);
  w = write(db, undefined, [[A, [80 * MIN], [1]]]);
  assert.equal(w.r.conflict, 1, 'the block holds another value at 80 min');
  w = write(db, undefined, [[A, [2 * MIN], [1]]]);
  assert.equal(w.r.tooOld, 1, 'before the window');
  assertReads(db, model, 'late samples of a cut range, before the next cut');
  assertReads(db, model, 'late samples, a slice', 80 * MIN, 95 * MIN);

  // The next cut writes [2 h, 4 h) and, for [0, 2 h), a block of out-of-order data alone.
  inOrder(db, model, A, 250 * MIN, 370 * MIN, 2 * MIN, value);
  await db.settle();
  metas = (await blockMetas(dir)).sort((x, y) => x.minTime - y.minTime || x.maxTime - y.maxTime);
  assert.equal(metas.length, 3);
  const ooo = metas.find((m) => m.compaction.hints?.includes('from-out-of-order'));
  assert.ok(ooo, 'a block marked from-out-of-order');
  assert.deepEqual([ooo.minTime, ooo.maxTime, ooo.stats.numSamples, ooo.stats.numSeries], [70 * MIN + 15_000, 2 * HOUR, 4, 2]);
  assert.equal(db.oooSamples, 0);
  assertReads(db, model, 'overlapping blocks, before compaction');
  const overlapping = copyDataDir(dir, 'overlapping');
  await db.close();

  // Compaction merges the overlapping blocks into one.
  const db2 = await openSmallDb(dir, { outOfOrderWindowMs: 3 * HOUR });
  await db2.maintain();
  metas = (await blockMetas(dir)).sort((x, y) => x.minTime - y.minTime);
  const first = metas.filter((m) => m.minTime < 2 * HOUR);
  assert.equal(first.length, 1, 'one block holds [0, 2 h) again');
  assert.deepEqual([first[0]!.minTime, first[0]!.maxTime, first[0]!.stats.numSamples], [0, 2 * HOUR, 60 + 60 + 2 + 4]);
  assertReads(db2, model, 'after compaction');
  await db2.close();

  if (onPath('promtool')) {
    // promtool reads the overlapping blocks, and the compacted one, as the samples written.
    for (const [what, data] of [['overlapping', overlapping], ['compacted', copyDataDir(dir, 'compacted')]] as const) {
      const dump = parseDump(runPromtool(['tsdb', 'dump', '--min-time=0', `--max-time=${2 * HOUR - 1}`, data]));
      const want = model.expected(0, 2 * HOUR - 1);
      assert.deepEqual([...dump.keys()].sort(), want.map((s) => JSON.stringify(s.labels)).sort(), `${what}: series`);
      for (const s of want) {
        const got = dump.get(JSON.stringify(s.labels))!.samples;
        assert.deepEqual(got.map((x) => x.t), s.t, `${what}: timestamps of ${s.labels.join(',')}`);
        got.forEach((x, i) => assert.ok(sameFloat(x.value, new Float64Array(new BigUint64Array([BigInt(`0x${s.v[i]}`)]).buffer)[0]!), `${what}: value at ${x.t}`));
      }
      const analyze = runPromtool(['tsdb', 'analyze', data]);
      assert.match(analyze, /Block ID:/);
    }
  }
});

test('restart: out-of-order samples come back from the WAL and from checkpoints, never twice', async () => {
  const dir = `${tmp.dir}/restart`;
  let db = await openSmallDb(dir, { outOfOrderWindowMs: 3 * HOUR, compaction: false, walSegmentsKept: 1 });
  const model = new Model();
  inOrder(db, model, A, 0, 100 * MIN, MIN, value);
  const odd = Array.from({ length: 99 }, (_, i) => i * MIN + 30_000);
  write(db, model, [[A, odd.slice(0, 50), odd.slice(0, 50).map((t) => t / 3)]]);
  // Enough WAL for a few segments, then a checkpoint: it holds the first half.
  const fill: Array<[string[], number[], number[]]> = [];
  for (let i = 0; i < 2000; i++) fill.push([['__name__', 'fill', 'i', String(i)], [MIN, 2 * MIN, 3 * MIN, 4 * MIN, 5 * MIN], [1, 2, 3, 4, i]]);
  write(db, model, fill);
  await db.truncateWal(1);
  assert.ok(readdirSync(join(dir, 'wal')).some((f) => f.startsWith('checkpoint.')), 'a checkpoint was written');
  write(db, model, [[A, odd.slice(50), odd.slice(50).map((t) => t / 3)]]);
  // (The head spans less than 3 h: no range is cut into a block.)
  write(db, model, [[B, [170 * MIN], [1]]]);
  write(db, model, [[B, [30 * MIN, 40 * MIN], [1, 2]]]);
  // Without a flush: as after kill -9 (the WAL is in the OS).
  await db.close({ flush: false });
  db = await openSmallDb(dir, { outOfOrderWindowMs: 3 * HOUR, compaction: false });
  assert.equal(db.oooSamples, 99 + 2);
  assertReads(db, model, 'after a restart without flush');
  // Out-of-order duplicates are still told apart after the restart.
  const w = write(db, undefined, [[A, [odd[30]!, odd[60]!], [0, odd[60]! / 3]]]);
  assert.deepEqual([w.r.conflict, w.r.ignored], [1, 1]);
  await db.close();
  db = await openSmallDb(dir, { outOfOrderWindowMs: 3 * HOUR, compaction: false });
  assert.equal(db.oooSamples, 101);
  assertReads(db, model, 'after a flushed close');
  // Opened without a window, the data stays readable; new out-of-order samples are refused.
  await db.close();
  db = await openSmallDb(dir, { compaction: false });
  assertReads(db, model, 'reopened without a window');
  assert.equal(write(db, undefined, [[A, [odd[0]! + 1], [1]]]).r.outOfOrder, 1);
  await db.close();
});

test('too far in the future: samples newer than now + the window are refused and counted, the series not made', async () => {
  const now = 100 * HOUR;
  const db = await openSmallDb(`${tmp.dir}/future`, { tooFarInFutureMs: 10 * MIN, now: () => now });
  const model = new Model();
  let w = write(db, model, [[A, [now, now + 10 * MIN], [1, 2]]]);
  assert.deepEqual([w.r.appended, w.err], [2, undefined], 'now + the window itself is taken');
  w = write(db, undefined, [[A, [now + 10 * MIN + 1], [3]], [B, [now + HOUR, now + 2 * HOUR], [1, 2]]]);
  assert.deepEqual([w.r.tooFarInFuture, w.r.appended, w.r.created], [3, 0, 0]);
  assert.ok(w.err instanceof SamplesRejectedError);
  assert.equal(w.err.counts['too-far-in-future'], 3);
  assert.match(w.err.message, /^3 samples rejected: out of bounds: sample too far in the future \(3, first \{__name__="a", job="x"\} at 360600001\)$/);
  assert.equal(db.counters.tooFarInFuture, 3);
  assertReads(db, model, 'future');
  await db.close();
  // Without the limit (the default) any time is taken.
  const free = await openSmallDb(`${tmp.dir}/future-free`);
  assert.equal(write(free, undefined, [[A, [Date.now() + 365 * 24 * HOUR], [1]]]).r.appended, 1);
  await free.close();
});

/** The blocks of a data directory copied as a Prometheus data directory (a wal/ of its own), for promtool. */
function copyDataDir(dir: string, name: string): string {
  const out = join(tmp.dir, `copy-${name}`);
  cpSync(join(dir, 'blocks'), out, { recursive: true });
  for (const n of readdirSync(out)) if (!/^[0-9A-Z]{26}$/.test(n)) rmSync(join(out, n), { recursive: true, force: true });
  mkdirSync(join(out, 'wal'), { recursive: true });
  return out;
}

test('samples arriving while their range is being written stay in the head; a restart after the cut doubles nothing', async () => {
  const dir = `${tmp.dir}/during-cut`;
  let db = await openSmallDb(dir, { outOfOrderWindowMs: 3 * HOUR, compaction: false });
  const model = new Model();
  const many = Array.from({ length: 300 }, (_, i) => ['__name__', 'm', 'i', String(i)]);
  for (let m = 0; m < 170; m += 10) {
    write(db, model, many.map((l) => [l, [m * MIN], [m]]));
  }
  for (let m = 5; m < 120; m += 10) write(db, model, many.map((l) => [l, [m * MIN], [-m]]));
  // The write that closes [0, 2 h); the cut begins in the background.
  write(db, model, many.map((l) => [l, [250 * MIN], [250]]));
  const cuts = (db as unknown as { oooCuts: { busy: boolean } }).oooCuts;
  while (!cuts.busy) await new Promise((r) => setImmediate(r));
  // Older than the cut's end (2 h), while its blocks are being written: to the
  // out-of-order head; the window reaches back to 70 min.
  const w = write(db, model, many.map((l) => [l, [77 * MIN, 75 * MIN], [77, -75]]));
  assert.deepEqual([w.r.oooAppended, w.r.ignored], [300, 300], 'the cut\'s samples are still told apart');
  assertReads(db, model, 'during the cut');
  await db.settle();
  assert.equal(db.blockCount, 1);
  assert.equal(db.oooSamples, 300, 'what came during the cut waits for the next');
  assertReads(db, model, 'after the cut');
  await db.close({ flush: false });
  db = await openSmallDb(dir, { outOfOrderWindowMs: 3 * HOUR, compaction: false });
  assert.equal(db.oooSamples, 300, 'replay: the cut\'s samples are in the block, not in the head again');
  assertReads(db, model, 'after a restart');
  await db.close();
});

test('a cut that fails puts its samples back; after a crash the begun cut is undone on replay', async () => {
  const dir = `${tmp.dir}/failed-cut`;
  const logged: string[] = [];
  const log = { info() {}, warn() {}, error: (_o: object, msg: string) => logged.push(msg) };
  let db = await openSmallDb(dir, { outOfOrderWindowMs: 3 * HOUR, compaction: false, log });
  const model = new Model();
  inOrder(db, model, A, 0, 170 * MIN, 2 * MIN, value);
  const odd = Array.from({ length: 60 }, (_, i) => (2 * i + 1) * MIN);
  write(db, model, [[A, odd, odd.map(value)]]);
  // Blocks cannot be written: the blocks directory is a file.
  renameSync(join(dir, 'blocks'), join(dir, 'blocks.moved'));
  writeFileSync(join(dir, 'blocks'), '');
  inOrder(db, model, A, 170 * MIN, 250 * MIN, 2 * MIN, value);
  await db.settle();
  assert.ok(logged.includes('background storage job failed'), 'the head compaction failed');
  assert.equal(db.blockCount, 0);
  assert.equal(db.oooSamples, 60, 'the samples are back in the out-of-order head');
  assertReads(db, model, 'after the failed cut');
  assert.equal(write(db, undefined, [[A, [odd[40]!], [0]]]).r.conflict, 1);
  await db.close({ flush: false });
  rmSync(join(dir, 'blocks'));
  renameSync(join(dir, 'blocks.moved'), join(dir, 'blocks'));
  db = await openSmallDb(dir, { outOfOrderWindowMs: 3 * HOUR, compaction: false });
  await db.settle();
  assert.equal(db.blockCount, 1, 'the range is cut on start');
  const [meta] = await blockMetas(dir);
  assert.equal(meta!.stats.numSamples, 120);
  assert.equal(db.oooSamples, 0);
  assertReads(db, model, 'after the restart');
  await db.close();
});
