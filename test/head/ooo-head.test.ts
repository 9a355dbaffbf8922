// The out-of-order head (src/head/ooo-head.ts): sorted samples per series,
// one value per timestamp, split and put back exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INSERT_ADDED, INSERT_CONFLICT, INSERT_SAME, OooHead } from '../../src/head/ooo-head.js';
import { rng } from '../support/series.js';

/** Value bits of a float64 as [lo, hi]. */
function bits(v: number): [number, number] {
  const w = new Uint32Array(new Float64Array([v]).buffer);
  return [w[0]!, w[1]!];
}

/** A series' samples in [minT, maxT] as [t, value] pairs, as readers see them (view). */
function read(h: OooHead, id: number, minT = -Infinity, maxT = Infinity): Array<[number, number]> {
  const cols = h.view(id, minT, maxT);
  const f = new Float64Array(cols.v.buffer, cols.v.byteOffset, cols.n);
  const out: Array<[number, number]> = [];
  for (let i = 0; i < cols.n; i++) {
    assert.ok(i === 0 || cols.t[i]! > cols.t[i - 1]!, `sorted and distinct at ${i}`);
    out.push([cols.t[i]!, f[i]!]);
  }
  return out;
}

function insert(h: OooHead, id: number, t: number, v: number): number {
  return h.insert(id, t, ...bits(v));
}

test('keeps samples sorted whatever order they come in, and answers a range exactly', () => {
  const h = new OooHead();
  const r = rng(7);
  const want = new Map<number, number>();
  for (let i = 0; i < 2000; i++) {
    const t = Math.floor(r() * 5000) * 10;
    const v = t / 10 + 0.5;
    const res = insert(h, 1, t, v);
    assert.equal(res, want.has(t) ? INSERT_SAME : INSERT_ADDED);
    want.set(t, v);
  }
  const sorted = [...want].sort((a, b) => a[0] - b[0]);
  assert.deepEqual(read(h, 1), sorted);
  assert.equal(h.samples, want.size);
  assert.equal(h.minTime, sorted[0]![0]);
  assert.equal(h.maxTime, sorted.at(-1)![0]);
  // A range read answers the samples in it.
  assert.deepEqual(read(h, 1, 10_000, 20_000), sorted.filter(([t]) => t >= 10_000 && t <= 20_000));
});

test('holds samples coming in time order, forwards or backwards, sorted', () => {
  for (const dir of [1, -1]) {
    const h = new OooHead();
    for (let i = 0; i < 100; i++) insert(h, 3, 1000 + dir * i, i);
    assert.deepEqual(read(h, 3).map(([t]) => t), Array.from({ length: 100 }, (_, i) => (dir === 1 ? 1000 + i : 901 + i)), `direction ${dir}`);
  }
});

test('one value per timestamp: the same bits are ignored, other bits are a conflict', () => {
  const h = new OooHead();
  assert.equal(insert(h, 1, 100, 1.5), INSERT_ADDED);
  assert.equal(insert(h, 1, 100, 1.5), INSERT_SAME);
  assert.equal(insert(h, 1, 100, 2.5), INSERT_CONFLICT);
  assert.equal(insert(h, 2, 100, 2.5), INSERT_ADDED, 'another series');
  // Stale markers and NaN payloads are told apart by their bits.
  const stale = [0x00000002, 0x7ff00000] as const;
  assert.equal(h.insert(1, 200, ...stale), INSERT_ADDED);
  assert.equal(h.insert(1, 200, ...stale), INSERT_SAME);
  assert.equal(h.insert(1, 200, 0x00000000, 0x7ff80000), INSERT_CONFLICT);
  const out = new Uint32Array(2);
  assert.ok(h.lookup(1, 200, out));
  assert.deepEqual([...out], [...stale], 'the stale marker keeps its bits');
  // Also in a chunk encoded since.
  for (let t = 300; t < 400; t++) insert(h, 1, t, t);
  assert.ok(h.lookup(1, 200, out));
  assert.deepEqual([...out], [...stale]);
  assert.equal(h.lookup(1, 250, out), false);
  assert.equal(h.samples, 103);
});

test('splitBefore moves the older samples out, at one point; absorb puts them back', () => {
  const h = new OooHead();
  for (let t = 0; t < 200; t += 3) insert(h, 1, t, t);
  for (let t = 150; t < 400; t += 7) insert(h, 2, t, -t);
  insert(h, 3, 500, 1);
  const before1 = read(h, 1);
  const before2 = read(h, 2);
  const cut = h.splitBefore(160);
  assert.deepEqual([...read(cut, 1), ...read(h, 1)], before1);
  assert.ok(read(cut, 1).every(([t]) => t < 160));
  assert.ok(read(h, 1).every(([t]) => t >= 160));
  assert.deepEqual([...read(cut, 2), ...read(h, 2)], before2);
  assert.equal(cut.has(3), false);
  assert.equal(cut.samples + h.samples, before1.length + before2.length + 1);
  assert.equal(cut.maxTime < 160, true);
  assert.equal(h.minTime >= 160, true);
  // Inserting into both halves goes on working.
  assert.equal(insert(h, 1, 161, 0), INSERT_ADDED);
  h.absorb(cut);
  assert.deepEqual(read(h, 1), [...before1, [161, 0] as [number, number]].sort((a, b) => a[0] - b[0]));
  assert.deepEqual(read(h, 2), before2);
});

test('expireBefore drops older samples and names the series left with none', () => {
  const h = new OooHead();
  for (let t = 0; t < 100; t++) insert(h, 1, t, t);
  insert(h, 2, 10, 1);
  assert.deepEqual(h.expireBefore(50), [2]);
  assert.equal(h.has(2), false);
  assert.deepEqual(read(h, 1).map(([t]) => t), Array.from({ length: 50 }, (_, i) => 50 + i));
  assert.equal(h.samples, 50);
  assert.equal(h.minTime, 50);
  h.drop(1);
  assert.equal(h.samples, 0);
  assert.equal(h.minTime, Infinity);
});

test('columns answers a range of a series as sorted columns', () => {
  const h = new OooHead();
  for (let t = 100; t > 0; t--) insert(h, 9, t * 10, t);
  const cols = h.columns(9, 205, 505);
  assert.deepEqual([...cols.t], Array.from({ length: 30 }, (_, i) => 210 + i * 10));
  assert.equal(h.overlaps(9, 1001, 2000), false);
  assert.equal(h.overlaps(9, 995, 2000), true);
});

test('view answers a range as views of the columns held; columnBytes counts them', () => {
  const h = new OooHead();
  assert.equal(h.columnBytes, 0);
  for (let t = 1; t <= 100; t++) insert(h, 4, t * 10, t);
  const v = h.view(4, 155, 305);
  assert.deepEqual([...v.t], Array.from({ length: 15 }, (_, i) => 160 + i * 10));
  assert.deepEqual(new Float64Array(v.v.slice().buffer)[0], 16);
  assert.equal(h.view(4, 1001, 2000).n, 0);
  assert.equal(h.view(5).n, 0);
  assert.ok(h.columnBytes >= 100 * 16);
  // A series moved whole by splitBefore keeps its samples.
  const cut = h.splitBefore(5000);
  assert.equal(h.has(4), false);
  assert.equal(cut.view(4).n, 100);
});

test('samples still in the unsorted tail: found by inserts and lookups, seen by every read, split and bounded exactly', () => {
  const r = rng(26);
  for (let round = 0; round < 20; round++) {
    const h = new OooHead();
    const want = new Map<number, number>();
    const held = new Uint32Array(2);
    // Fewer, then more inserts than a tail holds between reads.
    const burst = 1 + Math.floor(r() * 80);
    for (let i = 0; i < 400; i++) {
      const t = Math.floor(r() * 300) * 5;
      const v = want.get(t) ?? t + 0.25;
      const other = want.has(t) && r() < 0.3;
      assert.equal(insert(h, 1, t, other ? v + 1 : v), !want.has(t) ? INSERT_ADDED : other ? INSERT_CONFLICT : INSERT_SAME, `insert at ${t}`);
      want.set(t, v);
      if (i % burst !== burst - 1) continue;
      const probe = Math.floor(r() * 300) * 5;
      assert.equal(h.lookup(1, probe, held), want.has(probe), `lookup ${probe}`);
      if (want.has(probe)) assert.deepEqual([held[0], held[1]], bits(want.get(probe)!));
      const times = [...want.keys()].sort((a, b) => a - b);
      assert.equal(h.minTime, times[0]);
      assert.equal(h.maxTime, times.at(-1));
      assert.equal(h.overlaps(1, probe, probe + 2), times.some((x) => x >= probe && x <= probe + 2));
      assert.deepEqual(read(h, 1, 100, 900), times.filter((x) => x >= 100 && x <= 900).map((x) => [x, want.get(x)!]));
    }
    const all = [...want].sort((a, b) => a[0] - b[0]);
    for (let i = 0; i < 5; i++) insert(h, 1, 2000 - 5 * i, 1);
    const cut = h.splitBefore(750);
    assert.deepEqual(read(cut, 1), all.filter(([t]) => t < 750));
    assert.deepEqual(read(h, 1).slice(0, -5), all.filter(([t]) => t >= 750));
    assert.equal(h.samples + cut.samples, all.length + 5);
  }
});
