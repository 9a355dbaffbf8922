/**
 * End to end with real Prometheus servers (Debian's `prometheus` 2.42,
 * installed by .ci/run): Prometheus A scrapes itself every second and
 * remote-writes to Strata; Prometheus B has no data of its own and
 * remote-reads from Strata (read_recent, so every range goes to Strata).
 * After some scrapes, PromQL queries (instant and range; =, !=, =~, !~;
 * rate(), sum by()) must answer the same through B as through A, and
 * Strata's remote read (SAMPLES and STREAMED_XOR_CHUNKS) must hold the
 * samples A holds.
 *
 * Query time: T, a whole second a little in the past, after A's remote
 * write has sent a sample newer than T (one shard, so it sends in WAL
 * order: everything at or before T is in Strata). A's own TSDB has the
 * same samples up to T; later ones do not matter to a query at T.
 *
 * Bounded (about 30 s normally, a few minutes at worst), loopback only,
 * temporary directories, every process stopped in `after`. Without
 * `prometheus` on PATH the suite fails; STRATA_SKIP_E2E=1 skips it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ReadRequest_ResponseType } from '../../src/gen/prometheus/remote.js';
import { LabelMatcher_Type, type LabelMatcher } from '../../src/gen/prometheus/types.js';
import { removeDir, startStrata, type StrataProcess } from '../http/support/strata-process.js';
import { metricValue, prometheusBinary, startPrometheus, type PromAnswer, type PrometheusProcess, type PromSeries } from './support/prometheus.js';
import { remoteReadSeries, type ReadSeries } from './support/remote-read.js';

const SKIP = process.env.STRATA_SKIP_E2E === '1' ? 'STRATA_SKIP_E2E=1' : false;
/** Scrapes A must have made before the queries: enough for rate() over 30 s windows. */
const MIN_SCRAPES = 12;
/** Waits are bounded by these. */
const DATA_TIMEOUT_MS = 90_000;
const SENT_TIMEOUT_MS = 60_000;
/** Range queries cover [T - RANGE_S, T]. */
const RANGE_S = 20;

const INSTANT_AND_RANGE = [
  'up',
  'prometheus_http_requests_total{handler="/metrics"}',
  '{__name__=~"prometheus_tsdb_head_.*", job!="nope"}',
  'rate(prometheus_http_requests_total[30s])',
  'sum by (code) (prometheus_http_requests_total)',
  'count({__name__!~"go_.*", job="self"})',
  'go_gc_duration_seconds{quantile=~"0.5|1", instance!~"nowhere:.*"}',
  'sum by (job, instance) (rate(process_cpu_seconds_total[10s]))',
  'prometheus_build_info',
];

/** An answer in a canonical order: series sorted by their labels, labels by name. */
function canonical(answer: PromAnswer): unknown {
  if (!Array.isArray(answer.result) || answer.result.length === 0 || !(typeof answer.result[0] === 'object')) return answer;
  const rows = (answer.result as PromSeries[]).map((s) => ({ ...s, metric: Object.fromEntries(Object.entries(s.metric).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) }));
  rows.sort((a, b) => {
    const ka = JSON.stringify(a.metric);
    const kb = JSON.stringify(b.metric);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  return { resultType: answer.resultType, result: rows };
}

function isEmpty(answer: PromAnswer): boolean {
  return Array.isArray(answer.result) && answer.result.length === 0;
}

describe('real Prometheus servers write to and read from Strata', { skip: SKIP, timeout: 300_000 }, () => {
  let strata: StrataProcess | undefined;
  let writer: PrometheusProcess | undefined;
  let reader: PrometheusProcess | undefined;
  /** Query time (seconds since the epoch, a whole second). */
  let T = 0;

  /** What A says about its remote write, for failure messages. */
  async function remoteWriteState(): Promise<string> {
    const text = await writer!.metrics();
    const names = ['prometheus_remote_storage_samples_failed_total', 'prometheus_remote_storage_samples_dropped_total', 'prometheus_remote_storage_samples_retried_total', 'prometheus_remote_storage_queue_highest_sent_timestamp_seconds'];
    return names.map((n) => `${n} ${metricValue(text, n)}`).join(', ');
  }

  before(async () => {
    if (prometheusBinary() === undefined) {
      throw new Error('the end-to-end test needs `prometheus` on PATH (Debian package `prometheus`; .ci/run installs it). Install it (apt-get install -y prometheus) or set STRATA_SKIP_E2E=1 to skip this test.');
    }
    strata = await startStrata({});
    const ready = Date.now() + 30_000;
    for (;;) {
      const res = await fetch(`${strata.base}/-/ready`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
      if (res !== undefined) await res.arrayBuffer();
      if (res?.status === 200) break;
      if (Date.now() > ready) throw new Error(`strata not ready in 30 s (last status ${res?.status}):\n${strata.stderr()}`);
      await sleep(100);
    }
    const strataBase = strata.base;
    writer = await startPrometheus('A', (port) => `global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: self
    static_configs:
      - targets: ['127.0.0.1:${port}']
remote_write:
  - url: ${strataBase}/api/v1/write
    remote_timeout: 10s
    queue_config:
      # One shard sends in WAL order, so "sent a sample newer than T" means "sent everything up to T".
      min_shards: 1
      max_shards: 1
      max_samples_per_send: 2000
      batch_send_deadline: 500ms
      min_backoff: 50ms
      max_backoff: 1s
`);
    reader = await startPrometheus('B', () => `global:
  scrape_interval: 15s
remote_read:
  - url: ${strataBase}/api/v1/read
    read_recent: true
    remote_timeout: 10s
`);

    // B sees data once A has scraped and written; then let A make MIN_SCRAPES scrapes.
    const deadline = Date.now() + DATA_TIMEOUT_MS;
    for (;;) {
      const now = Date.now() / 1000;
      const seen = await reader.query('up', now);
      if (!isEmpty(seen)) break;
      if (Date.now() > deadline) {
        throw new Error(`B saw no data through Strata in ${DATA_TIMEOUT_MS} ms; A: ${await remoteWriteState()}\nA's log:\n${writer.output()}\nB's log:\n${reader.output()}\nStrata's log:\n${strata.stderr().slice(-4000)}`);
      }
      await sleep(250);
    }
    for (;;) {
      const n = await writer.query('count_over_time(up[5m])', Date.now() / 1000);
      const scrapes = Number((n.result as PromSeries[])[0]?.value?.[1] ?? 0);
      if (scrapes >= MIN_SCRAPES) break;
      if (Date.now() > deadline) throw new Error(`A made only ${scrapes} scrapes in ${DATA_TIMEOUT_MS} ms:\n${writer.output()}`);
      await sleep(500);
    }

    // T: a whole second in the past, once A has sent a sample newer than T.
    T = Math.floor(Date.now() / 1000) - 2;
    const sentBy = Date.now() + SENT_TIMEOUT_MS;
    for (;;) {
      const highest = metricValue(await writer.metrics(), 'prometheus_remote_storage_queue_highest_sent_timestamp_seconds') ?? 0;
      // Prometheus reports whole seconds (ms / 1000, truncated): highest > T means a sample after T was sent.
      if (highest > T) break;
      if (Date.now() > sentBy) throw new Error(`A's remote write did not get past T=${T} in ${SENT_TIMEOUT_MS} ms; A: ${await remoteWriteState()}\n${writer.output()}`);
      await sleep(250);
    }
  });

  after(async () => {
    await Promise.all([writer?.stop(), reader?.stop()]);
    if (strata !== undefined) {
      await strata.stop();
      removeDir(strata.dataDir);
    }
  });

  it('A wrote every sample to Strata without failures or drops', async () => {
    const text = await writer!.metrics();
    assert.equal(metricValue(text, 'prometheus_remote_storage_samples_failed_total'), 0, await remoteWriteState());
    assert.equal(metricValue(text, 'prometheus_remote_storage_samples_dropped_total') ?? 0, 0, await remoteWriteState());
  });

  for (const promql of INSTANT_AND_RANGE) {
    it(`answers the instant query ${promql} as A does`, async () => {
      const expected = await writer!.query(promql, T);
      assert.ok(!isEmpty(expected), `A answered nothing for ${promql} at ${T}: the comparison would prove nothing`);
      const actual = await reader!.query(promql, T);
      assert.deepEqual(canonical(actual), canonical(expected), `${promql} at ${T}`);
    });

    it(`answers the range query ${promql} as A does`, async () => {
      const expected = await writer!.queryRange(promql, T - RANGE_S, T, 1);
      assert.ok(!isEmpty(expected), `A answered nothing for ${promql} over [${T - RANGE_S}, ${T}]`);
      const actual = await reader!.queryRange(promql, T - RANGE_S, T, 1);
      assert.deepEqual(canonical(actual), canonical(expected), `${promql} over [${T - RANGE_S}, ${T}] step 1s`);
    });
  }

  const reads: Array<{ what: string; matchers: LabelMatcher[] }> = [
    { what: '{__name__=~"prometheus_tsdb_head_.*"}', matchers: [{ type: LabelMatcher_Type.RE, name: '__name__', value: 'prometheus_tsdb_head_.*' }] },
    {
      what: '{job="self", __name__!~"go_.*|process_.*", handler!=""}',
      matchers: [
        { type: LabelMatcher_Type.EQ, name: 'job', value: 'self' },
        { type: LabelMatcher_Type.NRE, name: '__name__', value: 'go_.*|process_.*' },
        { type: LabelMatcher_Type.NEQ, name: 'handler', value: '' },
      ],
    },
  ];
  for (const { what, matchers } of reads) {
    for (const type of [ReadRequest_ResponseType.STREAMED_XOR_CHUNKS, ReadRequest_ResponseType.SAMPLES]) {
      const typeName = type === ReadRequest_ResponseType.SAMPLES ? 'SAMPLES' : 'STREAMED_XOR_CHUNKS';
      it(`remote read ${typeName} of ${what} holds the samples A holds`, async () => {
        const start = (T - RANGE_S) * 1000;
        const end = T * 1000;
        const expected: ReadSeries[] = await remoteReadSeries(`${writer!.base}/api/v1/read`, matchers, start, end, type);
        assert.ok(expected.length > 0 && expected.every((s) => s.samples.length > 0), `A's own remote read answered no samples for ${what}`);
        const actual = await remoteReadSeries(`${strata!.base}/api/v1/read`, matchers, start, end, type);
        // A may answer a series whose samples are all outside the range (chunks overlap it); compare series with samples.
        const withSamples = (xs: ReadSeries[]) => xs.filter((s) => s.samples.length > 0);
        assert.deepEqual(withSamples(actual), withSamples(expected));
      });
    }
  }
});
