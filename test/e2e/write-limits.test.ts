/**
 * End to end with a real Prometheus (Debian's `prometheus` 2.42) as the
 * sender: it scrapes itself every second and remote-writes to Strata with
 * `retry_on_http_429: true`. Strata's limits file is changed under it: the
 * default head_series_limit goes to 1 (every write of the tenant, which
 * holds hundreds of series, is answered 429) for several seconds, then back
 * to 0. Prometheus must back off and retry, and once the limit is lifted,
 * every sample it scraped in the window around the 429s must be in Strata
 * (compared with Prometheus' own remote read, bit for bit), none lost,
 * none failed or dropped by Prometheus.
 *
 * Bounded (about 40 s normally), loopback only, temporary directories,
 * every process stopped in `after`. Without `prometheus` on PATH the test
 * is skipped with the reason.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ReadRequest_ResponseType } from '../../src/gen/prometheus/remote.js';
import { LabelMatcher_Type } from '../../src/gen/prometheus/types.js';
import { removeTempDirs, serve, stopAll, type Served } from '../http/prometheus/support/serve.js';
import { logLines, metric, scrape, waitFor, writeLimits } from '../ingest/limits/support.js';
import { metricValue, prometheusBinary, startPrometheus, type PrometheusProcess } from './support/prometheus.js';
import { remoteReadSeries, type ReadSeries } from './support/remote-read.js';

const SKIP = process.env.STRATA_SKIP_E2E === '1'
  ? 'STRATA_SKIP_E2E=1'
  : prometheusBinary() === undefined ? 'needs `prometheus` on PATH (Debian package prometheus 2.42)' : false;

const OPEN = 'write:\n  default:\n    head_series_limit: 0\n';
const CLOSED = 'write:\n  default:\n    head_series_limit: 1\n';
/** How long Strata answers 429: several of Prometheus' retries at max_backoff (1 s). */
const LIMITED_MS = 6000;
/** Seconds of scrapes before the 429s and after the lift that the comparison covers too. */
const MARGIN_S = 3;
const TIMEOUT_MS = 60_000;

describe('a real Prometheus backs off on 429 and loses no sample', { skip: SKIP, timeout: 240_000 }, () => {
  let dir: string;
  let file: string;
  let strata: Served;
  let prom: PrometheusProcess;

  async function remoteWriteState(): Promise<string> {
    const text = await prom.metrics();
    return ['prometheus_remote_storage_samples_failed_total', 'prometheus_remote_storage_samples_dropped_total', 'prometheus_remote_storage_samples_retried_total',
      'prometheus_remote_storage_queue_highest_sent_timestamp_seconds'].map((n) => `${n} ${metricValue(text, n)}`).join(', ');
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-e2e-limits-'));
    file = writeLimits(dir, OPEN);
    strata = await serve({ args: ['--receive.limits-config-file', file, '--receive.limits-config-reload-timer', '200ms'] });
    const url = `${strata.base}/api/v1/write`;
    prom = await startPrometheus('limits', (port) => `global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: self
    static_configs:
      - targets: ['127.0.0.1:${port}']
remote_write:
  - url: ${url}
    remote_timeout: 10s
    queue_config:
      retry_on_http_429: true
      min_backoff: 100ms
      max_backoff: 1s
      # One shard sends in WAL order: "sent a sample newer than T" means "sent everything up to T".
      min_shards: 1
      max_shards: 1
      batch_send_deadline: 500ms
`);
  });

  after(async () => {
    await prom?.stop();
    await stopAll();
    removeTempDirs();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('stores every sample scraped while it answered 429, once the limit is lifted', async () => {
    await waitFor('samples from Prometheus in Strata', async () => metric(await scrape(strata.base), 'strata_samples_ingested_total') > 0, TIMEOUT_MS);
    const start = Math.floor(Date.now() / 1000) - MARGIN_S;
    await sleep(MARGIN_S * 1000);

    writeLimits(dir, CLOSED);
    await waitFor('Strata answering 429', async () => metric(await scrape(strata.base), 'strata_write_requests_refused_total', { tenant: 'default-tenant', reason: 'head_series' }) >= 2, TIMEOUT_MS);
    const stored = metric(await scrape(strata.base), 'strata_samples_ingested_total');
    await sleep(LIMITED_MS);
    const m = await scrape(strata.base);
    assert.equal(metric(m, 'strata_samples_ingested_total'), stored, 'Strata stored samples while at its limit');
    const refusals = metric(m, 'strata_write_requests_refused_total', { tenant: 'default-tenant', reason: 'head_series' });
    assert.ok(refusals >= 3, `only ${refusals} refusals in ${LIMITED_MS} ms: Prometheus did not retry`);
    assert.ok((metricValue(await prom.metrics(), 'prometheus_remote_storage_samples_retried_total') ?? 0) > 0, await remoteWriteState());

    writeLimits(dir, OPEN);
    await waitFor('the lifted limit reloaded', () => logLines(strata.stderr(), 'limits configuration reloaded').length === 2, TIMEOUT_MS);
    const end = Math.floor(Date.now() / 1000) + MARGIN_S;
    await waitFor(`Prometheus sending past ${end}`, async () => (metricValue(await prom.metrics(), 'prometheus_remote_storage_queue_highest_sent_timestamp_seconds') ?? 0) > end, TIMEOUT_MS);

    const state = await remoteWriteState();
    const text = await prom.metrics();
    assert.equal(metricValue(text, 'prometheus_remote_storage_samples_failed_total'), 0, state);
    assert.equal(metricValue(text, 'prometheus_remote_storage_samples_dropped_total') ?? 0, 0, state);

    const everything = [{ type: LabelMatcher_Type.RE, name: '__name__', value: '.+' }];
    const withSamples = (xs: ReadSeries[]) => xs.filter((s) => s.samples.length > 0);
    const expected = withSamples(await remoteReadSeries(`${prom.base}/api/v1/read`, everything, start * 1000, end * 1000, ReadRequest_ResponseType.SAMPLES));
    const actual = withSamples(await remoteReadSeries(`${strata.base}/api/v1/read`, everything, start * 1000, end * 1000, ReadRequest_ResponseType.SAMPLES));
    const count = (xs: ReadSeries[]) => xs.reduce((n, s) => n + s.samples.length, 0);
    const scrapes = expected.find((s) => s.labels.startsWith('__name__="up"'))?.samples.length ?? 0;
    assert.ok(scrapes >= (LIMITED_MS / 1000) + MARGIN_S, `Prometheus scraped only ${scrapes} times in the window [${start}, ${end}]`);
    assert.equal(count(actual), count(expected), `samples in [${start}, ${end}]: Strata has ${count(actual)}, Prometheus ${count(expected)}; ${state}`);
    assert.deepEqual(actual, expected);
  });
});
