/**
 * Overlapping chunks of every encoding made non-overlapping
 * (src/chunkenc/merge-chunks.ts), as reads over overlapping blocks, the
 * out-of-order head and vertical compaction need: histogram chunks that
 * overlap nothing pass as stored; overlapping ones are decoded, merged by
 * time (a time held twice keeps the older chunk's sample), and cut as
 * Prometheus cuts merged samples: a new chunk where the sample type
 * changes, after 120 samples, at a counter reset or a layout the chunk
 * cannot take. Every result is checked with the test's own decoder (the
 * codec's TypeScript oracle).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { withoutOverlaps, type MergeableChunk } from '../../src/chunkenc/merge-chunks.js';
import type { FloatHistogram, Histogram } from '../../src/chunkenc/histogram/types.js';
import {
  FLOAT_HISTOGRAM, HISTOGRAM, XOR, chunkSamples, comparable, floatValues, histogramChunk, histogramSamples, isStale, samplesOf, xorChunk,
  type AnySample, type TestChunk,
} from '../support/histogram-series.js';

const T0 = 1_700_000_000_000;
const STEP = 10_000;

type H = Histogram | FloatHistogram;

/** Samples i of `s` for i in `pick`. */
function pick(s: { t: number[]; h: H[] }, idx: readonly number[]): { t: number[]; h: H[] } {
  return { t: idx.map((i) => s.t[i]!), h: idx.map((i) => s.h[i]!) };
}

function range(from: number, to: number, by = 1): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i += by) out.push(i);
  return out;
}

/** Asserts the merge's contract on its output: by time, no overlap, at most 120 samples each, times as the chunk's samples say. */
function checkShape(chunks: readonly MergeableChunk[]): void {
  chunks.forEach((c, k) => {
    const s = chunkSamples(c.encoding ?? XOR, c.data);
    assert.ok(s.length > 0 && s.length <= 120, `chunk ${k} holds ${s.length} samples`);
    assert.equal(c.minT, s[0]!.t, `chunk ${k}: minT is its first sample`);
    assert.equal(c.maxT, s[s.length - 1]!.t, `chunk ${k}: maxT is its last sample`);
    if (k > 0) assert.ok(c.minT > chunks[k - 1]!.maxT, `chunk ${k} starts after chunk ${k - 1} ends`);
  });
}

const asTest = (c: MergeableChunk): TestChunk => ({ minT: c.minT, maxT: c.maxT, encoding: c.encoding ?? XOR, data: c.data });

describe('merging overlapping chunks of native histograms', () => {
  test('chunks overlapping nothing pass as stored, whatever their encoding', () => {
    const h = histogramSamples(30, T0 + 100 * STEP, STEP, 1);
    const f = histogramSamples(30, T0 + 200 * STEP, STEP, 2, { float: true });
    const chunks = [
      histogramChunk(FLOAT_HISTOGRAM, f.t, f.h),
      xorChunk(range(0, 50).map((i) => T0 + i * STEP), floatValues(50, 3)),
      histogramChunk(HISTOGRAM, h.t, h.h),
    ];
    const [a, b, c] = chunks;
    const out = withoutOverlaps(chunks);
    assert.deepEqual(out.map((x) => x.encoding), [XOR, HISTOGRAM, FLOAT_HISTOGRAM], 'sorted by time');
    assert.equal(out[0], b);
    assert.equal(out[1], c, 'the same object: not decoded, not copied');
    assert.equal(out[2], a);
  });

  test('overlapping integer histogram chunks: every sample once, in chunks of 120, the older chunk\'s sample on a tie', () => {
    const s = histogramSamples(300, T0, STEP, 4);
    // Two sources sharing a stretch: [0, 180) and [150, 300), the shared
    // samples of the second differing in their sum only.
    const older = pick(s, range(0, 180));
    const newer = pick(s, range(150, 300));
    newer.h = newer.h.map((h, k) => (k < 30 ? { ...h, sum: h.sum + 1 } : h));
    const chunks = [
      histogramChunk(HISTOGRAM, older.t.slice(0, 120), older.h.slice(0, 120)),
      histogramChunk(HISTOGRAM, older.t.slice(120), older.h.slice(120)),
      histogramChunk(HISTOGRAM, newer.t, newer.h),
    ];
    const want = samplesOf([histogramChunk(HISTOGRAM, s.t.slice(0, 150), s.h.slice(0, 150)), histogramChunk(HISTOGRAM, s.t.slice(150), s.h.slice(150))]);
    const out = withoutOverlaps(chunks);
    assert.equal(out[0], chunks[0], 'the first chunk overlaps nothing: as stored');
    checkShape(out);
    assert.ok(out.every((c) => c.encoding === HISTOGRAM));
    assert.deepEqual(samplesOf(out.map(asTest)).map(comparable), want.map(comparable));
    assert.deepEqual(out.map((c) => chunkSamples(HISTOGRAM, c.data).length), [120, 120, 60]);
  });

  test('interleaved samples of two sources make one series again; a counter reset inside starts a chunk with the reset header', () => {
    const s = histogramSamples(200, T0, STEP, 5, { resetAt: 100 });
    const even = pick(s, range(0, 200, 2));
    const odd = pick(s, range(1, 200, 2));
    const out = withoutOverlaps([histogramChunk(HISTOGRAM, even.t, even.h), histogramChunk(HISTOGRAM, odd.t, odd.h)]);
    checkShape(out);
    const got = samplesOf(out.map(asTest));
    assert.deepEqual(got.map(comparable), samplesOf([histogramChunk(HISTOGRAM, s.t, s.h.map((h) => ({ ...h, counterResetHint: 0 as const })))]).map(comparable));
    // The reset: a chunk starts at sample 100 with header CounterReset (0b10 in the top bits of byte 2).
    const at = out.findIndex((c) => c.minT === s.t[100]);
    assert.ok(at > 0, 'a chunk starts at the counter reset');
    assert.equal(out[at]!.data[2]! >> 6, 0b10);
    const first = got.find((x) => x.t === s.t[100])!;
    assert.equal(first.kind === 'histogram' && first.h.counterResetHint, 1, 'decoded as a counter reset');
    // Where no reset happened, the chunk after a cut at 120 says so (NotCounterReset, 0b01).
    for (const c of out.slice(1)) if (c.minT !== s.t[100]) assert.equal(c.data[2]! >> 6, 0b01);
  });

  test('floats, integer and float histograms overlapping: merged in time order, a new chunk at each change of type', () => {
    const floats = floatValues(100, 6);
    const ft = range(0, 100).map((i) => T0 + i * STEP);
    const xorIdx = [...range(0, 40), ...range(70, 100)];
    const h = histogramSamples(30, T0 + 40 * STEP, STEP, 7);
    const fh = histogramSamples(30, T0 + 100 * STEP, STEP, 8, { float: true });
    const late = histogramSamples(20, T0 + 120 * STEP, STEP, 9);
    const chunks = [
      xorChunk(xorIdx.map((i) => ft[i]!), Float64Array.from(xorIdx, (i) => floats[i]!)),
      histogramChunk(HISTOGRAM, h.t, h.h),
      histogramChunk(FLOAT_HISTOGRAM, fh.t, fh.h),
      histogramChunk(HISTOGRAM, late.t, late.h),
    ];
    const out = withoutOverlaps([...chunks]);
    checkShape(out);
    assert.deepEqual(out.map((c) => c.encoding), [XOR, HISTOGRAM, XOR, FLOAT_HISTOGRAM, HISTOGRAM]);
    // Expected: every sample by time; at 120..129 both float histograms and
    // integer histograms exist: the chunk that starts first (the float one) wins.
    const all = samplesOf(chunks);
    const byTime = new Map<number, AnySample>();
    for (const x of [...samplesOf([chunks[0]!]), ...samplesOf([chunks[1]!]), ...samplesOf([chunks[2]!]), ...samplesOf([chunks[3]!])]) {
      if (!byTime.has(x.t)) byTime.set(x.t, x);
    }
    const want = [...byTime.values()].sort((a, b) => a.t - b.t);
    assert.equal(want.length, all.length - 10);
    assert.deepEqual(samplesOf(out.map(asTest)).map(comparable), want.map(comparable));
  });

  test('a layout the chunk cannot take (another schema) starts a new chunk; each chunk holds one layout', () => {
    const a = histogramSamples(90, T0, STEP, 10, { schema: 3 });
    const b = histogramSamples(90, T0, STEP, 11, { schema: 1 });
    const aIdx = [...range(0, 40), ...range(80, 90)];
    const A = pick(a, aIdx);
    const B = pick(b, range(40, 80));
    const out = withoutOverlaps([histogramChunk(HISTOGRAM, A.t, A.h), histogramChunk(HISTOGRAM, B.t, B.h)]);
    checkShape(out);
    assert.ok(out.length >= 3, `${out.length} chunks`);
    for (const c of out) {
      const schemas = new Set(chunkSamples(HISTOGRAM, c.data).map((x) => (x.kind === 'float' ? NaN : x.h.schema)));
      assert.equal(schemas.size, 1, 'one schema per chunk');
    }
    const want = [...samplesOf([histogramChunk(HISTOGRAM, A.t.slice(0, 40), A.h.slice(0, 40))]), ...samplesOf([histogramChunk(HISTOGRAM, B.t, B.h)]), ...samplesOf([histogramChunk(HISTOGRAM, A.t.slice(40), A.h.slice(40))])];
    assert.deepEqual(samplesOf(out.map(asTest)).map(comparable), want.map(comparable));
  });

  test('a stale marker among merged float histograms survives bit for bit, and samples after it go on', () => {
    const s = histogramSamples(60, T0, STEP, 12, { float: true });
    const stale = histogramSamples(1, T0 + 30 * STEP, STEP, 13, { float: true, staleLast: true });
    // An older chunk ending in a stale marker at sample 30; a newer one overlapping it with samples 25..59 (25..30 lose the tie).
    const older = { t: [...s.t.slice(0, 30), stale.t[0]!], h: [...s.h.slice(0, 30), stale.h[0]!] };
    const newer = pick(s, range(25, 60));
    const out = withoutOverlaps([histogramChunk(FLOAT_HISTOGRAM, older.t, older.h), histogramChunk(FLOAT_HISTOGRAM, newer.t, newer.h)]);
    checkShape(out);
    const got = samplesOf(out.map(asTest));
    assert.deepEqual(got.map((x) => x.t), s.t);
    assert.deepEqual(got.map(isStale), s.t.map((_, i) => i === 30));
    assert.deepEqual(got.filter((x) => !isStale(x)).map(comparable), samplesOf([histogramChunk(FLOAT_HISTOGRAM, s.t, s.h)]).filter((x) => x.t !== s.t[30]).map(comparable));
  });
});
