// Native histograms in the engine: the sample rules, float <-> histogram
// switches, chunks with their encodings, and restarts (replay of the WAL,
// chunk files, checkpoints) that give back every sample exactly.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import type { Db } from '../../src/db/db.js';
import { rejectionError } from '../../src/ingest/rejections.js';
import { MatchType } from '../../src/index/types.js';
import { batchBuilder, decodeSelected, openSmallDb, tempDir } from '../support/db.js';
import { chunksOf, counterHistogram, gaugeHistogram, histogramBuilder, histogramsOf, meaning, type Meaning } from './support/histograms.js';

const tmp = tempDir('strata-histograms-');
after(() => tmp.remove());
let dirs = 0;
const nextDir = (): string => `${tmp.dir}/${dirs++}`;

/** Appends integer histograms counterHistogram(i) at times[i] to series `name`. */
function appendInts(db: Db, name: string, times: number[], from = 0, resetAt = Infinity): ReturnType<Db['appendHistograms']> {
  const b = histogramBuilder();
  b.add(['__name__', name], times, times.map((_, i) => counterHistogram(from + i, resetAt)));
  return db.appendHistograms(b.finish());
}

function appendFloats(db: Db, name: string, times: number[]): ReturnType<Db['append']> {
  const b = batchBuilder();
  b.add(['__name__', name], BigInt64Array.from(times.map(BigInt)), Float64Array.from(times.map((t) => t / 1000)));
  return db.append(b.finish());
}

function expectInts(times: number[], from = 0, resetAt = Infinity): Meaning[] {
  return times.map((t, i) => meaning(t, counterHistogram(from + i, resetAt), false));
}

const range = (n: number, start = 1000, step = 1000): number[] => Array.from({ length: n }, (_, i) => start + i * step);

describe('native histograms: the sample rules', () => {
  test('integer histograms are stored in HISTOGRAM chunks and read back exactly, layout changes and a reset included', async () => {
    const db = await openSmallDb(nextDir());
    try {
      const times = range(10);
      const r = appendInts(db, 'h', times, 0, 7);
      assert.equal(r.appended, 10);
      assert.equal(r.created, 1);
      assert.deepEqual(histogramsOf(db, 'h'), expectInts(times, 0, 7));
      const chunks = chunksOf(db, 'h');
      assert.ok(chunks.every((c) => c.encoding === 2), 'every chunk carries encoding 2');
      assert.ok(chunks.length >= 2, 'the counter reset cut a chunk');
      assert.equal(chunks.at(-1)!.minT, 8000, 'the new chunk starts at the reset');
      assert.equal(db.counters.histogramsAppended, 10);
    } finally {
      await db.close();
    }
  });

  test('older histograms are out of order, even with an out-of-order window (2.42 keeps none); the same one again is a duplicate, another a conflict', async () => {
    const db = await openSmallDb(nextDir(), { outOfOrderWindowMs: 3_600_000 });
    try {
      appendInts(db, 'h', [1000, 2000, 3000]);
      const b = histogramBuilder();
      b.add(['__name__', 'h'], [2500, 3000, 3000, 4000], [counterHistogram(0), counterHistogram(2), counterHistogram(9), counterHistogram(3)]);
      const batch = b.finish();
      const r = db.appendHistograms(batch);
      assert.deepEqual([r.appended, r.ignored, r.outOfOrder, r.conflict], [1, 1, 1, 1]);
      const err = rejectionError(r, batch)!;
      assert.equal(err.message, '2 histogram samples rejected: out of order sample (1, first {__name__="h"} at 2500); duplicate sample for timestamp (1, first {__name__="h"} at 3000)');
      assert.deepEqual(histogramsOf(db, 'h').map((m) => m.t), [1000, 2000, 3000, 4000]);
    } finally {
      await db.close();
    }
  });

  test('a repeat of a sample the fast path took (same layout, no reset) is a duplicate; one bucket off, or a count off, is a conflict', async () => {
    const db = await openSmallDb(nextDir());
    try {
      // 2..4 share a layout and grow: the head appends 3 and 4 without a histogram object.
      appendInts(db, 'h', [1000, 2000, 3000]);
      const same = counterHistogram(2);
      const bucketOff = { ...same, positiveBuckets: same.positiveBuckets.map((x, j) => (j === same.positiveBuckets.length - 1 ? x + 1 : x)), count: same.count + 1 };
      const countOff = { ...same, count: same.count + 1 };
      const b = histogramBuilder();
      b.add(['__name__', 'h'], [3000, 3000, 3000], [same, bucketOff, countOff]);
      const r = db.appendHistograms(b.finish());
      assert.deepEqual([r.appended, r.ignored, r.conflict], [0, 1, 2]);
      assert.deepEqual(histogramsOf(db, 'h').map((m) => m.t), [1000, 2000, 3000]);
    } finally {
      await db.close();
    }
  });

  test('too old (before the head\'s floor) and too far in the future, as floats; a series none of whose samples is taken is not created', async () => {
    const now = 1_000_000_000;
    const db = await openSmallDb(nextDir(), { tooFarInFutureMs: 60_000, now: () => now });
    try {
      // Push the floor: a float series spanning more than 1.5 block ranges.
      appendFloats(db, 'f', [0, 3 * 7_200_000]);
      const r = appendInts(db, 'h', [1000, now + 120_000]);
      assert.deepEqual([r.appended, r.tooOld, r.tooFarInFuture, r.created], [0, 1, 1, 0]);
      assert.equal(db.querier().select([{ type: MatchType.EQ, name: '__name__', value: 'h' }], -Infinity, Infinity).length, 0);
      assert.equal(appendInts(db, 'h', [3 * 7_200_000]).appended, 1);
    } finally {
      await db.close();
    }
  });

  test('a series switches between floats and histograms: a new chunk each time, time order across both kinds', async () => {
    const db = await openSmallDb(nextDir());
    try {
      appendFloats(db, 'm', [1000, 2000, 3000]);
      assert.equal(appendInts(db, 'm', [3000]).conflict, 1, 'a histogram at the newest float\'s time is a conflict');
      assert.equal(appendInts(db, 'm', [2500]).outOfOrder, 1);
      assert.equal(appendInts(db, 'm', [4000, 5000, 6000]).appended, 3);
      assert.equal(appendFloats(db, 'm', [6000]).conflict, 1, 'a float at the newest histogram\'s time is a conflict');
      assert.equal(appendFloats(db, 'm', [5500]).outOfOrder, 1);
      assert.equal(appendFloats(db, 'm', [7000, 8000]).appended, 2);
      const b = histogramBuilder();
      b.add(['__name__', 'm'], [9000, 10000], [gaugeHistogram(0), gaugeHistogram(1)], true);
      assert.equal(db.appendHistograms(b.finish()).appended, 2);
      assert.equal(appendInts(db, 'm', [11000], 3).appended, 1, 'integer after float histograms');
      const chunks = chunksOf(db, 'm');
      assert.deepEqual(chunks.map((c) => [c.encoding, c.minT, c.maxT]), [
        [1, 1000, 3000], [2, 4000, 6000], [1, 7000, 8000], [3, 9000, 10000], [2, 11000, 11000],
      ]);
      const floats = decodeSelected([{ labels: ['__name__', 'm'], chunks: chunks.filter((c) => c.encoding === 1) }]);
      assert.deepEqual(floats[0]!.t, [1000, 2000, 3000, 7000, 8000]);
      assert.deepEqual(histogramsOf(db, 'm').map((m) => [m.t, m.float]), [[4000, false], [5000, false], [6000, false], [9000, true], [10000, true], [11000, false]]);
    } finally {
      await db.close();
    }
  });

  test('a stale marker (a histogram whose sum is the stale NaN) is stored as one, and the series goes on after it', async () => {
    const db = await openSmallDb(nextDir());
    try {
      const stale = { ...counterHistogram(0), sum: new Float64Array(new BigUint64Array([0x7ff0000000000002n]).buffer)[0]! };
      const b = histogramBuilder();
      b.add(['__name__', 's'], [1000, 2000, 3000, 4000], [counterHistogram(0), counterHistogram(1), stale, counterHistogram(2)]);
      assert.equal(db.appendHistograms(b.finish()).appended, 4);
      const got = histogramsOf(db, 's');
      assert.deepEqual(got.map((m) => m.t), [1000, 2000, 3000, 4000]);
      assert.deepEqual(got.map((m) => m.sum), [meaning(0, counterHistogram(0), false).sum, meaning(0, counterHistogram(1), false).sum, '7ff0000000000002', meaning(0, counterHistogram(2), false).sum]);
      assert.ok(chunksOf(db, 's').length >= 2, 'a new chunk after the stale marker');
    } finally {
      await db.close();
    }
  });

  test('histogram-only series are series like any other for labels and matchers', async () => {
    const db = await openSmallDb(nextDir());
    try {
      const b = histogramBuilder(['tenant_id', 't1']);
      b.add(['__name__', 'rpc_seconds', 'job', 'api'], [1000], [counterHistogram(0)]);
      db.appendHistograms(b.finish());
      const q = db.querier();
      assert.deepEqual(q.labelNames([], 0, 2000), ['__name__', 'job', 'tenant_id']);
      assert.deepEqual(q.labelValues('job', [{ type: MatchType.EQ, name: '__name__', value: 'rpc_seconds' }], 0, 2000), ['api']);
      assert.deepEqual(q.labelValues('job', [], 5000, 6000), [], 'no data in that range');
      assert.equal(db.seriesWithLabel('tenant_id', 't1'), 1);
    } finally {
      await db.close();
    }
  });
});

describe('native histograms: restarts', () => {
  /** What the engine answers for a series: chunk spans and encodings, and every histogram's meaning. */
  function snapshot(db: Db, name: string): { chunks: [number | undefined, number, number][]; h: Meaning[]; bytes: string[] } {
    const chunks = chunksOf(db, name);
    return {
      chunks: chunks.map((c) => [c.encoding, c.minT, c.maxT]),
      h: histogramsOf(db, name),
      bytes: chunks.map((c) => Buffer.from(c.data).toString('hex')),
    };
  }

  test('a crash after the WAL write: replay restores every histogram and the open chunk byte for byte', async () => {
    const dir = nextDir();
    let db = await openSmallDb(dir);
    // 600 samples 15 s apart: chunks cut by the reset, by floats in between and by time, one left open;
    // a float histogram series too.
    const times = range(600, 1000, 15_000);
    appendInts(db, 'h', times.slice(0, 150), 0, 100);
    appendFloats(db, 'h', [times[149]! + 1, times[149]! + 2]);
    appendInts(db, 'h', times.slice(150), 150, 100);
    const b = histogramBuilder();
    b.add(['__name__', 'g'], range(50), range(50).map((_, i) => gaugeHistogram(i)), true);
    db.appendHistograms(b.finish());
    const before = [snapshot(db, 'h'), snapshot(db, 'g')];
    // The open chunk was cut from a histogram chunk by time: its header (not a reset) was decided against
    // that chunk, which replay must know again from the chunk files.
    const open = chunksOf(db, 'h').at(-1)!;
    assert.deepEqual([open.encoding, open.data[2]! >> 6], [2, 1]);
    assert.deepEqual(before[0]!.chunks.slice(0, 3).map(([e]) => e), [2, 2, 1], 'the reset, then the floats, cut chunks');
    assert.ok(before[0]!.chunks.length >= 5 && before[0]!.chunks.slice(3).every(([e]) => e === 2), 'time cut the rest');
    assert.equal(before[0]!.h.length, 600);
    await db.close({ flush: false }); // the WAL is in the OS, the open chunks only in memory
    db = await openSmallDb(dir);
    try {
      assert.deepEqual([snapshot(db, 'h'), snapshot(db, 'g')], before);
      // The sample rules hold after the restart.
      assert.equal(appendInts(db, 'h', [times[599]!], 599, 100).ignored, 1);
      assert.equal(appendInts(db, 'h', [times[598]!]).outOfOrder, 1);
    } finally {
      await db.close();
    }
  });

  test('after a clean stop (every chunk in the chunk files) and after a checkpoint, the data and the newest sample come back', async () => {
    const dir = nextDir();
    // Small WAL segments and a float series filling them: a checkpoint has segments to stand for.
    let db = await openSmallDb(dir, { walSegmentBytes: 4096 });
    const times = range(40);
    for (let i = 0; i < 20; i++) {
      appendInts(db, 'h', [times[i]!], i);
      appendFloats(db, 'filler', range(400, 1000 + i * 400_000, 1000));
    }
    await db.truncateWal(1); // the open chunk is cut into the chunk files, the WAL checkpointed
    assert.ok(readdirSync(`${dir}/wal`).some((f) => f.startsWith('checkpoint.')));
    appendInts(db, 'h', times.slice(20), 20);
    const before = snapshot(db, 'h');
    await db.close({ flush: false });
    db = await openSmallDb(dir);
    assert.deepEqual(snapshot(db, 'h'), before, 'chunk files + checkpoint + later segments');
    await db.close(); // flushes
    db = await openSmallDb(dir);
    try {
      assert.deepEqual(snapshot(db, 'h').h, before.h);
      assert.ok(snapshot(db, 'h').chunks.every(([e]) => e === 2));
      const r = appendInts(db, 'h', [times[39]!, times[39]! + 1000], 39);
      assert.deepEqual([r.ignored, r.appended], [1, 1], 'the newest histogram was restored from the last chunk');
    } finally {
      await db.close();
    }
  });
});
