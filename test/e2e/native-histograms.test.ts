/**
 * Native histograms end to end with real Prometheus 2.42 servers.
 *
 * A scrapes the histogram fixture target (test/fixtures/prometheus-
 * histograms: integer and float histograms, schemas -4..8, negative and
 * zero buckets, resets, layout changes, gauge histograms, a stale end, all
 * with explicit timestamps in 2100, 30 s apart) and remote-writes them to
 * Strata with `send_native_histograms: true`.
 *
 * - Every raw sample Strata answers over remote read (SAMPLES) equals what
 *   A's own query API answers for it (count, sum, each bucket's bounds and
 *   count), and every stale marker the target served is stored as one.
 *   2.42's remote-read client does not decode histograms (storage/remote/
 *   codec.go: "TODO(beorn7): Add histogram support"), so a Prometheus
 *   reading Strata over remote read cannot run the PromQL comparison.
 * - Instead B, a second Prometheus, opens the block Strata cut from its
 *   head (Prometheus' own TSDB format, histogram chunks as Strata wrote
 *   them) and answers histogram_count, histogram_sum,
 *   histogram_quantile(0.9, rate(x[1m])) and histogram_fraction exactly as
 *   A answers from its own TSDB, over the whole block.
 *
 * Bounded (about a minute normally, 4 minutes at worst), loopback only,
 * temporary directories, every process stopped in `after`. Skipped, with
 * the reason, without `prometheus` on PATH or with STRATA_SKIP_E2E=1.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { compressSync, uncompressSync } from 'snappy';
import { ReadRequest, ReadRequest_ResponseType, ReadResponse } from '../../src/gen/prometheus/remote.js';
import { LabelMatcher_Type, type Histogram } from '../../src/gen/prometheus/types.js';
import { SCRAPES, START_MS, STALE_NAN_BITS, fixtureSeries, timestampOf } from '../fixtures/prometheus-histograms/series.js';
import { scrapeBody } from '../fixtures/prometheus-histograms/target.js';
import { removeTempDirs, serve, stopAll, type Served } from '../http/prometheus/support/serve.js';
import { renderApiHistogram, type ApiHistogram } from '../support/prometheus-histogram-api.js';
import { prometheusBinary, startPrometheus, type PromSeries, type PrometheusProcess } from './support/prometheus.js';

const SKIP = process.env.STRATA_SKIP_E2E === '1'
  ? 'STRATA_SKIP_E2E=1'
  : prometheusBinary() === undefined ? 'needs `prometheus` (2.42, Debian package) on PATH' : false;
const WAIT_MS = 150_000;
const SELECTOR = '{__name__=~"fixture_.+"}';
const END_MS = timestampOf(SCRAPES - 1);
const PROTOBUF = 'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited';

/**
 * A remote-read histogram as the shared sample type, and as 2.42's query
 * API renders it (test/support/prometheus-histogram-api.ts).
 */
function rendered(h: Histogram): ApiHistogram {
  const float = h.count?.$case === 'countFloat';
  const sample = {
    counterResetHint: h.resetHint as 0 | 1 | 2 | 3,
    schema: h.schema,
    zeroThreshold: h.zeroThreshold,
    zeroCount: h.zeroCount === undefined ? 0 : Number(h.zeroCount.value),
    count: h.count === undefined ? 0 : Number(h.count.value),
    sum: h.sum,
    positiveSpans: h.positiveSpans,
    negativeSpans: h.negativeSpans,
    positiveBuckets: float ? h.positiveCounts : h.positiveDeltas.map(Number),
    negativeBuckets: float ? h.negativeCounts : h.negativeDeltas.map(Number),
  };
  return renderApiHistogram(sample, !float);
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);
function isStale(sum: number): boolean {
  f64[0] = sum;
  return u64[0] === STALE_NAN_BITS;
}

function seriesKey(labels: Record<string, string>): string {
  return Object.keys(labels).sort().map((k) => `${k}=${JSON.stringify(labels[k])}`).join(',');
}

/** Strata's raw histogram samples of the fixture series, by series, over remote read (SAMPLES). */
async function strataHistograms(base: string): Promise<Map<string, Histogram[]>> {
  const body = compressSync(Buffer.from(ReadRequest.encode({
    queries: [{
      startTimestampMs: BigInt(START_MS - 1),
      endTimestampMs: BigInt(END_MS + 1),
      matchers: [{ type: LabelMatcher_Type.RE, name: '__name__', value: 'fixture_.+' }],
    }],
    acceptedResponseTypes: [ReadRequest_ResponseType.SAMPLES],
  }).finish()));
  const res = await fetch(`${base}/api/v1/read`, {
    method: 'POST',
    body,
    headers: { 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf', 'X-Prometheus-Remote-Read-Version': '0.1.0' },
    signal: AbortSignal.timeout(30_000),
  });
  const answer = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`remote read: ${res.status} ${answer.toString().slice(0, 300)}`);
  const out = new Map<string, Histogram[]>();
  for (const r of ReadResponse.decode(uncompressSync(answer) as Buffer).results) {
    for (const s of r.timeseries) {
      assert.equal(s.samples.length, 0, 'fixture series carry no float samples');
      out.set(seriesKey(Object.fromEntries(s.labels.map((l) => [l.name, l.value]))), s.histograms);
    }
  }
  return out;
}

function total(m: Map<string, unknown[]>): number {
  let n = 0;
  for (const v of m.values()) n += v.length;
  return n;
}

/** The target: scrape n serves the fixture's scrape n (protobuf only, as Prometheus negotiates it). */
function startTarget(): Promise<{ server: Server; address: string; served: () => number }> {
  let n = 0;
  const server = createServer((req, res) => {
    if (!(req.headers.accept ?? '').includes('application/vnd.google.protobuf')) {
      res.writeHead(406).end('protobuf exposition only');
      return;
    }
    res.setHeader('content-type', PROTOBUF);
    res.end(scrapeBody(n++));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    resolve({ server, address: `127.0.0.1:${typeof a === 'object' && a !== null ? a.port : 0}`, served: () => n });
  }));
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = WAIT_MS): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${ms} ms`);
    await sleep(250);
  }
}

/** Blocks Strata has cut: [directory, minTime, maxTime]. */
function strataBlocks(dataDir: string): Array<[string, number, number]> {
  const dir = join(dataDir, 'blocks');
  if (!existsSync(dir)) return [];
  const out: Array<[string, number, number]> = [];
  for (const name of readdirSync(dir)) {
    const meta = join(dir, name, 'meta.json');
    if (!/^[0-9A-Z]{26}$/.test(name) || !existsSync(meta)) continue;
    const m = JSON.parse(readFileSync(meta, 'utf8')) as { minTime: number; maxTime: number };
    out.push([join(dir, name), m.minTime, m.maxTime]);
  }
  return out;
}

/** Series by their labels, less the tenant label Strata adds to what it stores (as Thanos Receive). */
function byMetric(result: PromSeries[]): Map<string, PromSeries> {
  return new Map(result.map((s) => {
    const { tenant_id: _tenant, ...labels } = s.metric;
    return [seriesKey(labels), s];
  }));
}

describe('native histograms: a real Prometheus 2.42 remote-writes them, Strata stores and serves them', { skip: SKIP, timeout: 300_000 }, () => {
  let strata: Served | undefined;
  let a: PrometheusProcess | undefined;
  let b: PrometheusProcess | undefined;
  let target: Server | undefined;
  let stored = new Map<string, Histogram[]>();
  let prom = new Map<string, Array<[number, ApiHistogram]>>();

  before(async () => {
    strata = await serve();
    const t = await startTarget();
    target = t.server;
    a = await startPrometheus('histograms-a', () => `
global:
  scrape_interval: 150ms
  scrape_timeout: 150ms
scrape_configs:
  - job_name: histograms
    static_configs:
      - targets: ['${t.address}']
    relabel_configs:
      - target_label: instance
        replacement: target
remote_write:
  - url: ${strata!.base}/api/v1/write
    send_native_histograms: true
    write_relabel_configs:
      - source_labels: [__name__]
        regex: fixture_.+
        action: keep
    queue_config:
      max_shards: 1
      batch_send_deadline: 200ms
storage:
  tsdb:
    out_of_order_time_window: 100y
`, ['--enable-feature=native-histograms']);
    await until('the target to be scraped to its end', async () => (t.served() > SCRAPES + 2 ? true : undefined));

    // A's raw samples, the reference, one series a query: 2.42's API mixes
    // up histogram samples between the series of one range answer.
    for (const spec of fixtureSeries) {
      const selector = `{__name__="${spec.family}", case="${spec.kase}"}[5h]`;
      const answer = await a.query(selector, (END_MS + 60_000) / 1000);
      const rows = answer.result as Array<PromSeries & { histograms?: Array<[number, ApiHistogram]> }>;
      assert.equal(rows.length, 1, `${selector}: one series`);
      prom.set(seriesKey(rows[0]!.metric), (rows[0]!.histograms ?? []).map(([ts, h]) => [Math.round(ts * 1000), h]));
    }
    const staleMarkers = fixtureSeries.reduce((n, s) => n + s.samples.filter((x) => x?.sum === STALE_NAN_BITS).length, 0);
    const want = total(prom) + staleMarkers;
    stored = await until(`Strata to hold all ${want} histogram samples`, async () => {
      const got = await strataHistograms(strata!.base);
      return total(got) >= want ? got : undefined;
    });
  });

  after(async () => {
    await b?.stop();
    await a?.stop();
    target?.close();
    await stopAll();
    removeTempDirs();
  });

  it('stores every raw histogram sample as Prometheus shows it, and each stale marker', () => {
    assert.equal(prom.size, fixtureSeries.length, `Prometheus holds ${prom.size} fixture series`);
    assert.deepEqual([...stored.keys()].sort(), [...prom.keys()].sort());
    let compared = 0;
    for (const [key, histograms] of stored) {
      const reference = prom.get(key)!;
      const live = histograms.filter((h) => !isStale(h.sum));
      assert.equal(live.length, reference.length, `${key}: ${live.length} samples in Strata, ${reference.length} in Prometheus`);
      for (const [i, h] of live.entries()) {
        const [t, reference] = prom.get(key)![i]!;
        assert.equal(Number(h.timestamp), t, `${key}: sample ${i}'s timestamp`);
        assert.deepEqual(rendered(h), { ...reference, buckets: reference.buckets ?? [] }, `${key} at ${t}`);
        compared++;
      }
      const kase = /case="([^"]*)"/.exec(key)?.[1];
      const family = /__name__="([^"]*)"/.exec(key)?.[1];
      const spec = fixtureSeries.find((s) => s.kase === kase && s.family === family)!;
      const staleAt = spec.samples.flatMap((x, n) => (x?.sum === STALE_NAN_BITS ? [timestampOf(n)] : []));
      assert.deepEqual(histograms.filter((h) => isStale(h.sum)).map((h) => Number(h.timestamp)), staleAt, `${key}: stale markers`);
    }
    assert.ok(compared > 1000, `compared ${compared} samples`);
  });

  it('cuts a block that Prometheus reads: PromQL over it answers exactly as over Prometheus\' own TSDB', async () => {
    const [block] = await until('Strata to cut a block from its head', async () => {
      const blocks = strataBlocks(strata!.dataDir);
      return blocks.length > 0 ? blocks : undefined;
    });
    const [dir, minT, maxT] = block!;
    b = await startPrometheus('histograms-b', () => 'global:\n  scrape_interval: 1h\n', ['--enable-feature=native-histograms'], {
      seed: (dataDir) => cpSync(dir, join(dataDir, dir.slice(dir.lastIndexOf('/') + 1)), { recursive: true }),
    });
    const start = (minT + 60_000) / 1000;
    const end = (maxT - 1) / 1000;
    const step = 450;
    // One family a query: the functions drop the metric name, and the families share `case` values.
    const families = [...new Set(fixtureSeries.map((f) => f.family))];
    const counters = [...new Set(fixtureSeries.filter((f) => f.type === 'HISTOGRAM').map((f) => f.family))];
    const queries = [
      ...families.flatMap((f) => [`histogram_count(${f})`, `histogram_sum(${f})`, `histogram_fraction(0, 0.5, ${f})`]),
      ...counters.flatMap((f) => [`histogram_quantile(0.9, rate(${f}[1m]))`, `histogram_fraction(-1, 1, rate(${f}[1m]))`]),
    ];
    let points = 0;
    for (const q of queries) {
      const fromA = byMetric((await a!.queryRange(q, start, end, step)).result as PromSeries[]);
      const fromB = byMetric((await b.queryRange(q, start, end, step)).result as PromSeries[]);
      assert.ok(fromA.size > 0, `${q}: A answers something`);
      assert.deepEqual([...fromB.keys()].sort(), [...fromA.keys()].sort(), `${q}: the same series (block ${minT}..${maxT})`);
      for (const [key, s] of fromA) {
        assert.deepEqual(fromB.get(key)!.values, s.values, `${q} ${key}`);
        points += s.values!.length;
      }
    }
    assert.ok(points > 100, `compared ${points} points`);
  });
});
