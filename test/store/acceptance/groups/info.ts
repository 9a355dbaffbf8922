// What a Thanos Query learns before it queries: thanos.info.Info/Info (it
// calls it first) and the deprecated thanos.Store/Info, before and after
// data. Rules: issue 4, WIRE.md "Messages the specification leaves open"
// (info service) and "Tenants". What the store says it is follows its kind
// (StoreKind): Thanos Receive answers ComponentType receive, storeType
// RECEIVE and one label set per tenant; Thanos' sidecar answers sidecar,
// SIDECAR and its external labels as the one label set (it has no tenants).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { StoreType, grpc, type Label } from '../../support/client.js';
import { T0, codeName } from '../../support/calls.js';
import { compareLabelSets, labelSet, show } from '../../support/series-check.js';
import { samplesOf } from '../../support/write-request.js';
import type { StoreFactory, StoreKind, StoreUnderTest } from '../store-under-test.js';

const EXT = { region: 'eu-west', zone: 'z1' };
const MIN = T0 - 5_000n;
const MAX = T0 + 7_000n;

const sortedSets = (sets: { labels: Label[] }[]) => sets.map((s) => show(labelSet(s.labels.map((l) => [l.name, l.value] as const))));
const perTenant = (...tenants: string[]) =>
  tenants.map((t) => labelSet({ ...EXT, tenant_id: t })).sort(compareLabelSets).map(show);
/** label_sets with data in `tenants`: one set per tenant where the tenant label is external, else the external labels alone. */
const labelSetsOf = (kind: StoreKind, ...tenants: string[]) => (kind.tenants === 'external' ? perTenant(...tenants) : [show(labelSet(EXT))]);
const STORE_TYPE: Record<StoreKind['component'], number> = { receive: StoreType.RECEIVE, sidecar: StoreType.SIDECAR };
const STORE_TYPE_NAME: Record<StoreKind['component'], string> = { receive: 'RECEIVE', sidecar: 'SIDECAR' };

/** Info before and after data, against the stores `factory` opens. */
export function infoGroup(factory: StoreFactory): void {
  describe('info before and after data', () => {
    const { component, tenants } = factory.kind;
    let client: StoreUnderTest;

    before(async () => {
      client = await factory.open({ externalLabels: EXT });
    });

    after(async () => {
      await client?.close();
    });

    test(`Info service on an empty store: ComponentType ${component}, sharding and without_replica_labels supported`, async () => {
      const a = await client.info();
      assert.equal(a.code, grpc.status.OK, `Info answered ${codeName(a.code)}: ${a.details}`);
      const r = a.response!;
      assert.equal(r.ComponentType, component);
      assert.ok(r.store, 'store info unset');
      assert.equal(r.store.supports_sharding, true);
      assert.equal(r.store.supports_without_replica_labels, true);
    });

    test(`Store.Info (deprecated) answers storeType ${STORE_TYPE_NAME[component]} and the external labels`, async () => {
      const a = await client.storeInfo();
      assert.equal(a.code, grpc.status.OK, `Store/Info answered ${codeName(a.code)}: ${a.details}`);
      assert.equal(a.response!.storeType, STORE_TYPE[component]);
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

      const holding = tenants === 'external' ? 'one set per tenant (external labels plus the tenant label)' : 'the external labels alone (no tenants)';
      test(`Info service: label_sets hold ${holding}`, async () => {
        const r = (await client.info()).response!;
        assert.deepEqual(sortedSets(r.label_sets).sort(), labelSetsOf(factory.kind, 'default-tenant', 'team-a').sort());
      });

      test('Info service: store min_time is the oldest sample, max_time reaches the newest', async () => {
        const r = (await client.info()).response!;
        assert.ok(r.store);
        assert.equal(BigInt(r.store.min_time), MIN);
        assert.ok(BigInt(r.store.max_time) >= MAX, `max_time ${r.store.max_time} is before the newest sample ${MAX}`);
      });

      const others = factory.kind.exemplarsAndMetadata === true;
      test(`Info service leaves unset what the store does not serve (rules, targets, query${others ? '' : ', metadata, exemplars'})`, async () => {
        const r = (await client.info()).response!;
        // Thanos Query takes a set field as "this API is served".
        assert.deepEqual([r.rules, r.targets, r.query], [null, null, null]);
        if (!others) assert.deepEqual([r.metric_metadata, r.exemplars], [null, null]);
      });

      if (others) {
        test('Info service sets metric_metadata and exemplars (their APIs are served); exemplars\' times say none is held yet', async () => {
          const r = (await client.info()).response!;
          assert.deepEqual(r.metric_metadata, {});
          const ex = r.exemplars as { min_time: string; max_time: string } | null;
          assert.ok(ex !== null, 'exemplars unset');
          assert.ok(BigInt(ex.min_time) > BigInt(ex.max_time), `min_time ${ex.min_time} max_time ${ex.max_time}`);
        });
      }

      test(`Store.Info: labels are the external labels, label_sets ${tenants === 'external' ? 'one per tenant' : 'the external labels alone'}, min_time/max_time of the data`, async () => {
        const r = (await client.storeInfo()).response!;
        assert.deepEqual(show(labelSet(r.labels.map((l) => [l.name, l.value] as const))), show(labelSet(EXT)));
        assert.deepEqual(sortedSets(r.label_sets).sort(), labelSetsOf(factory.kind, 'default-tenant', 'team-a').sort());
        assert.equal(BigInt(r.min_time), MIN);
        assert.ok(BigInt(r.max_time) >= MAX, `max_time ${r.max_time} is before the newest sample ${MAX}`);
        assert.equal(r.storeType, STORE_TYPE[component]);
      });
    });
  });
}
