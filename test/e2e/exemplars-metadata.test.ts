/**
 * End to end with a real Prometheus 2.42 (Debian's `prometheus`): it
 * scrapes a small target serving OpenMetrics with exemplars (a new trace
 * id each scrape), keeps them itself (--enable-feature=exemplar-storage),
 * and remote-writes to Strata with `send_exemplars: true` and its metric
 * metadata (`metadata_config`, every second). Strata's
 * /api/v1/query_exemplars must then answer, for the scrapes sent, exactly
 * what Prometheus' own answers; its /api/v1/metadata what Prometheus'
 * answers for the target's families; thanos.Exemplars the same exemplars.
 *
 * One remote-write shard sends in WAL order, so once Strata holds an
 * exemplar of a scrape it holds those of every earlier scrape: the
 * comparison covers the scrapes before the newest one Strata holds.
 *
 * Bounded (about 15 s normally, 2 minutes at worst), loopback only,
 * temporary directories, every process stopped in `after`. Skipped, with
 * the reason, without `prometheus` on PATH or with STRATA_SKIP_E2E=1.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { exemplarsCall } from '../store/support/exemplars-client.js';
import { removeTempDirs, serve, stopAll, type Served } from '../http/prometheus/support/serve.js';
import { prometheusBinary, startPrometheus, type PrometheusProcess } from './support/prometheus.js';

const SKIP = process.env.STRATA_SKIP_E2E === '1'
  ? 'STRATA_SKIP_E2E=1'
  : prometheusBinary() === undefined ? 'needs `prometheus` (2.42, Debian package) on PATH' : false;
const WAIT_MS = 90_000;
/** Scrapes compared: enough to see several exemplars per series, in order. */
const SCRAPES = 5;

interface ExemplarAnswer {
  seriesLabels: Record<string, string>;
  exemplars: Array<{ labels: Record<string, string>; value: string; timestamp: number }>;
}

/** The target: one histogram and one counter, OpenMetrics with an exemplar on each line that can carry one. */
function startTarget(): Promise<{ server: Server; address: string }> {
  let scrape = 0;
  const server = createServer((_req, res) => {
    scrape++;
    const t = `t${String(scrape).padStart(4, '0')}`;
    res.setHeader('content-type', 'application/openmetrics-text; version=1.0.0; charset=utf-8');
    res.end([
      '# TYPE rpc_seconds histogram',
      '# HELP rpc_seconds RPC latency.',
      '# UNIT rpc_seconds seconds',
      `rpc_seconds_bucket{le="0.5"} ${scrape} # {trace_id="${t}a"} 0.31`,
      `rpc_seconds_bucket{le="+Inf"} ${2 * scrape} # {trace_id="${t}b",span_id="s${scrape}"} 0.875`,
      `rpc_seconds_sum ${scrape * 1.5}`,
      `rpc_seconds_count ${2 * scrape}`,
      '# TYPE jobs counter',
      '# HELP jobs Jobs done.',
      `jobs_total ${scrape} # {trace_id="${t}c"} 1`,
      '# EOF',
      '',
    ].join('\n'));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    resolve({ server, address: `127.0.0.1:${typeof a === 'object' && a !== null ? a.port : 0}` });
  }));
}

async function getData<T>(base: string, path: string): Promise<T> {
  const res = await fetch(base + path, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { status: string; data: T; error?: string };
  if (res.status !== 200 || body.status !== 'success') throw new Error(`${base}${path}: ${res.status} ${body.error ?? ''}`);
  return body.data;
}

const exemplarsPath = (query: string, start: number, end: number): string =>
  `/api/v1/query_exemplars?${new URLSearchParams({ query, start: start.toFixed(3), end: end.toFixed(3) })}`;

describe('a real Prometheus remote-writes exemplars and metadata to Strata', { skip: SKIP, timeout: 240_000 }, () => {
  let strata: Served | undefined;
  let prom: PrometheusProcess | undefined;
  let target: Server | undefined;
  let grpcAddress = '';
  /** Seconds: the compared range [START, END]. */
  let START = 0;
  let END = 0;

  before(async () => {
    strata = await serve();
    grpcAddress = (await strata.started()).grpcAddress.replace(/^0\.0\.0\.0:/, '127.0.0.1:');
    const t = await startTarget();
    target = t.server;
    START = Date.now() / 1000 - 1;
    prom = await startPrometheus('exemplars', () => `global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: target
    static_configs:
      - targets: ['${t.address}']
remote_write:
  - url: ${strata!.base}/api/v1/write
    remote_timeout: 10s
    send_exemplars: true
    metadata_config:
      send: true
      send_interval: 1s
    queue_config:
      min_shards: 1
      max_shards: 1
      batch_send_deadline: 500ms
      min_backoff: 50ms
      max_backoff: 1s
`, ['--enable-feature=exemplar-storage']);

    // Wait until Strata holds exemplars of SCRAPES + 1 scrapes; compare up to the one before the newest.
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const held = await getData<ExemplarAnswer[]>(strata.base, exemplarsPath('rpc_seconds_bucket{le="0.5"}', START, Date.now() / 1000 + 60));
      const times = held[0]?.exemplars.map((e) => e.timestamp) ?? [];
      if (times.length > SCRAPES) {
        END = times[times.length - 2]!;
        break;
      }
      if (Date.now() > deadline) throw new Error(`Strata held ${times.length} scrapes' exemplars after ${WAIT_MS} ms:\n${prom.output()}\n${strata.stderr().slice(-4000)}`);
      await sleep(250);
    }
  });

  after(async () => {
    await prom?.stop();
    await new Promise<void>((done) => (target === undefined ? done() : target.close(() => done())));
    await stopAll();
    removeTempDirs();
  });

  it('query_exemplars answers what Prometheus answers, for a metric and for a whole job', async () => {
    for (const query of ['rpc_seconds_bucket', '{job="target"}', 'jobs_total{instance=~"127.0.0.1:.*"}']) {
      const path = exemplarsPath(query, START, END);
      const theirs = await getData<ExemplarAnswer[]>(prom!.base, path);
      const ours = await getData<ExemplarAnswer[]>(strata!.base, path);
      assert.ok(theirs.length > 0 && theirs[0]!.exemplars.length >= SCRAPES - 1, `Prometheus holds too little for ${query}: ${JSON.stringify(theirs)}`);
      assert.deepEqual(ours, theirs, query);
    }
  });

  it('thanos.Exemplars answers the same exemplars, the series with the tenant label', async () => {
    const theirs = await getData<ExemplarAnswer[]>(prom!.base, exemplarsPath('rpc_seconds_bucket', START, END));
    const a = await exemplarsCall(grpcAddress, { query: 'rpc_seconds_bucket', start: BigInt(Math.round(START * 1000)), end: BigInt(Math.round(END * 1000)) });
    assert.equal(a.code, 0, a.details);
    const ours = a.messages.map((d) => ({
      seriesLabels: Object.fromEntries(d.seriesLabels.labels.filter((l) => l.name !== 'tenant_id').map((l) => [l.name, l.value])),
      exemplars: d.exemplars.map((e) => ({ labels: Object.fromEntries(e.labels.labels.map((l) => [l.name, l.value])), value: String(e.value), timestamp: Number(e.ts) / 1000 })),
    }));
    assert.deepEqual(ours, theirs);
    assert.ok(a.messages.every((d) => d.seriesLabels.labels.some((l) => l.name === 'tenant_id' && l.value === 'default-tenant')));
  });

  it('/api/v1/metadata answers what Prometheus answers for the target\'s families', async () => {
    const deadline = Date.now() + WAIT_MS;
    for (const metric of ['rpc_seconds', 'jobs']) {
      const theirs = await getData<Record<string, unknown>>(prom!.base, `/api/v1/metadata?metric=${metric}`);
      assert.equal(Object.keys(theirs).length, 1, JSON.stringify(theirs));
      for (;;) {
        const ours = await getData<Record<string, unknown>>(strata!.base, `/api/v1/metadata?metric=${metric}`);
        if (Object.keys(ours).length > 0 || Date.now() > deadline) {
          assert.deepEqual(ours, theirs, metric);
          break;
        }
        await sleep(250);
      }
    }
  });
});
