// Exemplars and metric metadata from remote write, black box: a `strata
// serve` process written to over remote write 1.0 (exemplars as Prometheus
// sends them, in TimeSeries of their own; metadata in WriteRequest.metadata)
// and read back through Prometheus' /api/v1/query_exemplars and
// /api/v1/metadata and Thanos' thanos.Exemplars and thanos.Metadata, across
// restarts. Remote write 2.0's exemplars and metadata: remote-write-v2.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { compressSync } from 'snappy';
import { WriteRequest } from '../../../src/gen/prometheus/remote.js';
import { WriteRequest as ThanosWriteRequest } from '../../../src/gen/thanos/store/rpc.js';
import { MetricMetadata_MetricType as MT } from '../../../src/gen/prometheus/types.js';
import { StoreClient } from '../../store/support/client.js';
import { exemplarsCall, metadataCall } from '../../store/support/exemplars-client.js';
import { call } from '../support/http-client.js';
import { postWrite } from './support/prom-wire.js';
import { removeTempDirs, serve, stopAll, type Served } from './support/serve.js';

const T0 = 1_700_000_000_000;
const INVALID_ARGUMENT = 3;

interface Ex {
  labels: Record<string, string>;
  value: number;
  t: number;
}

/** A prometheus.WriteRequest as Prometheus 2.42 sends one: samples and exemplars of a series in separate TimeSeries. */
function writeBody(input: {
  series?: Array<{ labels: Record<string, string>; samples?: Array<[number, number]>; exemplars?: Ex[] }>;
  metadata?: Array<{ type: MT; family: string; help?: string; unit?: string }>;
}): Buffer {
  const pairs = (o: Record<string, string>) => Object.entries(o).map(([name, value]) => ({ name, value }));
  const timeseries = (input.series ?? []).flatMap((s) => [
    ...(s.samples === undefined ? [] : [{ labels: pairs(s.labels), samples: s.samples.map(([t, v]) => ({ timestamp: BigInt(t), value: v })) }]),
    ...(s.exemplars === undefined ? [] : [{
      labels: pairs(s.labels),
      exemplars: s.exemplars.map((e) => ({ labels: pairs(e.labels), value: e.value, timestamp: BigInt(e.t) })),
    }]),
  ]);
  const metadata = (input.metadata ?? []).map((m) => ({ type: m.type, metricFamilyName: m.family, help: m.help ?? '', unit: m.unit ?? '' }));
  return compressSync(Buffer.from(WriteRequest.encode(WriteRequest.fromPartial({ timeseries, metadata })).finish()));
}

async function write(base: string, input: Parameters<typeof writeBody>[0], tenant?: string): Promise<void> {
  const a = await postWrite(base, writeBody(input), tenant === undefined ? {} : { tenant });
  assert.equal(a.status, 204, a.text);
}

async function getJson(base: string, path: string, tenant?: string): Promise<{ status: number; body: any }> {
  const a = await call(base, 'GET', path, { headers: tenant === undefined ? {} : { 'thanos-tenant': tenant } });
  return { status: a.status, body: a.json };
}

function qe(params: Record<string, string>): string {
  return `/api/v1/query_exemplars?${new URLSearchParams(params)}`;
}

const BUCKET = { __name__: 'rpc_seconds_bucket', job: 'api', le: '0.5' };

let strata: Served;
let grpcAddress: string;

before(async () => {
  strata = await serve({ args: ['--label', 'region="eu-west"'] });
  grpcAddress = (await strata.started()).grpcAddress.replace(/^0\.0\.0\.0:/, '127.0.0.1:');
  await write(strata.base, {
    series: [
      { labels: BUCKET, samples: [[T0, 1], [T0 + 15_000, 2]] },
      { labels: BUCKET, exemplars: [{ labels: { trace_id: 'aaa' }, value: 0.31, t: T0 }, { labels: { trace_id: 'bbb', span_id: 's' }, value: 0.42, t: T0 + 15_000 }] },
      { labels: { __name__: 'up', job: 'api' }, samples: [[T0, 1]], exemplars: [{ labels: {}, value: 1e-7, t: T0 + 1 }] },
    ],
    metadata: [
      { type: MT.HISTOGRAM, family: 'rpc_seconds', help: 'RPC latency.', unit: 'seconds' },
      { type: MT.GAUGE, family: 'up', help: 'Target up.' },
    ],
  });
  await write(strata.base, {
    series: [{ labels: BUCKET, samples: [[T0, 7]], exemplars: [{ labels: { trace_id: 'other-tenant' }, value: 9, t: T0 }] }],
    metadata: [{ type: MT.COUNTER, family: 'rpc_seconds', help: 'Team A\'s idea.' }],
  }, 'team-a');
});

after(async () => {
  await stopAll();
  removeTempDirs();
});

describe('GET/POST /api/v1/query_exemplars', () => {
  test('answers in Prometheus\' shape: series sorted by labels, exemplars oldest first, value a string, timestamp in seconds', async () => {
    const { status, body } = await getJson(strata.base, qe({ query: '{job="api"}', start: String(T0 / 1000 - 60), end: String(T0 / 1000 + 60) }));
    assert.equal(status, 200);
    assert.deepEqual(body, {
      status: 'success',
      data: [
        {
          seriesLabels: { __name__: 'rpc_seconds_bucket', job: 'api', le: '0.5' },
          exemplars: [
            { labels: { trace_id: 'aaa' }, value: '0.31', timestamp: T0 / 1000 },
            { labels: { span_id: 's', trace_id: 'bbb' }, value: '0.42', timestamp: T0 / 1000 + 15 },
          ],
        },
        { seriesLabels: { __name__: 'up', job: 'api' }, exemplars: [{ labels: {}, value: '1e-07', timestamp: 1700000000.001 }] },
      ],
    });
  });

  test('start and end bound the exemplars (inclusive); without them, all time', async () => {
    const { body } = await getJson(strata.base, qe({ query: 'rpc_seconds_bucket', start: String(T0 / 1000 + 15), end: String(T0 / 1000 + 15) }));
    assert.deepEqual(body.data[0].exemplars.map((e: { labels: { trace_id: string } }) => e.labels.trace_id), ['bbb']);
    const all = await getJson(strata.base, qe({ query: 'rpc_seconds_bucket' }));
    assert.equal(all.body.data[0].exemplars.length, 2);
    const none = await getJson(strata.base, qe({ query: 'rpc_seconds_bucket', start: '1', end: '2' }));
    assert.deepEqual(none.body, { status: 'success', data: [] });
  });

  test('POST with a form body answers the same', async () => {
    const form = new URLSearchParams({ query: 'rpc_seconds_bucket{le="0.5"}', start: String(T0 / 1000), end: String(T0 / 1000) });
    const a = await call(strata.base, 'POST', '/api/v1/query_exemplars', { body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(a.status, 200, a.text);
    assert.deepEqual(a.json.data[0].exemplars, [{ labels: { trace_id: 'aaa' }, value: '0.31', timestamp: T0 / 1000 }]);
  });

  test('scoped to the THANOS-TENANT tenant, answered without the tenant label', async () => {
    const { body } = await getJson(strata.base, qe({ query: 'rpc_seconds_bucket' }), 'team-a');
    assert.deepEqual(body.data, [{ seriesLabels: BUCKET, exemplars: [{ labels: { trace_id: 'other-tenant' }, value: '9', timestamp: T0 / 1000 }] }]);
    const matched = await getJson(strata.base, qe({ query: 'rpc_seconds_bucket{tenant_id="team-a"}' }));
    assert.deepEqual(matched.body.data, [], 'the tenant label cannot reach into another tenant');
  });

  test('bad parameters are bad_data (400): no query, a bad regex, an expression, end before start', async () => {
    const cases: Array<Record<string, string>> = [{}, { query: 'x{a=~"("}' }, { query: 'rate(rpc_seconds_bucket[5m])' }, { query: 'up', start: '20', end: '10' }];
    for (const params of cases) {
      const { status, body } = await getJson(strata.base, qe(params));
      assert.equal(status, 400, JSON.stringify(params));
      assert.equal(body.status, 'error');
      assert.equal(body.errorType, 'bad_data');
    }
  });
});

describe('GET /api/v1/metadata', () => {
  test('the metadata remote write told, one entry per family (the latest), families sorted, in Prometheus\' shape', async () => {
    const { status, body } = await getJson(strata.base, '/api/v1/metadata');
    assert.equal(status, 200);
    assert.deepEqual(body, {
      status: 'success',
      data: {
        rpc_seconds: [{ type: 'histogram', help: 'RPC latency.', unit: 'seconds' }],
        up: [{ type: 'gauge', help: 'Target up.', unit: '' }],
      },
    });
  });

  test('metric picks one family; limit caps the families (0: none, negative: all, as Prometheus); limit_per_metric is taken', async () => {
    assert.deepEqual((await getJson(strata.base, '/api/v1/metadata?metric=up')).body.data, { up: [{ type: 'gauge', help: 'Target up.', unit: '' }] });
    assert.deepEqual((await getJson(strata.base, '/api/v1/metadata?metric=nope')).body.data, {});
    assert.deepEqual(Object.keys((await getJson(strata.base, '/api/v1/metadata?limit=1')).body.data), ['rpc_seconds']);
    assert.deepEqual((await getJson(strata.base, '/api/v1/metadata?limit=0')).body.data, {});
    assert.equal(Object.keys((await getJson(strata.base, '/api/v1/metadata?limit=-1&limit_per_metric=1')).body.data).length, 2);
    const bad = await getJson(strata.base, '/api/v1/metadata?limit=lots');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'limit must be a number');
  });

  test('scoped to the tenant; the latest told wins', async () => {
    assert.deepEqual((await getJson(strata.base, '/api/v1/metadata', 'team-a')).body.data, { rpc_seconds: [{ type: 'counter', help: 'Team A\'s idea.', unit: '' }] });
    await write(strata.base, { metadata: [{ type: MT.GAUGE, family: 'up', help: 'Changed.' }] }, 'team-b');
    await write(strata.base, { metadata: [{ type: MT.COUNTER, family: 'up', help: 'Changed again.' }] }, 'team-b');
    assert.deepEqual((await getJson(strata.base, '/api/v1/metadata', 'team-b')).body.data, { up: [{ type: 'counter', help: 'Changed again.', unit: '' }] });
  });
});

describe('thanos.Exemplars, thanos.Metadata and Info over gRPC', () => {
  test('Exemplars: every tenant, series with the tenant and external labels, sorted', async () => {
    const a = await exemplarsCall(grpcAddress, { query: 'rpc_seconds_bucket', start: BigInt(T0), end: BigInt(T0 + 60_000) });
    assert.equal(a.code, 0, a.details);
    const shown = a.messages.map((d) => [
      d.seriesLabels.labels.map((l) => `${l.name}=${l.value}`).join(','),
      d.exemplars.map((e) => `${e.labels.labels.map((l) => `${l.name}=${l.value}`).join(',')} ${e.value}@${e.ts}`),
    ]);
    assert.deepEqual(shown, [
      ['__name__=rpc_seconds_bucket,job=api,le=0.5,region=eu-west,tenant_id=default-tenant', [`trace_id=aaa 0.31@${T0}`, `span_id=s,trace_id=bbb 0.42@${T0 + 15_000}`]],
      ['__name__=rpc_seconds_bucket,job=api,le=0.5,region=eu-west,tenant_id=team-a', [`trace_id=other-tenant 9@${T0}`]],
    ]);
  });

  test('Exemplars: matchers on external labels are decided first (Thanos Receive\'s rules)', async () => {
    const other = await exemplarsCall(grpcAddress, { query: 'rpc_seconds_bucket{region="us"}', start: BigInt(T0), end: BigInt(T0 + 60_000) });
    assert.deepEqual([other.code, other.messages], [0, []]);
    const tenant = await exemplarsCall(grpcAddress, { query: 'rpc_seconds_bucket{region="eu-west", tenant_id="team-a"}', start: BigInt(T0), end: BigInt(T0 + 60_000) });
    assert.equal(tenant.messages.length, 1);
    const onlyExternal = await exemplarsCall(grpcAddress, { query: '{region="eu-west"}', start: BigInt(T0), end: BigInt(T0 + 60_000) });
    assert.equal(onlyExternal.code, INVALID_ARGUMENT);
    assert.match(onlyExternal.details, /no matchers specified \(excluding external labels\)/);
    const bad = await exemplarsCall(grpcAddress, { query: 'sum(', start: 0n, end: 1n });
    assert.equal(bad.code, INVALID_ARGUMENT);
  });

  test('MetricMetadata: every tenant\'s families merged, distinct entries kept; metric and limit as the HTTP API', async () => {
    const a = await metadataCall(grpcAddress, { limit: -1 });
    assert.equal(a.code, 0, a.details);
    assert.equal(a.messages.length, 1);
    const rpc = a.messages[0]!['rpc_seconds']!.metas;
    assert.deepEqual(new Set(rpc.map((m) => m.type)), new Set(['histogram', 'counter']));
    assert.deepEqual(Object.keys((await metadataCall(grpcAddress, { metric: 'rpc_seconds', limit: -1 })).messages[0]!), ['rpc_seconds']);
    assert.deepEqual((await metadataCall(grpcAddress, { limit: 0 })).messages[0], {});
  });

  test('RemoteWrite\'s exemplars (thanos.WriteRequest, its tenant field) are stored too', async () => {
    const client = new StoreClient(grpcAddress);
    try {
      const labels = [{ name: '__name__', value: 'grpc_written' }];
      const bytes = ThanosWriteRequest.encode(ThanosWriteRequest.fromPartial({
        tenant: 'grpc-team',
        timeseries: [{ labels, samples: [{ value: 1, timestamp: BigInt(T0) }], exemplars: [{ labels: [{ name: 'trace_id', value: 'g1' }], value: 5, timestamp: BigInt(T0) }] }],
      })).finish();
      const a = await client.remoteWrite(Buffer.from(bytes));
      assert.equal(a.code, 0, a.details);
      const { body } = await getJson(strata.base, qe({ query: 'grpc_written' }), 'grpc-team');
      assert.deepEqual(body.data, [{ seriesLabels: { __name__: 'grpc_written' }, exemplars: [{ labels: { trace_id: 'g1' }, value: '5', timestamp: T0 / 1000 }] }]);
    } finally {
      client.close();
    }
  });

  test('Info advertises both: metric_metadata set, exemplars with the oldest and newest exemplar times', async () => {
    const client = new StoreClient(grpcAddress);
    try {
      const r = (await client.info()).response!;
      assert.deepEqual(r.metric_metadata, {});
      assert.deepEqual(r.exemplars, { min_time: String(T0), max_time: String(T0 + 15_000) });
    } finally {
      client.close();
    }
  });
});

describe('metrics', () => {
  test('/metrics tells what the exemplar and metadata stores hold', async () => {
    const text = (await call(strata.base, 'GET', '/metrics')).text;
    const value = (name: string): number => Number(/^(\S+) (\S+)$/m.exec(text.split('\n').find((l) => l.startsWith(`${name} `)) ?? '')?.[2]);
    assert.equal(value('strata_exemplars_in_storage'), 5, 'four over HTTP, one over gRPC');
    assert.equal(value('strata_exemplars_appended_total'), 5);
    assert.equal(value('strata_series_with_exemplars_in_storage'), 4);
    assert.equal(value('strata_exemplars_max'), 100_000);
    assert.equal(value('strata_metadata_families'), 4, 'two of the default tenant, one of team-a, one of team-b');
  });
});

describe('across restarts and with --tsdb.max-exemplars', () => {
  test('exemplars come back after kill -9 and after a graceful stop (the WAL); metadata does not (senders tell it again)', async () => {
    const s = await serve();
    await write(s.base, { series: [{ labels: BUCKET, samples: [[T0, 1]], exemplars: [{ labels: { trace_id: 'persist' }, value: 1, t: T0 }] }], metadata: [{ type: MT.GAUGE, family: 'rpc_seconds' }] });
    const before = (await getJson(s.base, qe({ query: 'rpc_seconds_bucket' }))).body;
    assert.equal(before.data.length, 1);
    s.child.kill('SIGKILL');
    await new Promise((done) => s.child.once('exit', done));
    const again = await serve({ dataDir: s.dataDir });
    assert.deepEqual((await getJson(again.base, qe({ query: 'rpc_seconds_bucket' }))).body, before, 'after kill -9');
    assert.deepEqual((await getJson(again.base, '/api/v1/metadata')).body.data, {});
    assert.equal(await again.stop(), 0);
    const third = await serve({ dataDir: s.dataDir });
    assert.deepEqual((await getJson(third.base, qe({ query: 'rpc_seconds_bucket' }))).body, before, 'after a graceful stop (a checkpoint)');
    await third.stop();
  });

  test('--tsdb.max-exemplars bounds the store (the oldest go first); 0 keeps none', async () => {
    const s = await serve({ args: ['--tsdb.max-exemplars', '2'] });
    const exemplars = [1, 2, 3].map((i) => ({ labels: { trace_id: `t${i}` }, value: i, t: T0 + i }));
    await write(s.base, { series: [{ labels: BUCKET, samples: [[T0, 1]], exemplars }] });
    const kept = (await getJson(s.base, qe({ query: 'rpc_seconds_bucket' }))).body.data[0].exemplars;
    assert.deepEqual(kept.map((e: { labels: { trace_id: string } }) => e.labels.trace_id), ['t2', 't3']);
    const off = await serve({ args: ['--tsdb.max-exemplars', '0'] });
    await write(off.base, { series: [{ labels: BUCKET, samples: [[T0, 1]], exemplars }] });
    assert.deepEqual((await getJson(off.base, qe({ query: 'rpc_seconds_bucket' }))).body.data, []);
    await s.stop();
    await off.stop();
  });
});
