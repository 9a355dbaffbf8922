// What a Thanos Query learns before it queries: thanos.info.Info/Info (it
// calls it first), the deprecated thanos.Store/Info, gRPC health, and
// server reflection (grpcurl without proto files). Rules: issue 4, WIRE.md
// "Messages the specification leaves open" (info service) and "Tenants".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { StoreClient, StoreType, grpc, type Label } from './support/client.js';
import { T0, codeName, write } from './support/calls.js';
import { compareLabelSets, labelSet, show } from './support/series-check.js';
import { removeTempDirs, startStrata, stopAll, type StrataGrpc } from './support/strata-grpc.js';
import { samplesOf } from './support/write-request.js';

const EXT = { region: 'eu-west', zone: 'z1' };
const MIN = T0 - 5_000n;
const MAX = T0 + 7_000n;

let strata: StrataGrpc;
let client: StoreClient;

before(async () => {
  strata = await startStrata({ args: Object.entries(EXT).flatMap(([n, v]) => ['--label', `${n}=${v}`]) });
  client = new StoreClient(strata.grpcAddress);
});

after(async () => {
  client?.close();
  await stopAll();
  removeTempDirs();
});

const sortedSets = (sets: { labels: Label[] }[]) => sets.map((s) => show(labelSet(s.labels.map((l) => [l.name, l.value] as const))));
const perTenant = (...tenants: string[]) =>
  tenants.map((t) => labelSet({ ...EXT, tenant_id: t })).sort(compareLabelSets).map(show);

describe('health and reflection', () => {
  test('grpc.health.v1.Health/Check answers SERVING once started', async () => {
    const deadline = Date.now() + 5_000;
    let a = await client.health();
    while (a.response?.status !== 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      a = await client.health();
    }
    assert.equal(a.code, grpc.status.OK, `Health/Check answered ${codeName(a.code)}: ${a.details}`);
    assert.equal(a.response!.status, 1, 'not SERVING');
  });

  async function reflectedServices(): Promise<Record<string, string[] | string>> {
    const listed: Record<string, string[] | string> = {};
    for (const version of ['v1', 'v1alpha'] as const) {
      const a = await client.reflect(version, { host: '', list_services: '*' });
      listed[version] = a.code === 0 ? (a.response!.list_services_response?.service ?? []).map((s) => s.name) : `${codeName(a.code)}: ${a.details}`;
    }
    return listed;
  }

  for (const want of [
    ['thanos.Store', 'thanos.WriteableStore', 'thanos.info.Info'],
    // grpcurl calls health through reflection too (`grpcurl HOST grpc.health.v1.Health/Check`), as with any Go server.
    ['grpc.health.v1.Health'],
  ]) {
    test(`server reflection (v1 or v1alpha) lists ${want.join(', ')}`, async () => {
      const listed = await reflectedServices();
      const ok = Object.values(listed).some((names) => Array.isArray(names) && want.every((w) => names.includes(w)));
      assert.ok(ok, `reflection does not list ${want.join(', ')}: ${JSON.stringify(listed)}`);
    });
  }

  test('server reflection serves the file descriptors of thanos.Store (what grpcurl needs)', async () => {
    const answers: string[] = [];
    for (const version of ['v1', 'v1alpha'] as const) {
      const a = await client.reflect(version, { host: '', file_containing_symbol: 'thanos.Store' });
      const files = a.response?.file_descriptor_response?.file_descriptor_proto ?? [];
      if (a.code === 0 && files.length > 0 && files.some((f) => f.includes(Buffer.from('thanos.Store')) || f.includes(Buffer.from('Series')))) return;
      answers.push(`${version}: ${codeName(a.code)} ${a.details} ${files.length} files ${JSON.stringify(a.response?.error_response ?? null)}`);
    }
    assert.fail(`no file descriptor for thanos.Store: ${answers.join('; ')}`);
  });
});

describe('info before and after data', () => {
  test('Info service on an empty store: ComponentType receive, sharding and without_replica_labels supported', async () => {
    const a = await client.info();
    assert.equal(a.code, grpc.status.OK, `Info answered ${codeName(a.code)}: ${a.details}`);
    const r = a.response!;
    assert.equal(r.ComponentType, 'receive');
    assert.ok(r.store, 'store info unset');
    assert.equal(r.store.supports_sharding, true);
    assert.equal(r.store.supports_without_replica_labels, true);
  });

  test('Store.Info (deprecated) answers storeType RECEIVE and the external labels', async () => {
    const a = await client.storeInfo();
    assert.equal(a.code, grpc.status.OK, `Store/Info answered ${codeName(a.code)}: ${a.details}`);
    assert.equal(a.response!.storeType, StoreType.RECEIVE);
    assert.deepEqual(show(labelSet(a.response!.labels.map((l) => [l.name, l.value] as const))), show(labelSet(EXT)));
  });

  describe('with data in two tenants', () => {
    before(async () => {
      await write(client, { timeseries: [{ labels: [['__name__', 'm_info']], samples: samplesOf(3, T0, 1000n, (i) => i) }] });
      await write(client, {
        timeseries: [{ labels: [['__name__', 'm_info']], samples: [{ t: MIN, v: 1 }, { t: MAX, v: 2 }] }],
        tenant: 'team-a',
      });
    });

    test('Info service: label_sets hold one set per tenant (external labels plus the tenant label)', async () => {
      const r = (await client.info()).response!;
      assert.deepEqual(sortedSets(r.label_sets).sort(), perTenant('default-tenant', 'team-a').sort());
    });

    test('Info service: store min_time is the oldest sample, max_time reaches the newest', async () => {
      const r = (await client.info()).response!;
      assert.ok(r.store);
      assert.equal(BigInt(r.store.min_time), MIN);
      assert.ok(BigInt(r.store.max_time) >= MAX, `max_time ${r.store.max_time} is before the newest sample ${MAX}`);
    });

    test('Info service leaves unset what Strata does not serve (rules, metadata, targets, exemplars, query)', async () => {
      const r = (await client.info()).response!;
      // Thanos Query takes a set field as "this API is served".
      assert.deepEqual([r.rules, r.metric_metadata, r.targets, r.exemplars, r.query], [null, null, null, null, null]);
    });

    test('Store.Info: labels are the external labels, label_sets one per tenant, min_time/max_time of the data', async () => {
      const r = (await client.storeInfo()).response!;
      assert.deepEqual(show(labelSet(r.labels.map((l) => [l.name, l.value] as const))), show(labelSet(EXT)));
      assert.deepEqual(sortedSets(r.label_sets).sort(), perTenant('default-tenant', 'team-a').sort());
      assert.equal(BigInt(r.min_time), MIN);
      assert.ok(BigInt(r.max_time) >= MAX, `max_time ${r.max_time} is before the newest sample ${MAX}`);
      assert.equal(r.storeType, StoreType.RECEIVE);
    });
  });
});
