/**
 * Per-tenant write limits over HTTP remote write, black box: `strata serve`
 * with a limits file (Thanos Receive's YAML), Prometheus-style writes with
 * THANOS-TENANT headers. Each limit hit and not hit, a tenant's own limits
 * over the default's, the file reloaded (and a broken one ignored), the
 * concurrency limit's 429 with Retry-After, memory pressure's 503, what
 * /metrics counts, and the flags refused at start (exit 2).
 *
 * Every refused request must store nothing: strata_samples_ingested_total
 * stays where it was. Each case writes as its own tenant, so that head
 * series of one case do not count against another's limit.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { exited, spawnServe } from '../../support/serve-process.js';
import { call } from '../../http/support/http-client.js';
import { assertProblem } from '../../http/support/problem.js';
import { postWrite } from '../../http/prometheus/support/prom-wire.js';
import { removeTempDirs, serve, stopAll, type Served } from '../../http/prometheus/support/serve.js';
import { ingested, logLines, metric, noise, scrape, seriesOf, T0, waitFor, writeLimits } from './support.js';

const CONFIG = `write:
  default:
    request:
      size_bytes_limit: 4000
      series_limit: 5
      samples_limit: 20
    head_series_limit: 8
  tenants:
    big:
      request: { size_bytes_limit: 0, series_limit: 0, samples_limit: 0 }
      head_series_limit: 0
    mid:
      request:
        series_limit: 10
`;

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'strata-limits-'));
  dirs.push(d);
  return d;
}

after(async () => {
  await stopAll();
  removeTempDirs();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The problem's detail, after checking status and media type. */
function detail(answer: Awaited<ReturnType<typeof postWrite>>, status: number): string {
  assertProblem(answer, status);
  return (answer.json as { detail: string }).detail;
}

describe('write limits over HTTP remote write (limits file, reloaded)', () => {
  let strata: Served;
  let file: string;

  before(async () => {
    file = writeLimits(tempDir(), CONFIG);
    strata = await serve({ args: ['--receive.limits-config-file', file, '--receive.limits-config-reload-timer', '100ms'] });
  });

  it('accepts a request at the series and samples limits, and refuses one over either with 413, storing nothing', async () => {
    const b = strata.base;
    assert.equal((await postWrite(b, seriesOf('at_limits', 5, 4), { tenant: 't1' })).status, 204);
    const before = await ingested(b);
    assert.equal(before, 20);
    assert.match(detail(await postWrite(b, seriesOf('too_many_series', 6, 1), { tenant: 't1' }), 413),
      /^too many timeseries: 6 in the request, over the series_limit of 5 of tenant "t1"$/);
    assert.match(detail(await postWrite(b, seriesOf('too_many_samples', 5, 5), { tenant: 't1', path: '/api/v1/receive' }), 413),
      /^too many samples: 25 in the request, over the samples_limit of 20 of tenant "t1"$/);
    assert.equal(await ingested(b), before);
  });

  it('refuses an OTLP export over series_limit storing no sample, and keeps its metadata (the worker passes it on only once a minute)', async () => {
    const b = strata.base;
    const points = Array.from({ length: 6 }, (_, k) => ({ timeUnixNano: `${T0}000000`, asDouble: k, attributes: [{ key: 'i', value: { stringValue: String(k) } }] }));
    const metric = { name: 'queue.depth', unit: 'By', description: 'Items waiting.', gauge: { dataPoints: points } };
    const body = JSON.stringify({ resourceMetrics: [{ resource: { attributes: [] }, scopeMetrics: [{ scope: { name: 's' }, metrics: [metric] }] }] });
    const before = await ingested(b);
    const a = await call(b, 'POST', '/api/v1/otlp/v1/metrics', { body, headers: { 'content-type': 'application/json', 'thanos-tenant': 'otlp-meta' } });
    assert.equal(a.status, 413, a.text);
    assert.equal(await ingested(b), before);
    
    const m = await call(b, 'GET', '/api/v1/metadata?metric=queue_depth_bytes', { headers: { 'thanos-tenant': 'otlp-meta' } });
    assert.deepEqual(m.json, { status: 'success', data: { queue_depth_bytes: [{ type: 'gauge', help: 'Items waiting.', unit: 'bytes' }] } });
  });

  it('refuses a body over size_bytes_limit, as sent or once decompressed, with 413', async () => {
    const b = strata.base;
    const before = await ingested(b);
    const wide = [{ labels: [['__name__', 'wide'], ['pad', noise(5000)]] as const, samples: seriesOf('x', 1, 1)[0]!.samples }];
    assert.match(detail(await postWrite(b, wide, { tenant: 't2' }), 413), /^write request too large: \d+ bytes, over the size_bytes_limit of 4000 of tenant "t2"$/);
    // Compresses to a few hundred bytes, decompresses past 4000.
    const airy = [{ labels: [['__name__', 'airy'], ['pad', 'a'.repeat(6000)]] as const, samples: seriesOf('x', 1, 1)[0]!.samples }];
    assert.match(detail(await postWrite(b, airy, { tenant: 't2' }), 413), /^write request too large: \d+ bytes decompressed, over the size_bytes_limit of 4000 of tenant "t2"$/);
    assert.equal(await ingested(b), before);
    const fits = [{ labels: [['__name__', 'fits'], ['pad', noise(3000)]] as const, samples: seriesOf('x', 1, 1)[0]!.samples }];
    assert.equal((await postWrite(b, fits, { tenant: 't2' })).status, 204);
    assert.equal(await ingested(b), before + 1);
  });

  it("applies a tenant's own limits over the default's, field by field", async () => {
    const b = strata.base;
    // big: every limit 0, that is none.
    assert.equal((await postWrite(b, seriesOf('big_one', 50, 100), { tenant: 'big' })).status, 204);
    assert.equal((await postWrite(b, [{ labels: [['__name__', 'big_wide'], ['pad', noise(8000)]], samples: seriesOf('x', 1, 1)[0]!.samples }], { tenant: 'big' })).status, 204);
    // mid: its own series limit (10); samples (20), size (4000) and head series (8) are the default's.
    assert.match(detail(await postWrite(b, seriesOf('mid_series', 11, 1), { tenant: 'mid' }), 413), /series_limit of 10 of tenant "mid"/);
    assert.match(detail(await postWrite(b, seriesOf('mid_samples', 7, 3), { tenant: 'mid' }), 413), /samples_limit of 20 of tenant "mid"/);
    assert.equal((await postWrite(b, seriesOf('mid_ok', 10, 2), { tenant: 'mid' })).status, 204);
    assert.match(detail(await postWrite(b, seriesOf('mid_ok', 1, 1, T0 + 60_000), { tenant: 'mid' }), 429), /head_series_limit is 8/);
    // No header: the default tenant, under the default limits.
    assert.match(detail(await postWrite(b, seriesOf('default_series', 6, 1)), 413), /series_limit of 5 of tenant "default-tenant"/);
  });

  it('answers 429 to a tenant holding head_series_limit series in the head, before writing, and not to others', async () => {
    const b = strata.base;
    assert.equal((await postWrite(b, seriesOf('hs_a', 5, 1), { tenant: 'hs' })).status, 204);
    // 5 < 8: taken, even though it brings the tenant past its limit (checked before writing, as Thanos).
    assert.equal((await postWrite(b, seriesOf('hs_b', 5, 1), { tenant: 'hs' })).status, 204);
    const before = await ingested(b);
    const refused = await postWrite(b, seriesOf('hs_a', 1, 1, T0 + 60_000), { tenant: 'hs' });
    assert.match(detail(refused, 429), /^tenant is above active series limit: tenant "hs" has 10 series in the head, its head_series_limit is 8$/);
    assert.equal(refused.headers.get('retry-after'), null);
    assert.equal(await ingested(b), before);
    assert.equal((await postWrite(b, seriesOf('hs_other', 5, 1), { tenant: 'hs2' })).status, 204);
    assert.equal((await postWrite(b, seriesOf('big_more', 20, 1), { tenant: 'big' })).status, 204);
  });

  it('counts every refusal in /metrics per tenant and reason, under Thanos\' names where it has them', async () => {
    const m = await scrape(strata.base);
    const refused = (tenant: string, reason: string) => metric(m, 'strata_write_requests_refused_total', { tenant, reason });
    assert.equal(refused('t1', 'series'), 1);
    assert.equal(refused('t1', 'samples'), 1);
    assert.equal(refused('t2', 'body_size'), 2);
    assert.equal(refused('mid', 'series'), 1);
    assert.equal(refused('mid', 'samples'), 1);
    assert.equal(refused('default-tenant', 'series'), 1);
    assert.equal(refused('hs', 'head_series'), 1);
    assert.equal(refused('big', 'series'), 0);
    assert.equal(metric(m, 'thanos_receive_write_limits_hit_count', { tenant: 't1', limit: 'series' }), 1);
    assert.equal(metric(m, 'thanos_receive_write_limits_hit_sum', { tenant: 't1', limit: 'series' }), 1);
    assert.equal(metric(m, 'thanos_receive_write_limits_hit_sum', { tenant: 't1', limit: 'samples' }), 5);
    assert.equal(metric(m, 'thanos_receive_head_series_limited_requests_total', { tenant: 'hs' }), 1);
    assert.equal(metric(m, 'thanos_receive_write_limits', { tenant: '', limit: 'series' }), 5);
    assert.equal(metric(m, 'thanos_receive_write_limits', { tenant: 'mid', limit: 'samples' }), 20);
    assert.equal(metric(m, 'thanos_receive_write_limits', { tenant: 'big', limit: 'body_size' }), 0);
    assert.equal(metric(m, 'thanos_receive_head_series_limit', { tenant: '' }), 8);
    assert.equal(metric(m, 'thanos_receive_head_series_limit', { tenant: 'big' }), 0);
    assert.equal(metric(m, 'thanos_receive_limits_config_reload_total'), 0);
    assert.equal(metric(m, 'strata_write_memory_pressure'), 0);
  });

  it('takes up a changed file, keeps the limits in place when the new file is broken, and takes up the fixed one', async () => {
    const b = strata.base;
    writeLimits(join(file, '..'), CONFIG.replace('series_limit: 5', 'series_limit: 2'));
    await waitFor('the changed file reloaded', () => logLines(strata.stderr(), 'limits configuration reloaded').length === 1);
    assert.match(detail(await postWrite(b, seriesOf('r_three', 3, 1), { tenant: 'r' }), 413), /series_limit of 2 of tenant "r"/);
    assert.equal((await postWrite(b, seriesOf('r_two', 2, 1), { tenant: 'r' })).status, 204);

    writeLimits(join(file, '..'), 'write:\n  default:\n    request:\n      series_limt: 100\n');
    await waitFor('the broken file refused', () => logLines(strata.stderr(), 'limits configuration not reloaded; the limits in place stay').length === 1);
    const why = logLines(strata.stderr(), 'limits configuration not reloaded; the limits in place stay')[0]!;
    assert.match(String(why.err), /write\.default\.request\.series_limt: unknown key/);
    assert.match(detail(await postWrite(b, seriesOf('r_three', 3, 1), { tenant: 'r' }), 413), /series_limit of 2/);

    writeLimits(join(file, '..'), CONFIG.replace('series_limit: 5', 'series_limit: 3'));
    await waitFor('the fixed file reloaded', () => logLines(strata.stderr(), 'limits configuration reloaded').length === 2);
    assert.equal((await postWrite(b, seriesOf('r_three', 3, 1), { tenant: 'r' })).status, 204);
    const m = await scrape(b);
    assert.equal(metric(m, 'thanos_receive_limits_config_reload_total'), 3);
    assert.equal(metric(m, 'thanos_receive_limits_config_reload_err_total'), 1);
    assert.equal(metric(m, 'thanos_receive_write_limits', { tenant: '', limit: 'series' }), 3);
  });

  it('answers 429 with Retry-After to writes over write.global.max_concurrency; the others are stored whole', async () => {
    const b = strata.base;
    writeLimits(join(file, '..'), CONFIG.replace('write:\n', 'write:\n  global:\n    max_concurrency: 1\n'));
    await waitFor('max_concurrency in place', async () => metric(await scrape(b), 'thanos_receive_write_request_concurrent_gate_write_requests_max') === 1);
    const before = await ingested(b);
    const N = 24;
    const answers = await Promise.all(Array.from({ length: N }, (_, k) => postWrite(b, seriesOf(`burst_${k}`, 2000, 10), { tenant: 'big' })));
    const ok = answers.filter((a) => a.status === 204).length;
    const limited = answers.filter((a) => a.status === 429);
    assert.equal(ok + limited.length, N, answers.map((a) => `${a.status} ${a.text}`).join('\n'));
    assert.ok(ok >= 1, 'no write was taken');
    assert.ok(limited.length >= 1, `none of ${N} concurrent writes was refused with max_concurrency 1`);
    for (const a of limited) {
      assert.equal(a.headers.get('retry-after'), '1');
      assert.match(detail(a, 429), /^too many concurrent write requests: 1 in flight, write\.global\.max_concurrency is 1; retry after 1 s$/);
    }
    assert.equal(await ingested(b), before + ok * 2000 * 10);
    const m = await scrape(b);
    assert.equal(metric(m, 'strata_write_requests_refused_total', { tenant: 'big', reason: 'concurrency' }), limited.length);
    assert.equal(metric(m, 'thanos_receive_write_request_concurrent_gate_write_requests_in_flight'), 0);
    // One at a time is always taken.
    assert.equal((await postWrite(b, seriesOf('after_burst', 10, 1), { tenant: 'big' })).status, 204);
  });
});

describe('write limits given inline, and refused at start', () => {
  it('--receive.limits-config takes the YAML itself', async () => {
    const strata = await serve({ args: ['--receive.limits-config', 'write: {default: {request: {series_limit: 1}}}'] });
    assert.match(detail(await postWrite(strata.base, seriesOf('two', 2, 1)), 413), /series_limit of 1/);
    assert.equal((await postWrite(strata.base, seriesOf('one', 1, 1))).status, 204);
    await strata.stop();
  });

  const refusedAtStart: Array<[string, () => string[], RegExp]> = [
    ['an unknown key', () => ['--receive.limits-config-file', writeLimits(tempDir(), 'write:\n  defaults: {}\n')], /--receive\.limits-config-file: limits config: write\.defaults: unknown key/],
    ['a missing file', () => ['--receive.limits-config-file', join(tempDir(), 'nope.yaml')], /--receive\.limits-config-file: '.*nope\.yaml' does not exist/],
    ['both flags', () => ['--receive.limits-config-file', writeLimits(tempDir(), ''), '--receive.limits-config', 'write: {}'], /give one of them, not both/],
    ['an unset $(VAR)', () => ['--receive.limits-config', 'write: {default: {head_series_limit: $(STRATA_UNSET_LIMIT_VAR)}}'], /unset environment variable "STRATA_UNSET_LIMIT_VAR"/],
    ['a heap ratio over 1', () => ['--receive.heap-limit-ratio', '1.5'], /--receive\.heap-limit-ratio: '1\.5' is not a number from 0 to 1/],
    ['a memory limit that is not a size', () => ['--receive.memory-limit', 'lots'], /--receive\.memory-limit: 'lots' is not a size/],
  ];
  for (const [what, args, message] of refusedAtStart) {
    it(`exits 2 for ${what}, saying why`, async () => {
      const p = spawnServe({ dataDir: join(tempDir(), 'data'), args: args() });
      const timer = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
      const status = await exited(p.child);
      clearTimeout(timer);
      assert.equal(status.code, 2, p.stderr());
      assert.match(p.stderr(), message);
    });
  }
});

describe('memory pressure', () => {
  it('answers writes 503 with Retry-After while anonymous memory is over --receive.memory-limit; reads still work', async () => {
    const strata = await serve({ args: ['--receive.memory-limit', '1MB'] });
    const b = strata.base;
    const a = await postWrite(b, seriesOf('mem', 1, 1));
    assert.match(detail(a, 503), /^the server is under memory pressure: the process holds \d+ MiB of anonymous memory, more than the 1 MiB allowed \(--receive\.memory-limit\); retry after 5 s$/);
    assert.equal(a.headers.get('retry-after'), '5');
    assert.equal(await ingested(b), 0);
    assert.equal((await call(b, 'GET', '/-/ready')).status, 200);
    assert.equal((await call(b, 'GET', '/api/v1/labels')).status, 200);
    const m = await scrape(b);
    assert.equal(metric(m, 'strata_write_memory_pressure'), 1);
    assert.equal(metric(m, 'strata_write_requests_refused_total', { tenant: 'default-tenant', reason: 'memory' }), 1);
    assert.equal(logLines(strata.stderr(), 'memory pressure: writes are answered 503 until it passes').length, 1);
    await strata.stop();
  });

  it('answers writes 503 while the JavaScript heap is over --receive.heap-limit-ratio, and takes them under the default', async () => {
    const pressed = await serve({ args: ['--receive.heap-limit-ratio', '0.0001'] });
    assert.match(detail(await postWrite(pressed.base, seriesOf('heap', 1, 1), { tenant: 'h' }), 503), /the JavaScript heap uses \d+ MiB of its \d+ MiB limit, more than the 0\.0001 allowed/);
    await pressed.stop();
    const fine = await serve();
    assert.equal((await postWrite(fine.base, seriesOf('heap', 1, 1))).status, 204);
    assert.equal(metric(await scrape(fine.base), 'strata_write_memory_pressure'), 0);
    await fine.stop();
  });
});
