// The OTLP receiver, black box: a `strata serve` process fed by the
// official OpenTelemetry JS SDK (sdk-metrics with the OTLP/HTTP protobuf
// and JSON exporters) and read back through remote read and the label
// API. Expected names, labels and values are written from Prometheus 3's
// translation rules (docs/format/otlp.md), not from Strata's output.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { OTLPMetricExporter as ProtoExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { AggregationTemporalityPreference, OTLPMetricExporter as JsonExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { ExportMetricsServiceRequest, ExportMetricsServiceResponse } from '../../../src/gen/opentelemetry/proto/collector/metrics/v1/metrics_service.js';
import { call } from '../support/http-client.js';
import { ReadRequest_ResponseType as RT, bitsOf, decodeReadResponse, postRead, type AnsweredSeries } from './support/prom-wire.js';
import { removeTempDirs, serve, stopAll, type Served } from './support/serve.js';

const MAX_BODY = 64 * 1024;
const ALL = { start: -8.64e15, end: 8.64e15 };
const EQ = 0;
const RESOURCE = {
  'service.name': 'checkout',
  'service.namespace': 'shop',
  'service.instance.id': 'i-1',
  'deployment.environment': 'prod',
};
/** service.namespace/service.name and service.instance.id, as Prometheus makes job and instance. */
const JOB = ['job', 'shop/checkout'] as const;
const INSTANCE = ['instance', 'i-1'] as const;

let strata: Served;

before(async () => {
  strata = await serve({ args: ['--http-max-body-bytes', String(MAX_BODY)] });
});

after(async () => {
  await stopAll();
  removeTempDirs();
});

/** A MeterProvider exporting through `exporter` only when flushed or shut down. */
function provider(exporter: PushMetricExporter, resource: Record<string, string> = RESOURCE) {
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const mp = new MeterProvider({ resource: resourceFromAttributes(resource), readers: [reader] });
  // Each forceFlush exports, and so does shutdown.
  return { mp, meter: mp.getMeter('otlp-test', '1.2.3'), flush: () => reader.forceFlush() };
}

function protoExporter(tenant: string, extra: object = {}): ProtoExporter {
  return new ProtoExporter({ url: `${strata.base}/api/v1/otlp/v1/metrics`, headers: { 'THANOS-TENANT': tenant }, ...extra });
}

async function read(name: string, tenant: string): Promise<AnsweredSeries[]> {
  const a = await postRead(strata.base, [{ matchers: [[EQ, '__name__', name]], ...ALL }], { types: [RT.SAMPLES], tenant });
  assert.equal(a.status, 200, a.body.toString());
  return decodeReadResponse(a.body)[0]!;
}

const show = (labels: Array<[string, string]>): string => labels.map(([n, v]) => `${n}=${v}`).join(',');

/** The values of the series of `name`, keyed by their labels but __name__. */
async function values(name: string, tenant: string): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  for (const s of await read(name, tenant)) {
    const key = show(s.labels.filter(([n]) => n !== '__name__'));
    out[key] = s.samples.map((x) => new Float64Array(new BigUint64Array([x.bits]).buffer)[0]!);
  }
  return out;
}

const key = (...pairs: Array<readonly [string, string]>): string => show([...pairs].sort((a, b) => (a[0] < b[0] ? -1 : 1)) as Array<[string, string]>);

describe('OTLP from the OpenTelemetry SDK, protobuf exporter', () => {
  const tenant = 'otel-proto';
  before(async () => {
    const { mp, meter, flush } = provider(protoExporter(tenant));
    const requests = meter.createCounter('http.server.requests', { unit: '{request}', description: 'Requests served.' });
    const queue = meter.createUpDownCounter('queue.depth', { unit: '{item}' });
    const cpu = meter.createGauge('cpu.utilization', { unit: '1' });
    const sent = meter.createCounter('net.io', { unit: 'By' });
    const latency = meter.createHistogram('http.server.duration', { unit: 's', advice: { explicitBucketBoundaries: [0.1, 0.5, 1] } });
    requests.add(3, { 'http.method': 'GET' });
    requests.add(1, { 'http.method': 'POST' });
    queue.add(5);
    queue.add(-2);
    cpu.record(0.25, { cpu: '0' });
    sent.add(1024);
    for (const v of [0.05, 0.3, 0.3, 2]) latency.record(v, { route: '/pay' });
    await flush();
    // A second export: cumulative values grow.
    requests.add(2, { 'http.method': 'GET' });
    // Shutting down exports once more: the second export.
    await mp.shutdown();
  });

  test('a monotonic counter is <name>_total with its attributes sanitized, job and instance from the resource', async () => {
    const got = await values('http_server_requests_total', tenant);
    assert.deepEqual(got, {
      [key(['http_method', 'GET'], INSTANCE, JOB)]: [3, 5],
      [key(['http_method', 'POST'], INSTANCE, JOB)]: [1, 1],
    });
  });

  test('an up-down counter is a gauge: no _total; a {curly} unit adds no suffix', async () => {
    assert.deepEqual(await values('queue_depth', tenant), { [key(INSTANCE, JOB)]: [3, 3] });
  });

  test('a gauge of unit 1 takes _ratio; a By counter _bytes_total', async () => {
    assert.deepEqual(await values('cpu_utilization_ratio', tenant), { [key(['cpu', '0'], INSTANCE, JOB)]: [0.25, 0.25] });
    assert.deepEqual(await values('net_io_bytes_total', tenant), { [key(INSTANCE, JOB)]: [1024, 1024] });
  });

  test('an explicit-bucket histogram is classic _bucket{le}, _sum and _count series in seconds', async () => {
    const base = [['route', '/pay'], INSTANCE, JOB] as const;
    const buckets = await values('http_server_duration_seconds_bucket', tenant);
    assert.deepEqual(buckets, {
      [key(...base, ['le', '0.1'])]: [1, 1],
      [key(...base, ['le', '0.5'])]: [3, 3],
      [key(...base, ['le', '1'])]: [3, 3],
      [key(...base, ['le', '+Inf'])]: [4, 4],
    });
    assert.deepEqual(await values('http_server_duration_seconds_count', tenant), { [key(...base)]: [4, 4] });
    const sum = (await values('http_server_duration_seconds_sum', tenant))[key(...base)]!;
    assert.equal(sum.length, 2);
    assert.ok(Math.abs(sum[0]! - 2.65) < 1e-9, `sum ${sum[0]}`);
  });

  test('the other resource attributes go to target_info, without service.*', async () => {
    const got = await values('target_info', tenant);
    assert.deepEqual(Object.keys(got), [key(['deployment_environment', 'prod'], INSTANCE, JOB)]);
    assert.ok(Object.values(got)[0]!.every((v) => v === 1));
  });

  test('the label API lists the translated names', async () => {
    const a = await call(strata.base, 'GET', '/api/v1/label/__name__/values', { headers: { 'thanos-tenant': tenant } });
    assert.equal(a.status, 200, a.text);
    assert.deepEqual(a.json.data, [
      'cpu_utilization_ratio', 'http_server_duration_seconds_bucket', 'http_server_duration_seconds_count', 'http_server_duration_seconds_sum',
      'http_server_requests_total', 'net_io_bytes_total', 'queue_depth', 'target_info',
    ]);
    const labels = await call(strata.base, 'GET', '/api/v1/labels', { headers: { 'thanos-tenant': tenant } });
    assert.deepEqual(labels.json.data, ['__name__', 'cpu', 'deployment_environment', 'http_method', 'instance', 'job', 'le', 'route']);
  });

  test('metadata keeps type, unit and help', async () => {
    const a = await call(strata.base, 'GET', '/api/v1/metadata?metric=http_server_requests_total', { headers: { 'thanos-tenant': tenant } });
    assert.equal(a.status, 200, a.text);
    assert.deepEqual(a.json.data, { http_server_requests_total: [{ type: 'counter', unit: '', help: 'Requests served.' }] });
    const d = await call(strata.base, 'GET', '/api/v1/metadata?metric=http_server_duration_seconds', { headers: { 'thanos-tenant': tenant } });
    assert.deepEqual(d.json.data, { http_server_duration_seconds: [{ type: 'histogram', unit: 'seconds', help: '' }] });
  });
});

describe('OTLP from the SDK, JSON exporter and delta temporality', () => {
  test('the JSON exporter writes as the protobuf one does', async () => {
    const tenant = 'otel-json';
    const exporter = new JsonExporter({ url: `${strata.base}/api/v1/otlp`, headers: { 'THANOS-TENANT': tenant } });
    const { mp, meter } = provider(exporter);
    meter.createCounter('jobs.done').add(7, { 'queue.name': 'q1' });
    await mp.shutdown();
    assert.deepEqual(await values('jobs_done_total', 'otel-json'), { [key(INSTANCE, JOB, ['queue_name', 'q1'])]: [7] });
  });

  test('a delta exporter is refused in partial_success and nothing of it is stored', async () => {
    const tenant = 'otel-delta';
    // The exporter logs partial success; read the answer directly too.
    const exporter = protoExporter(tenant, { temporalityPreference: AggregationTemporalityPreference.DELTA });
    const { mp, meter } = provider(exporter, { 'service.name': 'd' });
    meter.createCounter('delta.things').add(4);
    meter.createGauge('delta.gauge').record(1);
    await mp.shutdown();
    assert.deepEqual(await values('delta_things_total', tenant), {});
    // Gauges have no temporality: stored.
    assert.deepEqual(await values('delta_gauge', tenant), { [key(['job', 'd'])]: [1] });
  });
});

/** An ExportMetricsServiceRequest in the JSON mapping, one resource and metric. */
function jsonRequest(metric: object, resource: object[] = [{ key: 'service.name', value: { stringValue: 'raw' } }]): string {
  return JSON.stringify({ resourceMetrics: [{ resource: { attributes: resource }, scopeMetrics: [{ scope: { name: 's' }, metrics: [metric] }] }] });
}

/** Now, to the second: the SDK's writes moved the store's time to the wall clock, and older samples are too old. */
const NOW_MS = Math.floor(Date.now() / 1000) * 1000;
const NOW_NS = `${NOW_MS}000000`;

async function post(path: string, body: string | Uint8Array, headers: Record<string, string>) {
  return call(strata.base, 'POST', path, { body, headers });
}

/** A refused OTLP request's answer: status, Content-Type and body bytes. */
async function refusal(body: string | Uint8Array, headers: Record<string, string>): Promise<{ status: number; type: string | null; bytes: Uint8Array }> {
  const res = await fetch(`${strata.base}/api/v1/otlp/v1/metrics`, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
  return { status: res.status, type: res.headers.get('content-type'), bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** google.rpc.Status from protobuf: code = 1 (int32), message = 2 (string); details (3) are not sent. */
function decodeStatus(b: Uint8Array): { code?: number; message?: string } {
  const out: { code?: number; message?: string } = {};
  let p = 0;
  const varint = (): number => {
    let n = 0;
    for (let shift = 0; ; shift += 7) {
      const x = b[p++]!;
      n += (x & 0x7f) * 2 ** shift;
      if (x < 0x80) return n;
    }
  };
  while (p < b.length) {
    const tag = varint();
    if (tag === 0x08) out.code = varint();
    else if (tag === 0x12) {
      const len = varint();
      out.message = Buffer.from(b.subarray(p, p + len)).toString('utf8');
      p += len;
    } else assert.fail(`unexpected Status field tag ${tag}`);
  }
  return out;
}

describe('OTLP/HTTP answers', () => {
  test('a delta sum answers 200 with partial_success naming the metric', async () => {
    const body = jsonRequest({ name: 'd.sum', sum: { aggregationTemporality: 1, isMonotonic: true, dataPoints: [{ timeUnixNano: NOW_NS, asInt: '3' }, { timeUnixNano: NOW_NS, asInt: '4' }] } });
    const a = await post('/api/v1/otlp/v1/metrics', body, { 'content-type': 'application/json', 'thanos-tenant': 'answers' });
    assert.equal(a.status, 200, a.text);
    assert.deepEqual(a.json, { partialSuccess: { rejectedDataPoints: '2', errorMessage: 'invalid temporality and type combination for metric "d.sum"' } });
  });

  test('a summary is quantile series plus _sum and _count; the no-recorded-value flag is a stale marker', async () => {
    const summary = {
      name: 'rpc.latency', unit: 'ms',
      summary: { dataPoints: [
        { timeUnixNano: NOW_NS, count: '10', sum: 55.5, quantileValues: [{ quantile: 0.5, value: 4 }, { quantile: 0.99, value: 9 }] },
        { timeUnixNano: `${NOW_MS + 15_000}000000`, flags: 1 },
      ] },
    };
    const a = await post('/api/v1/otlp', jsonRequest(summary), { 'content-type': 'application/json', 'thanos-tenant': 'answers' });
    assert.equal(a.status, 200, a.text);
    assert.deepEqual(a.json, {});
    const q = await read('rpc_latency_milliseconds', 'answers');
    assert.deepEqual(q.map((s) => show(s.labels)), ['__name__=rpc_latency_milliseconds,job=raw,quantile=0.5', '__name__=rpc_latency_milliseconds,job=raw,quantile=0.99']);
    // The stale point has no quantile values, so (as in Prometheus) no quantile sample: only _sum and _count go stale.
    assert.deepEqual(q[0]!.samples, [{ t: NOW_MS, bits: bitsOf(4) }]);
    const count = await read('rpc_latency_milliseconds_count', 'answers');
    assert.deepEqual(count[0]!.samples, [{ t: NOW_MS, bits: bitsOf(10) }, { t: NOW_MS + 15_000, bits: 0x7ff0000000000002n }]);
  });

  test('gzip bodies are inflated; protobuf answers are an ExportMetricsServiceResponse', async () => {
    const body = gzipSync(jsonRequest({ name: 'gz', gauge: { dataPoints: [{ timeUnixNano: NOW_NS, asDouble: 1.5 }] } }));
    const a = await post('/api/v1/otlp/v1/metrics', body, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'thanos-tenant': 'answers' });
    assert.equal(a.status, 200, a.text);
    assert.deepEqual((await read('gz', 'answers'))[0]!.samples, [{ t: NOW_MS, bits: bitsOf(1.5) }]);
  });

  test('protobuf from the generated OTLP types: a delta histogram refused in partial_success, the gauge beside it stored', async () => {
    const t = BigInt(NOW_MS + 30_000) * 1_000_000n;
    const partial = { resourceMetrics: [{
      resource: { attributes: [{ key: 'service.name', value: { value: { $case: 'stringValue', value: 'gen' } } }] },
      scopeMetrics: [{ metrics: [
        { name: 'gen.delta', data: { $case: 'histogram', value: { aggregationTemporality: 1, dataPoints: [{ timeUnixNano: t, count: 2n, bucketCounts: [1n, 1n], explicitBounds: [1] }] } } },
        { name: 'gen.gauge', unit: 'By', data: { $case: 'gauge', value: { dataPoints: [{ timeUnixNano: t, value: { $case: 'asInt', value: 42n } }] } } },
      ] }],
    }] };
    // Cast: the generated DeepPartial/Exact types do not narrow the oneofs of a literal built apart from the call.
    const request = ExportMetricsServiceRequest.fromPartial(partial as unknown as Parameters<typeof ExportMetricsServiceRequest.fromPartial>[0]);
    const a = await fetch(`${strata.base}/api/v1/otlp/v1/metrics`, {
      method: 'POST', headers: { 'content-type': 'application/x-protobuf', 'thanos-tenant': 'answers' }, body: ExportMetricsServiceRequest.encode(request).finish(),
    });
    assert.equal(a.status, 200);
    assert.equal(a.headers.get('content-type'), 'application/x-protobuf');
    const response = ExportMetricsServiceResponse.decode(new Uint8Array(await a.arrayBuffer()));
    assert.deepEqual(response.partialSuccess, { rejectedDataPoints: 1n, errorMessage: 'invalid temporality and type combination for metric "gen.delta"' });
    assert.deepEqual((await read('gen_gauge_bytes', 'answers'))[0]!.samples, [{ t: NOW_MS + 30_000, bits: bitsOf(42) }]);
    assert.deepEqual(await read('gen_delta_bucket', 'answers'), []);
  });

  test('a body that does not decode is 400', async () => {
    for (const [type, body] of [['application/x-protobuf', Uint8Array.of(0x0a, 0x05, 0x01)], ['application/json', '{"resourceMetrics": 3}'], ['application/json', '{']] as const) {
      const a = await post('/api/v1/otlp/v1/metrics', body, { 'content-type': type });
      assert.equal(a.status, 400, `${type}: ${a.text}`);
    }
    const notGzip = await post('/api/v1/otlp/v1/metrics', 'plain', { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    assert.equal(notGzip.status, 400, notGzip.text);
  });

  test('another content type or encoding is 415', async () => {
    for (const headers of [{ 'content-type': 'text/plain' }, {}, { 'content-type': 'application/json', 'content-encoding': 'snappy' }] as Array<Record<string, string>>) {
      const a = await post('/api/v1/otlp/v1/metrics', '{}', headers);
      assert.equal(a.status, 415, `${JSON.stringify(headers)}: ${a.text}`);
    }
  });

  test('refusals carry a google.rpc.Status in the request\'s encoding: protobuf for protobuf, JSON for JSON, protobuf for another type', async () => {
    const undecodable = await refusal(Uint8Array.of(0x0a, 0x05, 0x01), { 'content-type': 'application/x-protobuf' });
    assert.equal(undecodable.status, 400);
    assert.equal(undecodable.type, 'application/x-protobuf');
    const s = decodeStatus(undecodable.bytes);
    assert.equal(s.code, undefined, 'Status.code left out, as the specification allows');
    assert.match(s.message ?? '', /ResourceMetrics|runs past|truncated|length/i);

    const json = await refusal('{"resourceMetrics": 3}', { 'content-type': 'application/json' });
    assert.equal(json.status, 400);
    assert.equal(json.type, 'application/json');
    assert.deepEqual(Object.keys(JSON.parse(Buffer.from(json.bytes).toString())), ['message']);
    assert.match(JSON.parse(Buffer.from(json.bytes).toString()).message, /resourceMetrics is not an array/);

    const other = await refusal('{}', { 'content-type': 'text/plain' });
    assert.equal(other.status, 415);
    assert.equal(other.type, 'application/x-protobuf');
    assert.match(decodeStatus(other.bytes).message ?? '', /Content-Type "text\/plain" is not accepted/);

    const big = await refusal(new Uint8Array(MAX_BODY + 1), { 'content-type': 'application/json' });
    assert.equal(big.status, 413);
    assert.equal(big.type, 'application/json');
    assert.match(JSON.parse(Buffer.from(big.bytes).toString()).message, new RegExp(`larger than ${MAX_BODY} bytes`));
  });

  test('a body over the limit is 413, and so is a gzip body inflating past 8 times it', async () => {
    const big = await post('/api/v1/otlp', new Uint8Array(MAX_BODY + 1), { 'content-type': 'application/x-protobuf' });
    assert.equal(big.status, 413, big.text);
    const bomb = gzipSync(Buffer.alloc(MAX_BODY * 8 + 1));
    const a = await post('/api/v1/otlp', bomb, { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });
    assert.equal(a.status, 413, a.text);
  });
});
