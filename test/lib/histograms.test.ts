/**
 * Native histograms through the library: append takes integer and float
 * histograms (remote write's path: validation, WAL, head), select decodes
 * their chunks back. Imports the package entry as a user imports 'strata-tsdb'.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  InvalidArgumentError, SamplesRejectedError, Strata,
  type FloatHistogram, type Histogram, type HistogramSample, type SeriesChunks, type SeriesSamples,
} from '../../src/index.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function open(): Promise<Strata> {
  const dir = mkdtempSync(join(tmpdir(), 'strata-lib-hist-'));
  dirs.push(dir);
  return Strata.open({ dataDir: join(dir, 'data'), workers: 1 });
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Prometheus' stale marker, 0x7ff0000000000002, made from its bits. */
const STALE_NAN = new Float64Array(BigUint64Array.of(0x7ff0000000000002n).buffer)[0]!;
const bitsOf = (v: number): bigint => new BigUint64Array(Float64Array.of(v).buffer)[0]!;

/** `count` observations: 1 in the zero bucket, the rest in buckets 1 and 2 (deltas). */
function histogram(count: number, counterResetHint: Histogram['counterResetHint'] = 2): Histogram {
  return {
    counterResetHint, schema: 0, zeroThreshold: 1e-128, zeroCount: 1, count, sum: count * 1.5,
    positiveSpans: [{ offset: 1, length: 2 }], positiveBuckets: [count - 2, 3 - count],
    negativeSpans: [{ offset: -2, length: 1 }], negativeBuckets: [0],
  };
}

const floatHistogram: FloatHistogram = {
  counterResetHint: 3, schema: 1, zeroThreshold: 0.001, zeroCount: 0.5, count: 4.25, sum: -2.75,
  positiveSpans: [{ offset: -1, length: 2 }, { offset: 2, length: 1 }], positiveBuckets: [1.5, 0.5, 0.75],
  negativeSpans: [{ offset: 0, length: 1 }], negativeBuckets: [1],
};

/** A stale marker as Prometheus' iterator returns it: every field zero but the sum. */
const staleMarker: Histogram = {
  counterResetHint: 0, schema: 0, zeroThreshold: 0, zeroCount: 0, count: 0, sum: STALE_NAN,
  positiveSpans: [], positiveBuckets: [], negativeSpans: [], negativeBuckets: [],
};

describe('native histograms', () => {
  let store: Strata;
  before(async () => {
    store = await open();
  });
  after(() => store.close());

  test('appends integer and float histograms and selects them back exactly', async () => {
    const ints: HistogramSample[] = [
      { timestamp: 1000, float: false, histogram: histogram(3, 0) },
      { timestamp: 2000, float: false, histogram: histogram(5) },
      { timestamp: 3000, float: false, histogram: histogram(9) },
    ];
    const floats: HistogramSample[] = [{ timestamp: 1500, float: true, histogram: floatHistogram }];
    const result = await store.append([
      { labels: { __name__: 'rpc_seconds', job: 'api' }, histograms: ints },
      { labels: { __name__: 'queue_depth', job: 'api' }, histograms: floats },
    ]);
    assert.deepEqual(result, { samples: 0, histograms: 4 });
    const got: SeriesSamples[] = await collect(store.select('{job="api"}'));
    assert.deepEqual(got.map((s) => s.labels.__name__), ['queue_depth', 'rpc_seconds']);
    assert.deepEqual(got[0]!.histograms, floats);
    assert.deepEqual(got[1]!.histograms, ints);
    assert.equal(got[1]!.timestamps.length, 0, 'no float samples');
    assert.equal(got[1]!.values.length, 0);
  });

  test('selects histograms within the range only', async () => {
    const [s] = await collect(store.select('rpc_seconds', { minTime: 1500, maxTime: 2500 }));
    assert.deepEqual(s!.histograms!.map((h) => [h.timestamp, h.histogram.count]), [[2000, 5]]);
    assert.deepEqual(await collect(store.select('rpc_seconds', { minTime: 3001 })), []);
  });

  test('selects histogram chunks raw on request, with their encoding', async () => {
    const got: SeriesChunks[] = await collect(store.select('{job="api"}', { chunks: true }));
    assert.deepEqual(got.map((s) => s.chunks.map((c) => [c.encoding, c.minTime, c.maxTime])), [
      [['floathistogram', 1500, 1500]],
      [['histogram', 1000, 3000]],
    ]);
  });

  test('keeps a stale-marker histogram\'s sum bits through append and select', async () => {
    await store.append({
      labels: { __name__: 'stale_seconds' },
      histograms: [{ timestamp: 1000, float: false, histogram: histogram(3, 0) }, { timestamp: 2000, float: false, histogram: staleMarker }],
    });
    const [s] = await collect(store.select('stale_seconds'));
    const [first, stale] = s!.histograms!;
    assert.deepEqual(first, { timestamp: 1000, float: false, histogram: histogram(3, 0) });
    assert.equal(stale!.timestamp, 2000);
    assert.equal(bitsOf(stale!.histogram.sum), 0x7ff0000000000002n);
    assert.deepEqual({ ...stale!.histogram, sum: 0 }, { ...staleMarker, sum: 0 });
  });

  test('a series switches between float samples and histograms', async () => {
    const labels = { __name__: 'switching' };
    await store.append({ labels, timestamps: [1000, 2000], values: [1, 2], histograms: [{ timestamp: 3000, float: false, histogram: histogram(3, 0) }] });
    await store.append({ labels, timestamps: [4000], values: [4] });
    await store.append({ labels, histograms: [{ timestamp: 5000, float: true, histogram: floatHistogram }] });
    const [s] = await collect(store.select('switching'));
    assert.deepEqual([...s!.timestamps], [1000, 2000, 4000]);
    assert.deepEqual([...s!.values], [1, 2, 4]);
    assert.deepEqual(s!.histograms, [
      { timestamp: 3000, float: false, histogram: histogram(3, 0) },
      { timestamp: 5000, float: true, histogram: floatHistogram },
    ]);
    const [c] = await collect(store.select('switching', { chunks: true }));
    assert.deepEqual(c!.chunks.map((x) => x.encoding), ['XOR', 'histogram', 'XOR', 'floathistogram']);
  });

  test('refuses a histogram Prometheus refuses with InvalidArgumentError naming its series and why, storing the rest', async () => {
    // Deltas 2, -3: the second bucket counts -1.
    const bad: Histogram = { ...histogram(3, 0), positiveBuckets: [2, -3] };
    const err = await store.append([
      { labels: { __name__: 'bad_seconds', job: 'x' }, histograms: [{ timestamp: 1000, float: false, histogram: bad }, { timestamp: 2000, float: false, histogram: histogram(3, 0) }] },
      { labels: { __name__: 'good_seconds' }, timestamps: [1000], values: [1], histograms: [{ timestamp: 2000, float: true, histogram: floatHistogram }] },
    ]).then(() => assert.fail('appended'), (e: unknown) => e);
    assert.ok(err instanceof InvalidArgumentError, String(err));
    assert.match(err.message, /series 0 \{__name__="bad_seconds".*histogram 0 at 1000: .*-1/);
    assert.equal(err.written, 3);
    const got = await collect(store.select('{__name__=~"bad_seconds|good_seconds"}'));
    assert.deepEqual(got.map((s) => [s.labels.__name__, s.histograms?.map((h) => h.timestamp)]), [['bad_seconds', [2000]], ['good_seconds', [2000]]]);
  });

  test('refuses histograms of the wrong shape with InvalidArgumentError, storing nothing', async () => {
    const labels = { __name__: 'shapeless' };
    const cases: Array<[unknown, RegExp]> = [
      [[{ timestamp: 1000, histogram: histogram(3) }], /series 0: histogram 0: float must be true .* or false/],
      [[{ timestamp: 1.5, float: false, histogram: histogram(3) }], /histogram 0: timestamp \(1\.5\) is not a whole number/],
      [[{ timestamp: 1000, float: false, histogram: { ...histogram(3), count: 2.5 } }], /histogram 0 at 1000: count \(2\.5\) must be a whole number/],
      [[{ timestamp: 1000, float: false, histogram: { ...histogram(3), counterResetHint: 7 } }], /counterResetHint must be 0, 1, 2 or 3/],
      [[{ timestamp: 1000, float: true, histogram: { ...floatHistogram, positiveSpans: [{ offset: 0.5, length: 1 }] } }], /positiveSpans\[0\]\.offset/],
      [[{ timestamp: 1000, float: true, histogram: { ...floatHistogram, negativeBuckets: ['1'] } }], /negativeBuckets\[0\] must be a number/],
      ['not an array', /histograms must be an array/],
    ];
    for (const [histograms, message] of cases) {
      await assert.rejects(store.append({ labels, histograms } as never), (e: unknown) => e instanceof InvalidArgumentError && message.test(e.message));
    }
    assert.deepEqual(await collect(store.select('shapeless')), []);
  });

  test('refuses an out-of-order histogram with SamplesRejectedError', async () => {
    const err = await store.append({ labels: { __name__: 'rpc_seconds', job: 'api' }, histograms: [{ timestamp: 500, float: false, histogram: histogram(3) }] })
      .then(() => assert.fail('appended'), (e: unknown) => e);
    assert.ok(err instanceof SamplesRejectedError, String(err));
    assert.equal(err.rejected.outOfOrder, 1);
  });
});
