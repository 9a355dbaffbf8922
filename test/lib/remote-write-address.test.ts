/**
 * remoteWriteAddress (--remote-write.address): remote write on a listener
 * of its own, as Thanos Receive serves it; the HTTP address keeps the rest.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { InvalidArgumentError, Strata } from '../../src/index.js';
import { resolveOptions } from '../../src/lib/resolve-options.js';
import { postWrite, samples } from '../http/prometheus/support/prom-wire.js';
import { call } from '../http/support/http-client.js';

const root = mkdtempSync(join(tmpdir(), 'strata-rw-address-'));
after(() => rmSync(root, { recursive: true, force: true }));

const up = [{ labels: [['__name__', 'up']] as const, samples: samples(2, 1000, 1000, (i) => i) }];

describe('remoteWriteAddress', () => {
  let store: Strata;
  let http: string;
  let rw: string;
  before(async () => {
    store = await Strata.open({ dataDir: join(root, 'data'), workers: 1, httpAddress: '127.0.0.1:0', remoteWriteAddress: '127.0.0.1:0' });
    http = `http://${store.listening.http!.address}`;
    rw = `http://${store.listening.remoteWrite!.address}`;
  });
  after(() => store.close());

  test('listens apart from the HTTP address', () => {
    assert.notEqual(store.listening.remoteWrite!.port, store.listening.http!.port);
  });

  test('takes remote writes on both of Thanos\' and Prometheus\' paths', async () => {
    assert.equal((await postWrite(rw, up, { path: '/api/v1/receive' })).status, 204);
    assert.equal((await postWrite(rw, up, { path: '/api/v1/write', tenant: 't2' })).status, 204);
    const tenants: string[] = [];
    for await (const s of store.select('up')) tenants.push(s.labels.tenant_id!);
    assert.deepEqual(tenants.sort(), ['default-tenant', 't2']);
  });

  test('serves only remote write: the rest stays on the HTTP address, which no longer takes writes', async () => {
    assert.equal((await call(rw, 'GET', '/-/ready')).status, 404);
    assert.equal((await call(http, 'GET', '/-/ready')).status, 200);
    assert.equal((await postWrite(http, up)).status, 404);
  });
});

test('without it, remote write stays on the HTTP address', async () => {
  const store = await Strata.open({ dataDir: join(root, 'plain'), workers: 1, httpAddress: '127.0.0.1:0' });
  try {
    assert.equal(store.listening.remoteWrite, undefined);
    assert.equal((await postWrite(`http://${store.listening.http!.address}`, up)).status, 204);
  } finally {
    await store.close();
  }
});

test('a bad address is refused by name', () => {
  assert.throws(() => resolveOptions({ dataDir: 'x', remoteWriteAddress: 'nowhere' }), (err: unknown) =>
    err instanceof InvalidArgumentError && /^remoteWriteAddress:/.test(err.message));
});
