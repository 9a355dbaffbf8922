// What a Thanos Query learns before it queries: thanos.info.Info/Info (it
// calls it first) and the deprecated thanos.Store/Info, before and after
// data. Rules: issue 4, WIRE.md "Messages the specification leaves open"
// (info service) and "Tenants".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { StoreType, grpc, type Label } from '../../support/client.js';
import { T0, codeName } from '../../support/calls.js';
import { compareLabelSets, labelSet, show } from '../../support/series-check.js';
import { samplesOf } from '../../support/write-request.js';
import type { StoreFactory, StoreUnderTest } from '../store-under-test.js';

const EXT = { region: 'eu-west', zone: 'z1' };
const MIN = T0 - 5_000n;
const MAX = T0 + 7_000n;

const sortedSets = (sets: { labels: Label[] }[]) => sets.map((s) => show(labelSet(s.labels.map((l) => [l.name, l.value] as const))));
const perTenant = (...tenants: string[]) =>
  tenants.map((t) => labelSet({ ...EXT, tenant_id: t })).sort(compareLabelSets).map(show);

/** Info before and after data, against the stores `factory` opens. */
export function infoGroup(factory: StoreFactory): void {
  describe('info before and after data', () => {
    let client: StoreUnderTest;

    before(async () => {
      client = await factory.open({ externalLabels: EXT });
    });

    after(async () => {
      await client?.close();
    });

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
        await client.write({ timeseries: [{ labels: [['__name__', 'm_info']], samples: samplesOf(3, T0, 1000n, (i) => i) }] });
        await client.write({
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
}
