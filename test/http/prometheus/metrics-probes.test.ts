// GET /metrics, /-/healthy and /-/ready, and the not-ready phase of start-up,
// black box.
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { after, describe, test } from 'node:test';
import { call } from '../support/http-client.js';
import { assertProblem } from '../support/problem.js';
import { bitsOf, postRead, postWrite, samples, type Series } from './support/prom-wire.js';
import { removeTempDirs, serve, stopAll } from './support/serve.js';

const T0 = 1_700_000_000_000;
/** Long enough to look at the server before it is ready, even on a busy machine. */
const OPEN_DELAY_MS = 2000;

after(async () => {
  await stopAll();
  removeTempDirs();
});

/** The value of the sample `name{labels}` in an exposition, or undefined. */
function value(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(labels === '' ? `${name} ` : `${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function scrape(base: string): Promise<string> {
  const a = await call(base, 'GET', '/metrics');
  assert.equal(a.status, 200);
  assert.match(a.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return a.text;
}

function grpcInfo(address: string): Promise<void> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const id = (b: Buffer) => b;
  return new Promise<void>((resolve, reject) => {
    client.makeUnaryRequest('/thanos.info.Info/Info', id, id, Buffer.alloc(0), (err) => {
      client.close();
      if (err) reject(err);
      else resolve();
    });
  });
}

const up = (job: string, n: number, t0 = T0): Series => ({ labels: [['__name__', 'm_up'], ['job', job]], samples: samples(n, t0, 15_000, (i) => bitsOf(i)) });

describe('start-up: HTTP first, ready once the engine is open and both servers listen', () => {
  test('healthy 200, ready 503 and the engine\'s routes 503 until ready; then everything answers', async () => {
    const strata = await serve({ env: { STRATA_TEST_OPEN_DELAY_MS: String(OPEN_DELAY_MS) }, until: 'listening' });
    const b = strata.base;
    assert.equal((await call(b, 'GET', '/-/healthy')).status, 200);
    const notReady = await call(b, 'GET', '/-/ready');
    assert.equal(notReady.status, 503);
    assert.match(notReady.text, /not ready/);
    assertProblem(await postWrite(b, [up('early', 1)]), 503);
    assert.equal((await postRead(b, [{ matchers: [[0, '__name__', 'm_up']], start: 0, end: T0 }])).status, 503);
    const labels = await call(b, 'GET', '/api/v1/labels');
    assert.equal(labels.status, 503);
    assert.equal(labels.json.errorType, 'unavailable');
    assertProblem(await call(b, 'GET', '/api/v1/tasks'), 503);
    const starting = await scrape(b);
    assert.equal(value(starting, 'strata_ready'), 0);
    assert.equal(value(starting, 'strata_wal_replay_segments_total'), 0, 'the replay\'s progress is readable before the engine is open');
    assert.equal(value(starting, 'strata_wal_replay_segments_done'), 0);
    assert.ok(!strata.stderr().includes('strata started'), 'still starting: the checks above ran in the not-ready phase');

    await strata.started();
    assert.equal((await call(b, 'GET', '/-/ready')).status, 200);
    assert.equal((await postWrite(b, [up('late', 1)])).status, 204);
    assert.equal((await call(b, 'GET', '/api/v1/tasks')).status, 200);
    assert.equal((await call(b, 'GET', '/api/v1/nothing-here')).status, 404, 'unknown paths are 404 once ready');
    assert.equal(value(await scrape(b), 'strata_ready'), 1);
    assert.equal(await strata.stop(), 0);
  });

  test('a restart replays the WAL: a log line per file, and the progress metrics end with every file done', async () => {
    const first = await serve();
    await first.started();
    assert.equal((await postWrite(first.base, [up('a', 10)])).status, 204);
    assert.equal(await first.stop(), 0);
    const second = await serve({ dataDir: first.dataDir });
    await second.started();
    const text = await scrape(second.base);
    const total = value(text, 'strata_wal_replay_segments_total')!;
    assert.ok(total >= 1, `the WAL left by the first run is replayed (${total} files)`);
    assert.equal(value(text, 'strata_wal_replay_segments_done'), total);
    assert.match(second.stderr(), /"msg":"replaying the WAL, this may take a while"/);
    assert.match(second.stderr(), /"msg":"WAL (checkpoint|segment) loaded"/);
    assert.equal(await second.stop(), 0);
  });

  test('SIGTERM during start-up stops with status 0 once start-up is done', async () => {
    const strata = await serve({ env: { STRATA_TEST_OPEN_DELAY_MS: '500' }, until: 'listening' });
    assert.equal(await strata.stop(), 0);
    assert.match(strata.stderr(), /"msg":"stopped"/);
  });
});

describe('GET /metrics', () => {
  test('lists Strata\'s families, prefixed strata_, and counts move with writes, reads and gRPC calls (probes answer 200 and HEAD)', async () => {
    const strata = await serve();
    const b = strata.base;
    const { grpcAddress } = await strata.started();
    for (const path of ['/-/healthy', '/-/ready']) {
      const a = await call(b, 'GET', path);
      assert.equal(a.status, 200);
      assert.match(a.headers.get('content-type') ?? '', /^text\/plain/);
      assert.equal((await call(b, 'HEAD', path)).status, 200);
    }
    const before = await scrape(b);
    for (const family of [
      'strata_build_info', 'strata_ready',
      'strata_samples_ingested_total', 'strata_samples_ignored_total', 'strata_histogram_samples_ingested_total', 'strata_histogram_samples_ignored_total', 'strata_samples_rejected_total', 'strata_series_created_total',
      'strata_head_series', 'strata_series_cache_series', 'strata_series_cache_bytes', 'strata_series_cache_hits_total', 'strata_series_cache_misses_total',
      'strata_wal_storage_size_bytes', 'strata_head_chunks_storage_size_bytes',
      'strata_http_requests_total', 'strata_http_request_duration_seconds',
      'strata_grpc_requests_total', 'strata_grpc_request_duration_seconds',
      'strata_pool_threads', 'strata_pool_queue_depth', 'strata_pool_utilization_ratio', 'strata_pool_tasks_completed_total',
      'strata_pool_task_run_seconds', 'strata_pool_task_wait_seconds',
      'strata_nodejs_eventloop_lag_seconds', 'strata_nodejs_eventloop_lag_p99_seconds',
      'strata_process_cpu_seconds_total', 'strata_process_resident_memory_bytes',
    ]) {
      assert.match(before, new RegExp(`^# TYPE ${family} `, 'm'), `${family} is exposed`);
    }
    for (const line of before.split('\n')) {
      if (line !== '' && !line.startsWith('#')) assert.ok(line.startsWith('strata_'), `every name starts with strata_: ${line}`);
    }
    assert.equal(value(before, 'strata_samples_ingested_total'), 0);
    assert.equal(value(before, 'strata_pool_threads'), 0, 'an idle pool runs no worker');

    assert.equal((await postWrite(b, [up('a', 50), up('b', 50)])).status, 204);
    assert.equal((await postWrite(b, [up('a', 2)])).status, 409, 'two samples older than the newest: out of order');
    assert.equal((await postRead(b, [{ matchers: [[0, '__name__', 'm_up']], start: 0, end: 2 * T0 }], { types: [0] })).status, 200);
    await grpcInfo(grpcAddress);

    const after = await scrape(b);
    assert.equal(value(after, 'strata_samples_ingested_total'), 100);
    assert.equal(value(after, 'strata_pool_threads'), 1, 'the writes started the worker');
    assert.equal(value(after, 'strata_samples_rejected_total', 'reason="out_of_order"'), 2);
    assert.equal(value(after, 'strata_samples_rejected_total', 'reason="conflict"'), 0);
    assert.equal(value(after, 'strata_series_created_total'), 2);
    assert.equal(value(after, 'strata_head_series'), 2);
    // The first write reads both series in full and the cache learns them; the second finds "a".
    assert.equal(value(after, 'strata_series_cache_misses_total'), 2);
    assert.equal(value(after, 'strata_series_cache_hits_total'), 1);
    assert.equal(value(after, 'strata_series_cache_series'), 2);
    assert.ok(value(after, 'strata_series_cache_bytes')! > 0);
    assert.ok(value(after, 'strata_wal_storage_size_bytes')! > value(before, 'strata_wal_storage_size_bytes')!, 'the WAL grew');
    assert.equal(value(after, 'strata_http_requests_total', 'route="/api/v1/write",method="POST",code="204"'), 1);
    assert.equal(value(after, 'strata_http_requests_total', 'route="/api/v1/write",method="POST",code="409"'), 1);
    assert.equal(value(after, 'strata_http_requests_total', 'route="/api/v1/read",method="POST",code="200"'), 1);
    assert.equal(value(after, 'strata_http_request_duration_seconds_count', 'route="/api/v1/write",method="POST"'), 2);
    assert.equal(value(after, 'strata_http_request_duration_seconds_bucket', 'route="/api/v1/write",method="POST",le="+Inf"'), 2);
    assert.equal(value(after, 'strata_http_requests_total', 'route="/metrics",method="GET",code="200"'), 1, 'the scrape before this one');
    assert.equal(value(after, 'strata_grpc_requests_total', 'method="/thanos.info.Info/Info",code="OK"'), 1);
    assert.equal(value(after, 'strata_grpc_request_duration_seconds_count', 'method="/thanos.info.Info/Info"'), 1);
    assert.ok(value(after, 'strata_pool_tasks_completed_total')! >= 3, 'two parses and a read ran in the pool');
    assert.equal(value(after, 'strata_pool_task_run_seconds_count'), value(after, 'strata_pool_tasks_completed_total'));
    assert.ok(value(after, 'strata_pool_task_run_seconds', 'quantile="0.99"')! > 0);
    assert.ok(value(after, 'strata_nodejs_eventloop_lag_p99_seconds')! >= 0);
    assert.equal(await strata.stop(), 0);
  });
});
