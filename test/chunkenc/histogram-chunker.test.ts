// The chunker's rules one at a time, as Prometheus 2.42's head applies
// them to histogram samples (tsdb/head_append.go). The long random series
// against Prometheus' own chunkenc are in histogram-chunker-golden.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ChunkEncodeError, HEADER_GAUGE, HEADER_NOT_RESET, HEADER_RESET, HEADER_UNKNOWN, HistogramChunker,
  lastHistogramSample, wasmHistogramCodecs, type ClosedHistogramChunk, type HistogramAppendResult,
} from '../../src/chunkenc/index.js';
import type { Histogram } from '../../src/chunkenc/histogram/types.js';
import { rng } from '../support/series.js';
import { headSeries, ih, stale, toFloat } from './histogram-support.js';

const T0 = 1_700_000_000_000 - (1_700_000_000_000 % 7_200_000); // a chunk range boundary
const STEP = 15_000;
const spans = [{ offset: 0, length: 3 }];

/** Counter histogram number `i` of a steady series: every bucket grows. */
function counter(i: number, extra: Partial<Histogram> = {}): Histogram {
  return { ...ih({ count: 6 + 6 * i, sum: 10 * i, positiveSpans: spans, positive: [1 + i, 2 + 2 * i, 3 + 3 * i] }), ...extra };
}

function decode(c: { encoding: number; data: Uint8Array }) {
  const codecs = wasmHistogramCodecs();
  return (c.encoding === 2 ? codecs.histogram : codecs.floatHistogram).decode(c.data);
}

/** Appends `n` steady samples from index `from`, `step` ms apart from `start`; returns the chunks closed on the way. */
function steady(chunker: HistogramChunker, from: number, n: number, step = STEP, start = T0): ClosedHistogramChunk[] {
  const closed: ClosedHistogramChunk[] = [];
  for (let i = from; i < from + n; i++) {
    const r = chunker.appendHistogram(start + i * step, counter(i));
    assert.ok(r.appended);
    if (r.closed) closed.push(r.closed);
  }
  return closed;
}

function openHeader(chunker: HistogramChunker): number {
  return chunker.open!.bytes()[2]! >> 6;
}

describe('histogram chunker', () => {
  test('starts a chunk with an unknown header for a series\' first sample', () => {
    const chunker = new HistogramChunker();
    const r = chunker.appendHistogram(T0, counter(0));
    assert.deepEqual(r, { appended: true, created: true, recoded: false });
    assert.equal(chunker.open!.encoding, 2);
    assert.equal(chunker.open!.header, HEADER_UNKNOWN);
    assert.equal(chunker.open!.count, 1);
    assert.equal(chunker.open!.minT, T0);
  });

  test('cuts about every 120 samples of a steady series, headed "not a counter reset"', () => {
    const chunker = new HistogramChunker();
    const closed = steady(chunker, 0, 480);
    // 15 s scrapes fill a 2 h range with 480 samples: four chunks of 120, the last still open.
    assert.deepEqual(closed.map((c) => c.count), [120, 120, 120]);
    assert.deepEqual(closed.map((c) => c.header), [HEADER_UNKNOWN, HEADER_NOT_RESET, HEADER_NOT_RESET]);
    assert.equal(chunker.open!.count, 120);
    assert.equal(closed[1]!.minT, closed[0]!.maxT + STEP);
  });

  test('cuts at the chunk range boundary however few samples the chunk has', () => {
    const chunker = new HistogramChunker({ chunkRange: 600_000 });
    const closed = steady(chunker, 0, 50);
    assert.equal(closed[0]!.count, 40); // 600 s at 15 s
    assert.equal(chunker.open!.minT, T0 + 600_000);
  });

  test('cuts at 240 samples when samples come faster than predicted', () => {
    const chunker = new HistogramChunker();
    steady(chunker, 0, 31); // the end of the chunk is predicted at the 31st sample
    const closed = steady(chunker, 31, 300, 1, T0 + 30 * STEP - 30); // then one a millisecond
    assert.equal(closed[0]!.count, 240);
  });

  test('recodes the chunk when new buckets appear, keeping every sample', () => {
    const chunker = new HistogramChunker();
    steady(chunker, 0, 3);
    const wider = ih({ count: 40, sum: 30, positiveSpans: [{ offset: -1, length: 5 }], positive: [1, 4, 6, 9, 20] });
    const r = chunker.appendHistogram(T0 + 3 * STEP, wider);
    assert.deepEqual(r, { appended: true, created: false, recoded: true });
    const back = decode({ encoding: 2, data: chunker.open!.bytes() }).histograms;
    assert.equal(back.length, 4);
    // Old samples read back on the new layout, the new buckets empty.
    assert.deepEqual(back[0]!.positiveSpans, wider.positiveSpans);
    const absolute = (ds: readonly number[]): number[] => ds.map(((acc) => (d: number) => (acc += d))(0));
    assert.deepEqual(absolute(back[1]!.positiveBuckets), [0, 2, 4, 6, 0]);
    assert.deepEqual(back[3]!.positiveBuckets, wider.positiveBuckets);
  });

  test('starts a chunk headed "counter reset" when a bucket disappears, a count drops or a bucket drops', () => {
    const cases: Array<[string, Histogram]> = [
      ['bucket gone', ih({ count: 60, sum: 50, positiveSpans: [{ offset: 0, length: 2 }], positive: [10, 20] })],
      ['count dropped', counter(0)],
      ['zero count dropped', { ...counter(5), zeroCount: 0, count: counter(5).count }],
      ['one bucket dropped', ih({ count: 61, sum: 60, positiveSpans: spans, positive: [20, 1, 40] })],
    ];
    for (const [why, h] of cases) {
      const chunker = new HistogramChunker();
      steady(chunker, 0, 4);
      if (why === 'zero count dropped') chunker.appendHistogram(T0 + 4 * STEP, { ...counter(4), zeroCount: 5, count: counter(4).count + 5 });
      const r = chunker.appendHistogram(T0 + 10 * STEP, h);
      assert.ok(r.created && r.closed, why);
      assert.equal(openHeader(chunker), HEADER_RESET, why);
    }
  });

  test('takes the sender\'s reset hint even when the counts grow', () => {
    const chunker = new HistogramChunker();
    steady(chunker, 0, 4);
    const r = chunker.appendHistogram(T0 + 4 * STEP, counter(4, { counterResetHint: 1 }));
    assert.ok(r.closed);
    assert.equal(chunker.open!.header, HEADER_RESET);
    assert.equal(decode({ encoding: 2, data: chunker.open!.bytes() }).histograms[0]!.counterResetHint, 1);
  });

  test('starts a chunk with an unknown header on a new schema or zero threshold', () => {
    for (const change of [{ schema: 1 }, { zeroThreshold: 0.5 }]) {
      const chunker = new HistogramChunker();
      steady(chunker, 0, 4);
      const r = chunker.appendHistogram(T0 + 4 * STEP, counter(4, change));
      assert.ok(r.closed);
      assert.equal(openHeader(chunker), HEADER_UNKNOWN);
    }
  });

  test('keeps gauge histograms in one gauge chunk as buckets come and go', () => {
    const chunker = new HistogramChunker();
    const g = (i: number, positiveSpans: typeof spans, positive: number[]): Histogram =>
      ih({ count: positive.reduce((a, b) => a + b, 0), sum: i, positiveSpans, positive, hint: 3 });
    const inputs = [
      g(0, spans, [5, 3, 1]),
      g(1, [{ offset: 1, length: 3 }], [2, 2, 7]), // bucket 0 gone, bucket 3 new: both ways
      g(2, [{ offset: 0, length: 1 }], [1]),
    ];
    const before = structuredClone(inputs);
    const results = inputs.map((h, i) => chunker.appendHistogram(T0 + i * STEP, h));
    assert.deepEqual(results.map((r) => [r.created, r.recoded]), [[true, false], [false, true], [false, false]]);
    assert.equal(chunker.open!.header, HEADER_GAUGE);
    assert.deepEqual(inputs, before, 'the chunker does not change what it is given');
    const back = decode({ encoding: 2, data: chunker.open!.bytes() }).histograms;
    assert.deepEqual(back.map((h) => h.counterResetHint), [3, 3, 3]);
    assert.deepEqual(back[2]!.positiveSpans, [{ offset: 0, length: 4 }]);
    // A counter histogram after gauges starts a new chunk: Appendable refuses a gauge chunk.
    const r = chunker.appendHistogram(T0 + 3 * STEP, counter(3));
    assert.ok(r.closed);
    assert.equal(chunker.open!.header, HEADER_UNKNOWN);
  });

  test('appends stale markers to the chunk, and starts a new chunk after them', () => {
    const chunker = new HistogramChunker();
    steady(chunker, 0, 3);
    assert.deepEqual(chunker.appendHistogram(T0 + 3 * STEP, stale()), { appended: true, created: false, recoded: false });
    assert.equal(chunker.appendHistogram(T0 + 4 * STEP, stale()).created, false);
    const r = chunker.appendHistogram(T0 + 5 * STEP, counter(5));
    assert.equal(r.closed!.count, 5);
    assert.equal(chunker.open!.header, HEADER_UNKNOWN);
  });

  test('closes the chunk on a switch between integer and float histograms', () => {
    const chunker = new HistogramChunker();
    steady(chunker, 0, 3);
    const r = chunker.appendFloatHistogram(T0 + 3 * STEP, toFloat(counter(3)));
    assert.equal(r.closed!.encoding, 2);
    assert.equal(chunker.open!.encoding, 3);
    assert.equal(chunker.open!.header, HEADER_UNKNOWN);
    const back = chunker.appendHistogram(T0 + 4 * STEP, counter(4));
    assert.equal(back.closed!.encoding, 3);
    assert.equal(chunker.open!.encoding, 2);
  });

  test('refuses samples at or before the newest one, changing nothing', () => {
    const chunker = new HistogramChunker();
    steady(chunker, 0, 3);
    const bytes = chunker.open!.bytes().slice();
    const none: HistogramAppendResult = { appended: false, created: false, recoded: false };
    assert.deepEqual(chunker.appendHistogram(T0 + 2 * STEP, counter(2)), none);
    assert.deepEqual(chunker.appendHistogram(T0, counter(9)), none);
    assert.deepEqual([...chunker.open!.bytes()], [...bytes]);
    // Also after the chunk was cut: the closed chunk's samples stay the newest.
    chunker.cut();
    assert.deepEqual(chunker.appendHistogram(T0 + 2 * STEP, counter(2)), none);
  });

  test('throws on a histogram whose buckets do not match its spans, changing nothing', () => {
    const chunker = new HistogramChunker();
    steady(chunker, 0, 3);
    const bytes = chunker.open!.bytes().slice();
    assert.throws(() => chunker.appendHistogram(T0 + 3 * STEP, { ...counter(3), positiveBuckets: [1, 2] }), ChunkEncodeError);
    assert.throws(() => chunker.appendHistogram(T0 + 3 * STEP + 0.5, counter(3)), RangeError);
    assert.deepEqual([...chunker.open!.bytes()], [...bytes]);
    assert.equal(chunker.appendHistogram(T0 + 3 * STEP, counter(3)).appended, true);
  });

  test('cut() closes the chunk and the next is still headed against it; forget() makes it unknown', () => {
    const chunker = new HistogramChunker();
    steady(chunker, 0, 3);
    const closed = chunker.cut()!;
    assert.equal(closed.count, 3);
    assert.equal(chunker.open, undefined);
    assert.equal(chunker.cut(), undefined);
    chunker.appendHistogram(T0 + 3 * STEP, counter(3));
    assert.equal(chunker.open!.header, HEADER_NOT_RESET);
    chunker.cut();
    chunker.forget();
    chunker.appendHistogram(T0 + 4 * STEP, counter(4));
    assert.equal(chunker.open!.header, HEADER_UNKNOWN);
  });

  test('resume() continues a chunk byte for byte as if it had never stopped', () => {
    for (const seed of [21, 22]) {
      const steps = headSeries(rng(seed), 300, 0.2);
      const straight = new HistogramChunker();
      let resumed = new HistogramChunker();
      const a: ClosedHistogramChunk[] = [];
      const b: ClosedHistogramChunk[] = [];
      steps.forEach((s, i) => {
        const ra = s.float ? straight.appendFloatHistogram(s.t, s.h) : straight.appendHistogram(s.t, s.h);
        const rb = s.float ? resumed.appendFloatHistogram(s.t, s.h) : resumed.appendHistogram(s.t, s.h);
        if (ra.closed) a.push(ra.closed);
        if (rb.closed) b.push(rb.closed);
        // Every 7th step the second chunker restarts from the chunks' bytes alone.
        const open = resumed.open;
        if (i % 7 === 3 && open !== undefined) {
          const prev = b[b.length - 1];
          resumed = new HistogramChunker();
          if (prev !== undefined) resumed.resumeAfter(prev.encoding, prev.data);
          assert.equal(resumed.resume(open.encoding, open.bytes().slice()), true, `seed ${seed} step ${i}`);
        }
      });
      assert.ok(a.length > 5);
      assert.deepEqual(b.map((c) => [...c.data]), a.map((c) => [...c.data]), `seed ${seed}`);
    }
  });

  test('resumeAfter() heads the next chunk against the given one and refuses older samples', () => {
    const first = new HistogramChunker();
    steady(first, 0, 5);
    const closed = first.cut()!;
    const chunker = new HistogramChunker();
    chunker.resumeAfter(2, closed.data);
    assert.equal(chunker.appendHistogram(closed.maxT, counter(4)).appended, false);
    chunker.appendHistogram(closed.maxT + STEP, counter(5));
    assert.equal(chunker.open!.header, HEADER_NOT_RESET);
    const again = new HistogramChunker();
    again.resumeAfter(2, closed.data);
    again.appendHistogram(closed.maxT + STEP, counter(0));
    assert.equal(again.open!.header, HEADER_RESET);
  });

  test('lastHistogramSample() reads a chunk\'s newest sample', () => {
    const chunker = new HistogramChunker();
    steady(chunker, 0, 4);
    const last = lastHistogramSample(2, chunker.open!.bytes());
    assert.equal(last!.t, T0 + 3 * STEP);
    assert.deepEqual(last!.h.positiveBuckets, counter(3).positiveBuckets);
    assert.equal(lastHistogramSample(3, Uint8Array.of(0, 0, 0)), undefined);
  });
});
