// Remote write 2.0 over HTTP, black box: a `strata serve` process sent
// io.prometheus.write.v2.Request messages made from Prometheus' own .proto
// by @bufbuild/protobuf (test/support/rw2.ts), checked against the 2.0
// specification (docs/specs/prw/remote_write_spec_2_0.md in prometheus/docs):
// content negotiation, the Written headers, partial writes and every error
// it names; the data read back through remote read, query_exemplars and
// the metadata API.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { compressSync } from 'snappy';
import { call, type Answer } from '../support/http-client.js';
import { assertProblem } from '../support/problem.js';
import { METRIC_TYPE, rw2Bytes, rw2Histogram, Symbols, type Rw2Series } from '../../support/rw2.js';
import { ReadRequest_ResponseType as RT, bitsOf, decodeReadResponse, postRead, postWrite, samples, type ReadQuery } from './support/prom-wire.js';
import { removeTempDirs, serve, stopAll, type Served } from './support/serve.js';

const V2 = 'application/x-protobuf;proto=io.prometheus.write.v2.Request';
const T0 = 1_700_000_000_000;
const ALL = { start: -8.64e15, end: 8.64e15 };
const WRITTEN = ['samples', 'histograms', 'exemplars'] as const;

let strata: Served;

before(async () => {
  strata = await serve({ args: ['--http-max-body-bytes', String(256 * 1024)] });
});

after(async () => {
  await stopAll();
  removeTempDirs();
});

/** POSTs a 2.0 request (serialized bytes, snappy-compressed here) as a 2.0 sender does. */
function postV2(body: Uint8Array, opts: { tenant?: string; path?: string; contentType?: string; encoding?: string; raw?: boolean } = {}): Promise<Answer> {
  return call(strata.base, 'POST', opts.path ?? '/api/v1/write', {
    body: opts.raw === true ? body : compressSync(Buffer.from(body)),
    headers: {
      'content-type': opts.contentType ?? V2,
      'content-encoding': opts.encoding ?? 'snappy',
      'x-prometheus-remote-write-version': '2.0.0',
      'user-agent': 'strata-test/1',
      ...(opts.tenant === undefined ? {} : { 'thanos-tenant': opts.tenant }),
    },
  });
}

function request(build: (s: Symbols) => Rw2Series[]): Uint8Array {
  const s = new Symbols();
  const timeseries = build(s);
  return rw2Bytes({ symbols: s.table, timeseries });
}

/** The three Written headers as numbers (undefined where absent). */
function written(a: Answer): Record<(typeof WRITTEN)[number], number | undefined> {
  const h = (what: string): number | undefined => {
    const v = a.headers.get(`x-prometheus-remote-write-${what}-written`);
    return v === null ? undefined : Number(v);
  };
  return { samples: h('samples'), histograms: h('histograms'), exemplars: h('exemplars') };
}

async function readBack(name: string, tenant?: string): Promise<Array<{ labels: Array<[string, string]>; t: number[]; bits: bigint[] }>> {
  const q: ReadQuery = { matchers: [[0, '__name__', name]], ...ALL };
  const a = await postRead(strata.base, [q], { types: [RT.SAMPLES], ...(tenant === undefined ? {} : { tenant }) });
  assert.equal(a.status, 200, a.body.toString());
  return decodeReadResponse(a.body)[0]!.map((s) => ({ labels: s.labels, t: s.samples.map((x) => x.t), bits: s.samples.map((x) => x.bits) }));
}

async function api(path: string, tenant?: string): Promise<any> {
  const a = await call(strata.base, 'GET', path, { headers: tenant === undefined ? {} : { 'thanos-tenant': tenant } });
  assert.equal(a.status, 200, a.text);
  return a.json;
}

describe('remote write 2.0: content negotiation (the specification\'s Content-Type values)', () => {
  test('proto=io.prometheus.write.v2.Request is read as 2.0: 204 and the three Written headers', async () => {
    const a = await postV2(request((s) => [{ labelsRefs: s.refs('__name__', 'v2_neg', 'job', 'a'), samples: [{ value: 1, timestamp: BigInt(T0) }, { value: 2, timestamp: BigInt(T0 + 1000) }] }]));
    assert.equal(a.status, 204, a.text);
    assert.deepEqual(written(a), { samples: 2, histograms: 0, exemplars: 0 });
    assert.deepEqual(await readBack('v2_neg'), [{ labels: [['__name__', 'v2_neg'], ['job', 'a']], t: [T0, T0 + 1000], bits: [bitsOf(1), bitsOf(2)] }]);
  });

  test('the parameter may be spaced and quoted, and /api/v1/receive takes 2.0 too', async () => {
    const body = request((s) => [{ labelsRefs: s.refs('__name__', 'v2_receive'), samples: [{ value: 1, timestamp: BigInt(T0) }] }]);
    const a = await postV2(body, { path: '/api/v1/receive', contentType: 'application/x-protobuf; proto="io.prometheus.write.v2.Request"' });
    assert.equal(a.status, 204, a.text);
    assert.equal(written(a).samples, 1);
    assert.equal((await readBack('v2_receive')).length, 1);
  });

  test('a protobuf message not served is 415 (a 2.0 sender then falls back), with no Written headers', async () => {
    const body = request((s) => [{ labelsRefs: s.refs('__name__', 'v2_415'), samples: [{ value: 1, timestamp: BigInt(T0) }] }]);
    const a = await postV2(body, { contentType: 'application/x-protobuf;proto=io.prometheus.write.v3.Request' });
    assertProblem(a, 415);
    assert.match(a.json.detail, /io\.prometheus\.write\.v3\.Request/);
    assert.deepEqual(written(a), { samples: undefined, histograms: undefined, exemplars: undefined });
    assertProblem(await postV2(body, { encoding: 'zstd' }), 415);
    assert.deepEqual(await readBack('v2_415'), [], 'nothing of a refused message is written');
  });

  test('remote write 1.0 is unchanged: 204 without Written headers, with and without proto=prometheus.WriteRequest', async () => {
    for (const contentType of ['application/x-protobuf', 'application/x-protobuf;proto=prometheus.WriteRequest']) {
      const a = await postWrite(strata.base, [{ labels: [['__name__', 'v1_still']], samples: samples(1, T0, 1, () => 1) }], { headers: { 'content-type': contentType } });
      assert.equal(a.status, 204, a.text);
      assert.deepEqual(written(a), { samples: undefined, histograms: undefined, exemplars: undefined }, contentType);
    }
  });

  test('a 1.0 WriteRequest sent as 2.0 reads as an empty message: 204, nothing written, and the headers say so', async () => {
    const v1 = await import('./support/prom-wire.js').then((m) => m.writeRequestBytes([{ labels: [['__name__', 'v2_misread']], samples: samples(1, T0, 1, () => 1) }]));
    const a = await postV2(v1);
    assert.equal(a.status, 204, a.text);
    assert.deepEqual(written(a), { samples: 0, histograms: 0, exemplars: 0 });
    assert.deepEqual(await readBack('v2_misread'), []);
  });
});

describe('remote write 2.0: what is written, and said written', () => {
  test('a request like Prometheus\' own fixture: samples written, exemplars stored, metadata kept, start timestamps not stored', async () => {
    const s = new Symbols();
    const labels = s.refs('__name__', 'v2_fixture_total', 'job', 'api');
    const timeseries: Rw2Series[] = [
      {
        labelsRefs: labels,
        metadata: { type: METRIC_TYPE.counter, helpRef: s.ref('Requests served.'), unitRef: s.ref('requests') },
        samples: [{ value: 10, timestamp: BigInt(T0 + 10_000), startTimestamp: BigInt(T0) }],
        exemplars: [{ labelsRefs: s.refs('trace_id', 'abc123'), value: 1, timestamp: BigInt(T0 + 9_500) }],
      },
      {
        labelsRefs: labels,
        samples: [{ value: 12, timestamp: BigInt(T0 + 20_000), startTimestamp: BigInt(T0) }],
        exemplars: [{ labelsRefs: s.refs('trace_id', 'def456', 'span_id', 's1'), value: 2, timestamp: BigInt(T0 + 19_000) }],
      },
    ];
    const a = await postV2(rw2Bytes({ symbols: s.table, timeseries }));
    assert.equal(a.status, 204, a.text);
    assert.deepEqual(written(a), { samples: 2, histograms: 0, exemplars: 2 });
    assert.deepEqual((await readBack('v2_fixture_total'))[0]!.t, [T0 + 10_000, T0 + 20_000], 'no zero sample at the start timestamp');
    const ex = await api(`/api/v1/query_exemplars?${new URLSearchParams({ query: 'v2_fixture_total', start: String(T0 / 1000), end: String(T0 / 1000 + 60) })}`);
    assert.deepEqual(ex, {
      status: 'success',
      data: [{
        seriesLabels: { __name__: 'v2_fixture_total', job: 'api' },
        exemplars: [
          { labels: { trace_id: 'abc123' }, value: '1', timestamp: (T0 + 9_500) / 1000 },
          { labels: { span_id: 's1', trace_id: 'def456' }, value: '2', timestamp: (T0 + 19_000) / 1000 },
        ],
      }],
    });
    const md = await api('/api/v1/metadata?metric=v2_fixture_total');
    assert.deepEqual(md, { status: 'success', data: { v2_fixture_total: [{ type: 'counter', help: 'Requests served.', unit: 'requests' }] } });
  });

  test('samples equal to the ones stored are written again (stored once), as Prometheus counts them', async () => {
    const body = request((s) => [{ labelsRefs: s.refs('__name__', 'v2_again'), samples: [{ value: 1, timestamp: BigInt(T0) }] }]);
    assert.equal(written(await postV2(body)).samples, 1);
    const a = await postV2(body);
    assert.equal(a.status, 204, a.text);
    assert.equal(written(a).samples, 1);
    assert.equal((await readBack('v2_again'))[0]!.t.length, 1);
  });

  test('THANOS-TENANT picks the tenant, as for 1.0', async () => {
    const body = request((s) => [{ labelsRefs: s.refs('__name__', 'v2_tenant'), samples: [{ value: 1, timestamp: BigInt(T0) }] }]);
    assert.equal((await postV2(body, { tenant: 'team-v2' })).status, 204);
    assert.deepEqual(await readBack('v2_tenant'), []);
    assert.equal((await readBack('v2_tenant', 'team-v2')).length, 1);
  });
});

describe('remote write 2.0: refusals (400 and a partial write; the valid part written and counted)', () => {
  test('a body that is not snappy, or not a message, is 400 with nothing written', async () => {
    const a = await postV2(Buffer.from('not snappy'), { raw: true });
    assertProblem(a, 400);
    assert.deepEqual(written(a), { samples: 0, histograms: 0, exemplars: 0 });
    assertProblem(await postV2(Buffer.from([0x2a, 0xff, 0xff, 0xff, 0x0f])), 400);
  });

  test('symbols not starting with the empty string: 400, nothing written', async () => {
    const a = await postV2(rw2Bytes({ symbols: ['__name__', 'v2_nosym'], timeseries: [{ labelsRefs: [0, 1], samples: [{ value: 1, timestamp: BigInt(T0) }] }] }));
    assertProblem(a, 400);
    assert.match(a.json.detail, /symbols\[0\] must be the empty string/);
    assert.equal(written(a).samples, 0);
  });

  test('references outside the symbols table, or an odd number of them: 400; the valid series are written', async () => {
    const a = await postV2(request((s) => [
      { labelsRefs: [s.ref('__name__'), 500], samples: [{ value: 1, timestamp: BigInt(T0) }] },
      { labelsRefs: [s.ref('__name__')], samples: [{ value: 1, timestamp: BigInt(T0) }] },
      { labelsRefs: s.refs('__name__', 'v2_partial_refs'), samples: [{ value: 1, timestamp: BigInt(T0) }, { value: 2, timestamp: BigInt(T0 + 1) }] },
    ]));
    assertProblem(a, 400);
    assert.match(a.json.detail, /2 series with invalid labels \(first: series 0 \(labels_refs \[1, 500\]\): labels_refs element 500 is outside the symbols table/);
    assert.deepEqual(written(a), { samples: 2, histograms: 0, exemplars: 0 });
    assert.equal((await readBack('v2_partial_refs'))[0]!.t.length, 2);
  });

  test('invalid label sets (empty value, unsorted, duplicate names): 400, the valid series written', async () => {
    const a = await postV2(request((s) => [
      { labelsRefs: s.refs('__name__', 'v2_bad_labels', 'z', '1', 'a', '2'), samples: [{ value: 1, timestamp: BigInt(T0) }] },
      { labelsRefs: s.refs('__name__', 'v2_bad_labels', 'job', ''), samples: [{ value: 1, timestamp: BigInt(T0) }] },
      { labelsRefs: s.refs('__name__', 'v2_bad_labels', 'job', 'ok'), samples: [{ value: 1, timestamp: BigInt(T0) }] },
    ]));
    assertProblem(a, 400);
    assert.match(a.json.detail, /label names not sorted \("z" before "a"\)/);
    assert.equal(written(a).samples, 1);
    assert.deepEqual((await readBack('v2_bad_labels')).map((x) => x.labels), [[['__name__', 'v2_bad_labels'], ['job', 'ok']]]);
  });

  test('a series with neither samples nor histograms: 400 (the specification requires one)', async () => {
    const a = await postV2(request((s) => [
      { labelsRefs: s.refs('__name__', 'v2_empty') },
      { labelsRefs: s.refs('__name__', 'v2_empty_ok'), samples: [{ value: 1, timestamp: BigInt(T0) }] },
    ]));
    assertProblem(a, 400);
    assert.match(a.json.detail, /1 series without samples or histograms \(first: series 0 \{__name__="v2_empty"\}/);
    assert.equal(written(a).samples, 1);
  });

  test('native histograms are written and counted in the Written headers; an invalid one is 400 naming its series, the rest written', async () => {
    const ok = await postV2(request((s) => [
      { labelsRefs: s.refs('__name__', 'v2_hist'), histograms: [rw2Histogram(BigInt(T0)), rw2Histogram(BigInt(T0 + 1000))] },
      { labelsRefs: s.refs('__name__', 'v2_hist_floats'), samples: [{ value: 1, timestamp: BigInt(T0) }] },
    ]));
    assert.equal(ok.status, 204, ok.text);
    assert.deepEqual(written(ok), { samples: 1, histograms: 2, exemplars: 0 });
    const bad = await postV2(request((s) => [
      { labelsRefs: s.refs('__name__', 'v2_hist'), histograms: [{ ...rw2Histogram(BigInt(T0 + 2000)), schema: 9 }, rw2Histogram(BigInt(T0 + 3000))] },
    ]));
    assertProblem(bad, 400);
    assert.match(bad.json.detail, /1 invalid native histograms \(first: series 0 \{__name__="v2_hist"\}: histogram 0 at \d+: histogram has an invalid schema 9, which must be between -4 and 8\)/);
    assert.deepEqual(written(bad), { samples: 0, histograms: 1, exemplars: 0 });
    assert.equal((await readBack('v2_hist_floats')).length, 1);
  });

  test('sample conflicts are 400 (2.0 requires it for invalid samples; 1.0 answers 409), the other samples written', async () => {
    const name = 'v2_conflict';
    assert.equal((await postV2(request((s) => [{ labelsRefs: s.refs('__name__', name), samples: [{ value: 1, timestamp: BigInt(T0 + 5000) }] }]))).status, 204);
    const a = await postV2(request((s) => [
      { labelsRefs: s.refs('__name__', name), samples: [{ value: 2, timestamp: BigInt(T0 + 5000) }, { value: 3, timestamp: BigInt(T0) }] },
      { labelsRefs: s.refs('__name__', name, 'job', 'fresh'), samples: [{ value: 1, timestamp: BigInt(T0) }] },
    ]));
    assertProblem(a, 400);
    assert.match(a.json.detail, /rejected: /);
    assert.equal(written(a).samples, 1);
  });

  test('invalid exemplar references: 400; the series and its other exemplars are written', async () => {
    const a = await postV2(request((s) => [{
      labelsRefs: s.refs('__name__', 'v2_bad_exemplar'),
      samples: [{ value: 1, timestamp: BigInt(T0) }],
      exemplars: [{ labelsRefs: [s.ref('trace_id'), 9999], value: 1, timestamp: BigInt(T0) }, { labelsRefs: s.refs('trace_id', 'good'), value: 1, timestamp: BigInt(T0) }],
    }]));
    assertProblem(a, 400);
    assert.match(a.json.detail, /1 invalid exemplars \(first: series 0 \{__name__="v2_bad_exemplar"\}: exemplar labels_refs element 9999/);
    assert.deepEqual(written(a), { samples: 1, histograms: 0, exemplars: 1 });
  });

  test('an out-of-order exemplar: 400 (as Prometheus\' 2.0 receiver), not counted written', async () => {
    const series = (s: Symbols, ts: number, trace: string): Rw2Series => ({
      labelsRefs: s.refs('__name__', 'v2_ooo_exemplar'), samples: [{ value: ts, timestamp: BigInt(ts) }],
      exemplars: [{ labelsRefs: s.refs('trace_id', trace), value: 1, timestamp: BigInt(ts) }],
    });
    assert.equal(written(await postV2(request((s) => [series(s, T0 + 2000, 'new')]))).exemplars, 1);
    const a = await postV2(request((s) => [{ ...series(s, T0 + 3000, 'x'), exemplars: [{ labelsRefs: s.refs('trace_id', 'old'), value: 1, timestamp: BigInt(T0 + 1000) }] }]));
    assertProblem(a, 400);
    assert.match(a.json.detail, /1 out of order exemplars \(first: \{__name__="v2_ooo_exemplar", tenant_id="default-tenant"\} at 1700000001000\)/);
    assert.deepEqual(written(a), { samples: 1, histograms: 0, exemplars: 0 });
  });

  test('exemplar labels over 128 characters: 400 (2.0 may not answer 2xx for data not written; Prometheus drops them silently)', async () => {
    const a = await postV2(request((s) => [{
      labelsRefs: s.refs('__name__', 'v2_long_exemplar'),
      samples: [{ value: 1, timestamp: BigInt(T0) }],
      exemplars: [{ labelsRefs: s.refs('trace_id', 'x'.repeat(121)), value: 1, timestamp: BigInt(T0) }],
    }]));
    assertProblem(a, 400);
    assert.match(a.json.detail, /1 exemplars with labels over 128 characters/);
    assert.deepEqual(written(a), { samples: 1, histograms: 0, exemplars: 0 });
  });

  test('metadata references outside the symbols table refuse the series (400)', async () => {
    const a = await postV2(request((s) => [{ labelsRefs: s.refs('__name__', 'v2_bad_md'), metadata: { type: METRIC_TYPE.gauge, unitRef: 77 }, samples: [{ value: 1, timestamp: BigInt(T0) }] }]));
    assertProblem(a, 400);
    assert.match(a.json.detail, /metadata unit_ref 77 outside the symbols table/);
    assert.equal(written(a).samples, 0);
  });
});
