// Samples held as columns merged into a series' chunks (src/chunkenc/merge-columns.ts),
// as reads of series with out-of-order samples do: chunks whose span holds
// none of them pass as stored, the others are merged (the chunk's sample
// wins a time held by both), samples between chunks become chunks of their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ColumnsBuffer, decodeColumns, decodeColumnsInto, encodeColumns, mergeSorted, type SampleColumns } from '../../src/chunkenc/columns.js';
import { mergeColumnsInto } from '../../src/chunkenc/merge-columns.js';
import type { MergeableChunk } from '../../src/chunkenc/merge-chunks.js';
import { rng } from '../support/series.js';
import { ByteArena, TransientArena } from '../../src/query/byte-arena.js';

/** Columns of the given times, value bits [i, time low word]. */
function columns(times: readonly number[], tag: number): SampleColumns {
  const t = Float64Array.from(times);
  const v = new Uint32Array(2 * times.length);
  times.forEach((x, i) => {
    v[2 * i] = tag;
    v[2 * i + 1] = x % 1_000_000;
  });
  return { t, v, n: times.length };
}

function chunkOf(times: readonly number[], tag: number): MergeableChunk {
  const c = columns(times, tag);
  return { minT: times[0]!, maxT: times.at(-1)!, data: encodeColumns(c.t, c.v, 0, c.n) };
}

/** Every sample of the chunks as [t, tag], checking they come by time and do not overlap. */
function samples(chunks: readonly MergeableChunk[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let prevMax = -Infinity;
  for (const c of chunks) {
    assert.ok(c.minT > prevMax, `chunk [${c.minT}, ${c.maxT}] overlaps the one before`);
    prevMax = c.maxT;
    const d = decodeColumns(c.data);
    assert.ok(d.n <= 120);
    assert.equal(d.t[0], c.minT);
    assert.equal(d.t[d.n - 1], c.maxT);
    for (let i = 0; i < d.n; i++) out.push([d.t[i]!, d.v[2 * i]!]);
  }
  return out;
}

test('merges random samples into random chunks: every time once, the chunk winning a tie, untouched chunks as stored', () => {
  const r = rng(26);
  for (let round = 0; round < 50; round++) {
    const chunks: MergeableChunk[] = [];
    const want = new Map<number, number>();
    let t = 1000;
    const nChunks = 1 + Math.floor(r() * 5);
    for (let k = 0; k < nChunks; k++) {
      t += Math.floor(r() * 3) * 500;
      const times: number[] = [];
      for (let i = 0; i < 1 + Math.floor(r() * 150); i++) times.push((t += 10));
      chunks.push(chunkOf(times, 1 + k));
      for (const x of times) want.set(x, 1 + k);
    }
    const late = new Set<number>();
    const nLate = Math.floor(r() * 300);
    for (let i = 0; i < nLate; i++) late.add(Math.floor(r() * (t + 2000 - 500)) + 500);
    const lateTimes = [...late].sort((a, b) => a - b);
    for (const x of lateTimes) if (!want.has(x)) want.set(x, 99);
    const shuffled = [...chunks].reverse();
    const out = mergeColumnsInto(shuffled, columns(lateTimes, 99));
    assert.ok(out !== undefined);
    assert.deepEqual(samples(out), [...want].sort((a, b) => a[0] - b[0]), `round ${round}`);
    for (const c of chunks) {
      const untouched = !lateTimes.some((x) => x >= c.minT && x <= c.maxT);
      assert.equal(out.includes(c), untouched, `chunk [${c.minT}, ${c.maxT}] passes as stored only when no sample falls in its span`);
    }
  }
});

test('gives up on chunks overlapping one another and on samples in a chunk that is not XOR', () => {
  assert.equal(mergeColumnsInto([chunkOf([10, 20, 30], 1), chunkOf([25, 40], 2)], columns([5], 9)), undefined);
  const hist: MergeableChunk = { minT: 100, maxT: 200, encoding: 2, data: new Uint8Array([0, 1]) };
  assert.equal(mergeColumnsInto([hist], columns([150], 9)), undefined);
  // Samples outside its span leave it as stored, never decoded.
  const out = mergeColumnsInto([hist], columns([50, 250], 9))!;
  assert.equal(out.length, 3);
  assert.equal(out[1], hist);
});

test('decodeColumnsInto reuses its buffer and keeps NaN payloads; mergeSorted into a buffer', () => {
  const stale = columns([1, 2, 3], 0);
  stale.v.set([0x00000002, 0x7ff00000], 2);
  const data = encodeColumns(stale.t, stale.v, 0, 3);
  const buf = new ColumnsBuffer();
  const a = decodeColumnsInto(data, buf);
  assert.equal(a, buf);
  assert.deepEqual([...a.t.subarray(0, a.n)], [1, 2, 3]);
  assert.deepEqual([...a.v.subarray(0, 2 * a.n)], [...stale.v]);
  const before = buf.t;
  decodeColumnsInto(data, buf);
  assert.equal(buf.t, before, 'no new arrays for a chunk that fits');
  const into = new ColumnsBuffer();
  const m = mergeSorted(columns([1, 4], 5), columns([0, 1, 2, 9], 6), 1, 3, into);
  assert.equal(m, into);
  assert.deepEqual([...m.t.subarray(0, m.n)], [1, 2, 4]);
  assert.deepEqual([...m.v.subarray(0, 2 * m.n)].filter((_, i) => i % 2 === 0), [5, 6, 5]);
});

test('a range of the columns merged (from, to); NaN payloads, negative and large times, and chunks cut at 120 samples', () => {
  // 300 late samples around a chunk of 100 (50 before it, 99 in its span, 151 after), one of them a stale marker.
  const base = -1_700_000_000_000;
  const chunk = chunkOf(Array.from({ length: 100 }, (_, i) => base + 1000 + 2 * i * 10), 1);
  const lateTimes = Array.from({ length: 300 }, (_, i) => (i < 50 ? base + i : i < 150 ? base + 1000 + (2 * (i - 50) + 1) * 10 : base + 5000 + i));
  const cols = columns([base - 10, ...lateTimes, base + 1_000_000], 7);
  cols.v.set([0x00000002, 0x7ff00000], 2 * 60);
  const out = mergeColumnsInto([chunk], cols, 1, cols.n - 1)!;
  assert.deepEqual(out.map((c) => decodeColumns(c.data).n), [50, 120, 79, 120, 31]);
  const got = samples(out);
  assert.deepEqual(got.map(([t]) => t), [...lateTimes, ...Array.from({ length: 100 }, (_, i) => base + 1000 + 2 * i * 10)].sort((a, b) => a - b));
  const stale = out.flatMap((c) => {
    const d = decodeColumns(c.data);
    return Array.from({ length: d.n }, (_, i) => [d.t[i]!, d.v[2 * i]!, d.v[2 * i + 1]!]);
  }).find(([t]) => t === lateTimes[59]);
  assert.deepEqual(stale?.slice(1), [0x00000002, 0x7ff00000]);
});

test('merged chunks go to the arena given (copies, for a TransientArena too), the same bytes as slices', () => {
  const chunk = chunkOf(Array.from({ length: 120 }, (_, i) => 1000 + 20 * i), 1);
  const late = columns(Array.from({ length: 119 }, (_, i) => 1010 + 20 * i), 2);
  const sliced = mergeColumnsInto([chunk], late)!;
  for (const arena of [new ByteArena(), new TransientArena()]) {
    const kept = mergeColumnsInto([chunk], late, 0, late.n, arena)!;
    assert.equal(kept.length, 2);
    assert.equal(kept[0]!.data.buffer, kept[1]!.data.buffer, 'one block for both chunks');
    // A later merge reuses the codec's buffers: what was answered must not change.
    mergeColumnsInto([chunkOf([5000, 5010], 3)], columns([5005], 4), 0, 1, arena);
    assert.deepEqual(kept.map((c) => [...c.data]), sliced.map((c) => [...c.data]));
    assert.deepEqual(samples(kept), samples(sliced));
  }
});
