// Chunks merged from late samples kept for the next read (src/head/merged-cache.ts):
// the first read after a change keeps nothing, the second keeps its merges,
// later reads answer the same chunks from the cache; any append to the
// series (late or in order) is seen at once; bytes stay within the bound;
// nothing is kept with the cache off; compaction of the late samples empties it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Db } from '../../src/db/db.js';
import { MatchType } from '../../src/index/types.js';
import { MergedChunkCache } from '../../src/head/merged-cache.js';
import { batchBuilder, bitsHex, decodeSelected, openSmallDb, samples, tempDir } from '../support/db.js';

const tmp = tempDir();
after(() => tmp.remove());
const HOUR = 3_600_000;
const START = 1_699_999_200_000;
const STEP = 30_000;
let n = 0;

const labelsOf = (i: number) => ['__name__', 'm', 'i', String(i).padStart(3, '0')];

function append(db: Db, series: number, time: (i: number) => number, value: (i: number) => number): void {
  const b = batchBuilder();
  for (let i = 0; i < series; i++) b.add(labelsOf(i), ...samples([time(i)], [value(i)]));
  const r = db.append(b.finish());
  assert.equal(r.appended, series);
}

/** A store with `series` series of 100 in-order samples and 99 late ones between them. */
async function store(series: number, extra: Parameters<typeof openSmallDb>[1] = {}): Promise<Db> {
  const db = await openSmallDb(`${tmp.dir}/${n++}`, { outOfOrderWindowMs: 2 * HOUR, ...extra });
  for (let k = 0; k < 100; k++) append(db, series, () => START + k * STEP, (i) => i + k);
  for (let k = 98; k >= 0; k--) append(db, series, () => START + k * STEP + STEP / 2, (i) => -i - k);
  return db;
}

const read = (db: Db, minT = START, maxT = START + HOUR) => db.querier().select([{ type: MatchType.EQ, name: '__name__', value: 'm' }], minT, maxT);

test('a third read answers the same samples from the cache; appends, late or in order, are seen at once', async () => {
  const db = await store(5);
  const first = decodeSelected(read(db));
  assert.equal(first[0]!.t.length, 199);
  assert.equal(db.head.merged.bytes, 0, 'a first read keeps nothing');
  assert.deepEqual(decodeSelected(read(db)), first);
  assert.ok(db.head.merged.bytes > 0, 'the second keeps its merges');
  assert.equal(db.head.merged.hits, 0);
  assert.deepEqual(decodeSelected(read(db)), first);
  assert.equal(2 * db.head.merged.hits, db.head.merged.misses, 'every merge of the third read came from the cache');
  // A late sample: the series' merge is made again with it.
  append(db, 1, () => START + 50 * STEP + 1, () => 0.25);
  const late = decodeSelected(read(db));
  const at = late[0]!.t.indexOf(START + 50 * STEP + 1);
  assert.ok(at > 0);
  assert.equal(late[0]!.v[at], bitsHex(0.25));
  assert.deepEqual(late.slice(1), first.slice(1));
  // An in-order sample: the open chunk changed, so did its merge.
  append(db, 5, () => START + 100 * STEP, () => 7);
  for (const s of decodeSelected(read(db))) assert.equal(s.t.at(-1), START + 100 * STEP);
  await db.close({ flush: false });
});

test('a narrower read merges its own range, then the whole range again is right', async () => {
  const db = await store(2);
  const whole = decodeSelected(read(db));
  const part = decodeSelected(read(db, START + 10 * STEP, START + 20 * STEP));
  for (const s of part) for (const t of s.t.filter((x) => x >= START + 10 * STEP && x <= START + 20 * STEP)) assert.ok(whole[0]!.t.includes(t));
  assert.deepEqual(decodeSelected(read(db)), whole);
  assert.deepEqual(decodeSelected(read(db)), whole);
  await db.close({ flush: false });
});

test('bytes stay within the bound; off keeps nothing and answers the same', async () => {
  const small = await store(40, { oooReadCacheBytes: 4096 });
  const off = await store(40, { oooReadCacheBytes: 0 });
  const want = decodeSelected(read(off));
  for (let k = 0; k < 4; k++) {
    assert.deepEqual(decodeSelected(read(small)), want);
    assert.ok(small.head.merged.bytes <= 4096, `${small.head.merged.bytes} bytes held`);
    if (k > 0) assert.ok(small.head.merged.bytes > 0);
  }
  assert.equal(off.head.merged.bytes, 0);
  assert.equal(off.head.merged.hits, 0);
  await small.close({ flush: false });
  await off.close({ flush: false });
});

test('compaction of the late samples into a block empties the cache; reads stay right', async () => {
  const db = await store(3, { compaction: false });
  const before = decodeSelected(read(db));
  read(db);
  assert.ok(db.head.merged.bytes > 0);
  // Push the head past 1.5 block ranges, then cut.
  append(db, 3, () => START + 4 * HOUR, () => 1);
  await db.settle();
  assert.ok(db.blockCount >= 1);
  assert.equal(db.head.merged.bytes, 0);
  assert.deepEqual(decodeSelected(read(db)), before);
  await db.close({ flush: false });
});

test('the cache itself: a merge is answered only for the same series object, stamp, chunk and range', () => {
  const cache = new MergedChunkCache(1 << 20);
  const s = {};
  const chunk = { minT: 10, maxT: 20, data: new Uint8Array(30) };
  const made = [{ minT: 10, maxT: 20, encoding: 1, data: Uint8Array.of(1, 2, 3) }];
  const recall = (c: typeof chunk | undefined, from: number, to: number) => {
    const out: unknown[] = [];
    return cache.recall(c, from, to, out) ? out : undefined;
  };
  cache.select(1, s, 5);
  assert.equal(recall(chunk, 0, 4), undefined);
  cache.keep(chunk, 0, 4, made, 0);
  assert.equal(cache.bytes, 0, 'the first read in a state keeps nothing');
  cache.select(1, s, 5);
  cache.keep(chunk, 0, 4, made, 0);
  made[0]!.data[0] = 9; // the source (a read's arena) is reused: the cache holds a copy
  cache.select(1, s, 5);
  assert.deepEqual((recall(chunk, 0, 4) as typeof made)[0]!.data, Uint8Array.of(1, 2, 3));
  assert.equal(recall(chunk, 0, 3), undefined, 'another range of late samples');
  assert.equal(recall({ ...chunk, maxT: 21 }, 0, 4), undefined, 'the open chunk grew');
  assert.equal(recall({ ...chunk, data: new Uint8Array(31) }, 0, 4), undefined);
  cache.select(1, s, 6);
  assert.equal(recall(chunk, 0, 4), undefined, 'the late samples changed');
  assert.equal(cache.bytes, 0);
  cache.select(1, s, 6);
  cache.keep(chunk, 0, 4, made, 0);
  assert.ok(cache.bytes > 0);
  cache.select(1, {}, 6);
  assert.equal(recall(chunk, 0, 4), undefined, 'another series under the same id');
});

test('the cache itself: eviction keeps the bound, oldest first unless read since', () => {
  const per = 100 + 96; // data and the overhead counted a chunk
  const cache = new MergedChunkCache(3 * per);
  const chunk = { minT: 0, maxT: 1, data: new Uint8Array(8) };
  const keep = (id: number) => {
    cache.select(id, chunk, 1);
    cache.select(id, chunk, 1);
    cache.keep(chunk, 0, 1, [{ minT: 0, maxT: 1, encoding: 1, data: new Uint8Array(100) }], 0);
  };
  const held = (id: number) => {
    cache.select(id, chunk, 1);
    return cache.recall(chunk, 0, 1, []);
  };
  keep(1);
  keep(2);
  keep(3);
  assert.ok(held(1)); // read: gets a second chance
  keep(4);
  assert.ok(cache.bytes <= 3 * per);
  assert.ok(held(1));
  assert.equal(held(2), false, 'the oldest not read since left');
  assert.ok(held(3) && held(4));
});
