// shard_info, black box, against an independent xxHash64 (xxhash-wasm) and
// label sets the test builds itself. Thanos' rule (storepb/shard_info.go,
// tsdb.go): where total_shards < 1 nothing is sharded; otherwise a series
// is in shard xxhash64(name 0xFF value 0xFF ...) % total_shards over the
// labels it is answered with (stored labels, the tenant label, external
// labels; labels removed by without_replica_labels left out), keeping the
// labels named when `by`, all others when not. So the test predicts each
// series' answered labels from what it wrote (WIRE.md: tenant label on
// every series, external labels winning) and checks both the labels and
// the shard. Issue 10.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import xxhash from 'xxhash-wasm';
import { eq, re, type Label, type Matcher, type SeriesRequest } from '../../support/client.js';
import { T0, seriesOk } from '../../support/calls.js';
import { answeredLabels, show } from '../../support/series-check.js';
import { samplesOf, type WriteSeries } from '../../support/write-request.js';
import type { StoreFactory, StoreUnderTest } from '../store-under-test.js';

/** shard_info (by the answered labels), against the stores `factory` opens. */
export function shardingGroup(factory: StoreFactory): void {
  describe('shard_info (by the answered labels)', () => {
    let h64Raw: (input: Uint8Array, seed?: bigint) => bigint;

    interface Written {
      labels: WriteSeries['labels'];
      tenant?: string;
    }

    /** The example: {__name__="m", n="1".."8"}, default tenant. */
    const EXAMPLE: Written[] = Array.from({ length: 8 }, (_, i) => ({ labels: [['__name__', 'm'], ['n', String(i + 1)]] }));

    /** 40 series of m_shard, with a stored replica label; the last 16 written for tenant team-a. */
    const FLEET: Written[] = Array.from({ length: 40 }, (_, i) => ({
      labels: [['__name__', 'm_shard'], ['instance', `host-${i >> 1}`], ['job', `job-${i % 5}`], ['replica', i % 2 ? 'B' : 'A']],
      tenant: i < 24 ? undefined : 'team-a',
    }));

    const REGION = { region: 'eu-west' };

    async function writeAll(client: StoreUnderTest, series: readonly Written[]): Promise<void> {
      for (const tenant of [undefined, 'team-a']) {
        const timeseries = series.filter((s) => s.tenant === tenant).map((s, i) => ({ labels: s.labels, samples: samplesOf(3, T0, 1000n, (k) => i + k) }));
        if (timeseries.length > 0) await client.write({ timeseries, tenant });
      }
    }

    /** Thanos' shard of a label set, from bytes built here. */
    function shardOf(labels: readonly Label[], total: number, by: boolean, names: readonly string[]): number {
      const parts: Buffer[] = [];
      for (const l of labels) {
        if (names.includes(l.name) !== by) continue;
        parts.push(Buffer.from(l.name, 'utf8'), Buffer.from([0xff]), Buffer.from(l.value, 'utf8'), Buffer.from([0xff]));
      }
      return Number(h64Raw(Buffer.concat(parts), 0n) % BigInt(total));
    }

    /** The expected partition: for each shard, the answered label sets it holds, sorted. */
    function partition(
      series: readonly Written[], external: Record<string, string>, drop: readonly string[],
      total: number, by: boolean, names: readonly string[],
    ): string[][] {
      const out: string[][] = Array.from({ length: total }, () => []);
      for (const s of series) {
        const labels = answeredLabels(s.labels, { tenant: s.tenant, external, drop });
        out[shardOf(labels, total, by, names)]!.push(show(labels));
      }
      return out.map((p) => [...new Set(p)].sort());
    }

    interface Store {
      client: StoreUnderTest;
      external: Record<string, string>;
    }

    async function answeredShards(store: Store, matchers: Matcher[], total: number, by: boolean, names: string[], drop: string[]): Promise<string[][]> {
      const out: string[][] = [];
      for (let index = 0; index < total; index++) {
        const req: SeriesRequest = {
          matchers,
          without_replica_labels: drop,
          shard_info: { shard_index: String(index), total_shards: String(total), by, labels: names },
        };
        const { series } = await seriesOk(store.client, req);
        out.push(series.map((s) => show(s.labels)).sort());
      }
      return out;
    }

    let withRegion: Store;
    let plain: Store;

    before(async () => {
      ({ h64Raw } = await xxhash());
      withRegion = { client: await factory.open({ externalLabels: REGION }), external: REGION };
      plain = { client: await factory.open({}), external: {} };
      for (const s of [withRegion, plain]) {
        await writeAll(s.client, EXAMPLE);
        await writeAll(s.client, FLEET);
      }
    });

    after(async () => {
      await withRegion?.client.close();
      await plain?.client.close();
    });

    describe('shard_info', () => {
      test('the oracle agrees with xxHash64 test vectors', () => {
        // XXH64 of the empty input and of "a", seed 0 (xxHash reference values).
        assert.equal(h64Raw(new Uint8Array(0), 0n), 0xef46db3751d8e999n);
        assert.equal(h64Raw(Buffer.from('a'), 0n), 0xd24ec4f1a98c6e5bn);
      });

      test('total_shards < 1 means no sharding', async () => {
        const all = (await seriesOk(withRegion.client, { matchers: [eq('__name__', 'm_shard')] })).series.map((s) => show(s.labels));
        assert.equal(all.length, 40);
        for (const total of ['0', '-1']) {
          const got = await seriesOk(withRegion.client, {
            matchers: [eq('__name__', 'm_shard')], shard_info: { shard_index: '3', total_shards: total, by: false, labels: [] },
          });
          assert.deepEqual(got.series.map((s) => show(s.labels)), all, `total_shards ${total}`);
        }
      });

      test("the issue's example: each series in the shard Thanos' matcher gives its answered labels", async () => {
        // The answer carries tenant_id="default-tenant" (WIRE.md, as Thanos
        // Receive's tenant external label), so Thanos hashes it too.
        const byN = (p: string[][]) => p.map((shard) => shard.map((s) => /n="(\d)"/.exec(s)![1]).sort());
        const answered = await answeredShards(withRegion, [eq('__name__', 'm')], 3, false, ['__name__', 'region'], []);
        assert.deepEqual(byN(answered), [['1', '4', '8'], ['3', '6', '7'], ['2', '5']]);
        for (const s of answered.flat()) assert.match(s, /tenant_id="default-tenant"/);
        // Without the tenant label in the answer, the hash leaves it out too:
        // the partition of {n} alone.
        const noTenant = await answeredShards(withRegion, [eq('__name__', 'm')], 3, false, ['__name__', 'region'], ['tenant_id']);
        assert.deepEqual(byN(noTenant), [['1', '4'], ['5', '6', '7', '8'], ['2', '3']]);
        for (const s of noTenant.flat()) assert.doesNotMatch(s, /tenant_id/);
      });

      const specs: Array<{ title: string; by: boolean; names: string[]; drop: string[]; matchers: Matcher[]; series: Written[] }> = [
        { title: 'all labels (without, none named)', by: false, names: [], drop: [], matchers: [eq('__name__', 'm_shard')], series: FLEET },
        { title: 'by (job)', by: true, names: ['job'], drop: [], matchers: [eq('__name__', 'm_shard')], series: FLEET },
        { title: 'by (job, instance)', by: true, names: ['job', 'instance'], drop: [], matchers: [eq('__name__', 'm_shard')], series: FLEET },
        { title: 'without (instance)', by: false, names: ['instance'], drop: [], matchers: [eq('__name__', 'm_shard')], series: FLEET },
        { title: 'without (__name__, region)', by: false, names: ['__name__', 'region'], drop: [], matchers: [eq('__name__', 'm')], series: EXAMPLE },
        { title: 'without (n)', by: false, names: ['n'], drop: [], matchers: [eq('__name__', 'm')], series: EXAMPLE },
        { title: 'by (region, tenant_id): external and tenant labels count', by: true, names: ['region', 'tenant_id'], drop: [], matchers: [eq('__name__', 'm_shard')], series: FLEET },
        { title: 'without (instance), without_replica_labels [replica]', by: false, names: ['instance'], drop: ['replica'], matchers: [eq('__name__', 'm_shard')], series: FLEET },
        { title: 'all labels, without_replica_labels [replica, region]', by: false, names: [], drop: ['replica', 'region'], matchers: [eq('__name__', 'm_shard')], series: FLEET },
        { title: 'by (replica) while removing replica', by: true, names: ['replica'], drop: ['replica'], matchers: [eq('__name__', 'm_shard')], series: FLEET },
        { title: 'both tenants, all labels', by: false, names: [], drop: [], matchers: [re('__name__', 'm|m_shard')], series: [...EXAMPLE, ...FLEET] },
      ];

      for (const store of ['with --label region=eu-west', 'without external labels'] as const) {
        for (const spec of specs) {
          for (const total of [2, 3, 7]) {
            test(`${store}, ${spec.title}, ${total} shards: the answered partition is the one computed here`, async () => {
              const s = store === 'without external labels' ? plain : withRegion;
              const want = partition(spec.series, s.external, spec.drop, total, spec.by, spec.names);
              const got = await answeredShards(s, spec.matchers, total, spec.by, spec.names, spec.drop);
              assert.deepEqual(got, want);
              // Disjoint, and together the unsharded answer.
              const union = got.flat();
              assert.equal(new Set(union).size, union.length, 'a series answered in two shards');
              const { series } = await seriesOk(s.client, { matchers: spec.matchers, without_replica_labels: spec.drop });
              assert.deepEqual(union.sort(), [...new Set(series.map((x) => show(x.labels)))].sort());
            });
          }
        }
      }

      test('series sharing the `by` labels land in the same shard', async () => {
        for (let index = 0; index < 3; index++) {
          const got = (await seriesOk(withRegion.client, {
            matchers: [eq('__name__', 'm_shard')], skip_chunks: true,
            shard_info: { shard_index: String(index), total_shards: '3', by: true, labels: ['job'] },
          })).series;
          const jobs = new Set(got.map((s) => s.labels.find((l) => l.name === 'job')?.value));
          const all = (await seriesOk(withRegion.client, { matchers: [eq('__name__', 'm_shard')], skip_chunks: true })).series;
          const want = all.filter((s) => jobs.has(s.labels.find((l) => l.name === 'job')?.value));
          assert.deepEqual(got.map((s) => show(s.labels)), want.map((s) => show(s.labels)));
        }
      });
    });
  });
}
