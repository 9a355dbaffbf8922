/**
 * Per-tenant write limits over gRPC WriteableStore.RemoteWrite, black box:
 * the tenant comes from the request's `tenant` field; request limits, the
 * head series limit and the concurrency limit answer ResourceExhausted,
 * memory pressure Unavailable; a refused request stores nothing
 * (strata_samples_ingested_total, read over HTTP from the same process).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { removeTempDirs, serve, stopAll, type Served } from '../../http/prometheus/support/serve.js';
import { grpc, StoreClient } from '../../store/support/client.js';
import { grpcWrite, ingested, metric, noise, scrape, T0, writeLimits } from './support.js';

const CONFIG = `write:
  global:
    max_concurrency: 2
  default:
    request:
      size_bytes_limit: 3000
      series_limit: 4
      samples_limit: 12
    head_series_limit: 6
  tenants:
    wide:
      request: { series_limit: 0, samples_limit: 0, size_bytes_limit: 0 }
      head_series_limit: 0
    narrow:
      request: { samples_limit: 2 }
`;

let dir: string;
const clients: StoreClient[] = [];

after(async () => {
  for (const c of clients) c.close();
  await stopAll();
  removeTempDirs();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

async function started(args: string[]): Promise<{ strata: Served; client: StoreClient }> {
  const strata = await serve({ args });
  const client = new StoreClient((await strata.started()).grpcAddress.replace(/^0\.0\.0\.0:/, '127.0.0.1:'));
  clients.push(client);
  return { strata, client };
}

describe('write limits over gRPC RemoteWrite', () => {
  let strata: Served;
  let client: StoreClient;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-limits-grpc-'));
    ({ strata, client } = await started(['--receive.limits-config-file', writeLimits(dir, CONFIG)]));
  });

  it('takes a request at the limits and refuses one over series, samples or size with ResourceExhausted, storing nothing', async () => {
    const ok = await client.remoteWrite(grpcWrite('g_at', 4, 3, { tenant: 'g1' }));
    assert.equal(ok.code, grpc.status.OK, ok.details);
    const before = await ingested(strata.base);
    const refused = [
      [grpcWrite('g_series', 5, 1, { tenant: 'g1' }), /^too many timeseries: 5 in the request, over the series_limit of 4 of tenant "g1"$/],
      [grpcWrite('g_samples', 4, 4, { tenant: 'g1' }), /^too many samples: 16 in the request, over the samples_limit of 12 of tenant "g1"$/],
      [grpcWrite('g_size', 1, 1, { tenant: 'g1', pad: noise(4000) }), /^write request too large: \d+ bytes, over the size_bytes_limit of 3000 of tenant "g1"$/],
    ] as const;
    for (const [bytes, message] of refused) {
      const a = await client.remoteWrite(bytes);
      assert.equal(a.code, grpc.status.RESOURCE_EXHAUSTED, a.details);
      assert.match(a.details, message);
    }
    assert.equal(await ingested(strata.base), before);
  });

  it("applies the tenant named in the request, with its own limits over the default's", async () => {
    const wide = await client.remoteWrite(grpcWrite('g_wide', 40, 10, { tenant: 'wide', pad: noise(200) }));
    assert.equal(wide.code, grpc.status.OK, wide.details);
    const narrow = await client.remoteWrite(grpcWrite('g_narrow', 3, 1, { tenant: 'narrow' }));
    assert.equal(narrow.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.match(narrow.details, /samples_limit of 2 of tenant "narrow"/);
    // No tenant field: the default tenant.
    const none = await client.remoteWrite(grpcWrite('g_none', 5, 1));
    assert.equal(none.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.match(none.details, /of tenant "default-tenant"/);
  });

  it('refuses a tenant at its head series limit with ResourceExhausted, and no other tenant', async () => {
    for (const name of ['g_hs_a', 'g_hs_b']) {
      const a = await client.remoteWrite(grpcWrite(name, 4, 1, { tenant: 'ghs' }));
      assert.equal(a.code, grpc.status.OK, a.details);
    }
    const before = await ingested(strata.base);
    const over = await client.remoteWrite(grpcWrite('g_hs_a', 1, 1, { tenant: 'ghs', t0: T0 + 60_000 }));
    assert.equal(over.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.equal(over.details, 'tenant is above active series limit: tenant "ghs" has 8 series in the head, its head_series_limit is 6');
    assert.equal(await ingested(strata.base), before);
    assert.equal((await client.remoteWrite(grpcWrite('g_hs_other', 4, 1, { tenant: 'ghs2' }))).code, grpc.status.OK);
  });

  it('refuses writes over write.global.max_concurrency with ResourceExhausted; the others are stored whole', async () => {
    const before = await ingested(strata.base);
    const N = 16;
    const answers = await Promise.all(Array.from({ length: N }, (_, k) => client.remoteWrite(grpcWrite(`g_burst_${k}`, 2000, 10, { tenant: 'wide' }))));
    const ok = answers.filter((a) => a.code === grpc.status.OK).length;
    const limited = answers.filter((a) => a.code === grpc.status.RESOURCE_EXHAUSTED);
    assert.equal(ok + limited.length, N, answers.map((a) => `${a.code} ${a.details}`).join('\n'));
    assert.ok(ok >= 2, `only ${ok} of ${N} taken`);
    assert.ok(limited.length >= 1, `none of ${N} concurrent writes was refused with max_concurrency 2`);
    for (const a of limited) assert.match(a.details, /^too many concurrent write requests: 2 in flight, write\.global\.max_concurrency is 2; retry after 1 s$/);
    assert.equal(await ingested(strata.base), before + ok * 2000 * 10);
  });

  it('counts the refusals in /metrics per tenant and reason', async () => {
    const m = await scrape(strata.base);
    const refused = (tenant: string, reason: string) => metric(m, 'strata_write_requests_refused_total', { tenant, reason });
    assert.equal(refused('g1', 'series'), 1);
    assert.equal(refused('g1', 'samples'), 1);
    assert.equal(refused('g1', 'body_size'), 1);
    assert.equal(refused('narrow', 'samples'), 1);
    assert.equal(refused('default-tenant', 'series'), 1);
    assert.equal(refused('ghs', 'head_series'), 1);
    // The tenant of a write refused before parsing is read from its tenant field.
    assert.ok(refused('wide', 'concurrency') >= 1);
    assert.equal(metric(m, 'thanos_receive_head_series_limited_requests_total', { tenant: 'ghs' }), 1);
  });
});

describe('memory pressure over gRPC', () => {
  it('answers RemoteWrite Unavailable while memory is over the limit', async () => {
    const { strata, client } = await started(['--receive.memory-limit', '1MB']);
    const a = await client.remoteWrite(grpcWrite('g_mem', 1, 1, { tenant: 'm' }));
    assert.equal(a.code, grpc.status.UNAVAILABLE, a.details);
    assert.match(a.details, /^the server is under memory pressure: .*; retry after 5 s$/);
    assert.equal(metric(await scrape(strata.base), 'strata_write_requests_refused_total', { tenant: 'm', reason: 'memory' }), 1);
    await strata.stop();
  });
});
