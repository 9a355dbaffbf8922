/**
 * receiveDefaultTenantId (--receive.default-tenant-id): the tenant of a
 * write or HTTP read that names none, as Thanos Receive's flag; and the
 * checks on it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { InvalidArgumentError, Strata } from '../../src/index.js';
import { resolveOptions } from '../../src/lib/resolve-options.js';
import { postWrite, samples, type Series } from '../http/prometheus/support/prom-wire.js';
import { call } from '../http/support/http-client.js';

const root = mkdtempSync(join(tmpdir(), 'strata-default-tenant-'));
after(() => rmSync(root, { recursive: true, force: true }));

async function tenantsOf(store: Strata, name: string): Promise<string[]> {
  const out: string[] = [];
  for await (const s of store.select(name)) out.push(s.labels.tenant_id!);
  return out;
}

const series = (name: string): Series => ({ labels: [['__name__', name]], samples: samples(2, 1000, 1000, (i) => i) });

describe('receiveDefaultTenantId', () => {
  let store: Strata;
  let base: string;
  before(async () => {
    store = await Strata.open({ dataDir: join(root, 'data'), workers: 1, httpAddress: '127.0.0.1:0', receiveDefaultTenantId: 'team-z' });
    base = `http://${store.listening.http!.address}`;
  });
  after(() => store.close());

  test('append without a tenant stores under the default tenant', async () => {
    await store.append({ labels: { __name__: 'lib_up' }, timestamps: [1000], values: [1] });
    assert.deepEqual(await tenantsOf(store, 'lib_up'), ['team-z']);
  });

  test('an HTTP remote write without THANOS-TENANT goes to the default tenant, one with it to its own', async () => {
    assert.ok((await postWrite(base, [series('http_up')])).status < 300);
    assert.ok((await postWrite(base, [series('http_up')], { tenant: 'team-a' })).status < 300);
    assert.deepEqual((await tenantsOf(store, 'http_up')).sort(), ['team-a', 'team-z']);
  });

  test('an HTTP read without THANOS-TENANT sees the default tenant\'s series only', async () => {
    const answer = async (tenant?: string): Promise<unknown> => {
      const got = await call(base, 'GET', '/api/v1/label/__name__/values', tenant === undefined ? {} : { headers: { 'thanos-tenant': tenant } });
      return (got.json as { data: string[] }).data;
    };
    assert.deepEqual(await answer(), ['http_up', 'lib_up']);
    assert.deepEqual(await answer('team-a'), ['http_up']);
    assert.deepEqual(await answer('default-tenant'), []);
  });
});

test('the default tenant is Thanos\' default-tenant', () => {
  assert.equal(resolveOptions({ dataDir: 'x' }).receiveDefaultTenantId, 'default-tenant');
});

test('an empty tenant or one with a slash is refused, as Thanos refuses it', () => {
  for (const bad of ['', 'a/b', '/']) {
    assert.throws(() => resolveOptions({ dataDir: 'x', receiveDefaultTenantId: bad }), (err: unknown) =>
      err instanceof InvalidArgumentError && /receiveDefaultTenantId: .* is not a tenant name/.test(err.message));
  }
});
