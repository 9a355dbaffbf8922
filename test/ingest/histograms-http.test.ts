// Native histograms over HTTP remote write, black box: a `strata serve`
// process (built code: `npm run build:ts` first) is sent snappy
// prometheus.WriteRequest bodies with integer and float histograms; invalid
// ones are refused (400 naming the series and the reason) while the rest is
// written; conflicts are 409; the series are visible to the label APIs;
// after kill -9 and a restart every histogram is there, exactly.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { compressSync } from 'snappy';
import { Db } from '../../src/db/db.js';
import { Histogram } from '../../src/gen/thanos/store/prompb/types.js';
import { call, type Answer } from '../http/support/http-client.js';
import { assertProblem } from '../http/support/problem.js';
import { removeTempDirs, serve, stopAll } from '../http/prometheus/support/serve.js';
import { histogramsOf, meaning, type Meaning } from '../db/support/histograms.js';
import { prometheusRequest, series } from './support.js';
import type { TimeSeries } from '../../src/gen/thanos/store/prompb/types.js';

after(async () => {
  await stopAll();
  removeTempDirs();
});

const T0 = 1_700_000_000_000;

function intH(i: number, extra: Partial<Histogram> = {}): Histogram {
  return Histogram.fromPartial({
    count: { $case: 'countInt', value: BigInt(10 + 3 * i) }, sum: 2.5 * i, schema: 1, zeroThreshold: 1e-9,
    zeroCount: { $case: 'zeroCountInt', value: 1n },
    positiveSpans: [{ offset: 0, length: 2 }], positiveDeltas: [BigInt(4 + i), BigInt(i)],
    negativeSpans: [{ offset: -3, length: 1 }], negativeDeltas: [1n],
    timestamp: BigInt(T0 + i * 15_000), ...extra,
  });
}

function floatH(i: number): Histogram {
  return Histogram.fromPartial({
    count: { $case: 'countFloat', value: 4.5 + i }, sum: -i - 0.5, schema: -1, zeroThreshold: 0,
    zeroCount: { $case: 'zeroCountFloat', value: 0.5 }, positiveSpans: [{ offset: 2, length: 1 }], positiveCounts: [4 + i],
    resetHint: 3, timestamp: BigInt(T0 + i * 15_000),
  });
}

/** What the store must hold for a histogram sent as `h`. */
function expected(h: Histogram): Meaning {
  const float = h.count?.$case === 'countFloat';
  const n = (x: { value: bigint | number } | undefined): number => Number(x?.value ?? 0);
  return meaning(Number(h.timestamp), {
    counterResetHint: 0, schema: h.schema, zeroThreshold: h.zeroThreshold, zeroCount: n(h.zeroCount), count: n(h.count), sum: h.sum,
    positiveSpans: h.positiveSpans, negativeSpans: h.negativeSpans,
    positiveBuckets: float ? h.positiveCounts : h.positiveDeltas.map(Number), negativeBuckets: float ? h.negativeCounts : h.negativeDeltas.map(Number),
  }, float);
}

function post(base: string, timeseries: TimeSeries[], path = '/api/v1/write', tenant?: string): Promise<Answer> {
  return call(base, 'POST', path, {
    body: compressSync(Buffer.from(prometheusRequest(timeseries))),
    headers: {
      'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0',
      ...(tenant === undefined ? {} : { 'thanos-tenant': tenant }),
    },
  });
}

async function seriesNames(base: string): Promise<string[]> {
  const a = await call(base, 'GET', `/api/v1/series?match[]=${encodeURIComponent('{__name__=~".+"}')}`);
  assert.equal(a.status, 200, a.text);
  return (a.json as { data: Array<Record<string, string>> }).data.map((s) => s.__name__!).sort();
}

test('remote write 1.0 over HTTP: histograms written, refused one by one, visible, and exactly there after kill -9', { timeout: 120_000 }, async () => {
  let strata = await serve();
  const ints = [0, 1, 2, 3].map((i) => intH(i));
  const floats = [0, 1].map(floatH);

  // One body: valid histograms, one invalid among valid ones, and floats.
  const first = await post(strata.base, [
    series(['__name__', 'rpc_seconds', 'job', 'api'], [], { histograms: ints.slice(0, 3) }),
    series(['__name__', 'queue_depth'], [], { histograms: floats }),
    series(['__name__', 'bad_h'], [], { histograms: [intH(0, { positiveDeltas: [4n, -5n] }), intH(1)] }),
    series(['__name__', 'up'], [[BigInt(T0), 1]]),
  ]);
  assertProblem(first, 400);
  assert.match((first.json as { detail: string }).detail,
    /1 invalid native histograms \(first: series 2 \{__name__="bad_h"\}: histogram 0 at 1700000000000: positive side: bucket number 2 has observation count of -1: histogram has a bucket whose observation count is negative\)/);

  // The next sample over /api/v1/receive; then a conflicting one (409, as a float conflict).
  const second = await post(strata.base, [series(['__name__', 'rpc_seconds', 'job', 'api'], [], { histograms: [ints[3]!] })], '/api/v1/receive');
  assert.equal(second.status, 204, second.text);
  const conflict = await post(strata.base, [series(['__name__', 'rpc_seconds', 'job', 'api'], [], { histograms: [intH(3, { sum: 99 })] })]);
  assertProblem(conflict, 409);
  assert.match((conflict.json as { detail: string }).detail, /1 histogram sample rejected: duplicate sample for timestamp \(1, first \{__name__="rpc_seconds", job="api", tenant_id="default-tenant"\} at 1700000045000\)/);
  const older = await post(strata.base, [series(['__name__', 'rpc_seconds', 'job', 'api'], [], { histograms: [intH(1)] })]);
  assertProblem(older, 409);
  assert.match((older.json as { detail: string }).detail, /out of order sample/);

  assert.deepEqual(await seriesNames(strata.base), ['bad_h', 'queue_depth', 'rpc_seconds', 'up'], 'histogram-only series are series');

  // kill -9: what was acknowledged is in the WAL.
  strata.child.kill('SIGKILL');
  await new Promise((done) => strata.child.once('exit', done));
  strata = await serve({ dataDir: strata.dataDir });
  assert.deepEqual(await seriesNames(strata.base), ['bad_h', 'queue_depth', 'rpc_seconds', 'up']);
  // The same sample again is a duplicate, taken (the newest histogram came back with the replay).
  const again = await post(strata.base, [series(['__name__', 'rpc_seconds', 'job', 'api'], [], { histograms: [ints[3]!] })]);
  assert.equal(again.status, 204, again.text);
  assert.equal(await strata.stop(), 0);

  // Read the data directory as the engine (the server is gone): every histogram, exactly.
  const db = await Db.open({ dataDir: strata.dataDir });
  try {
    assert.deepEqual(histogramsOf(db, 'rpc_seconds'), ints.map(expected));
    assert.deepEqual(histogramsOf(db, 'queue_depth'), floats.map(expected));
    assert.deepEqual(histogramsOf(db, 'bad_h'), [expected(intH(1))]);
  } finally {
    await db.close();
  }
});
