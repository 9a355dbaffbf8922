// shard_info, black box, against an independent xxHash64 (xxhash-wasm):
// where total_shards < 1 nothing is sharded; otherwise every series lands
// in exactly the shard xxhash64(name 0xFF value 0xFF ...) % total_shards
// names, hashing the answered labels (external and tenant labels included,
// replica labels removed by without_replica_labels excluded) restricted to
// `labels` when `by`, or to all but `labels` when not. Rules: WIRE.md
// "ShardInfo", proto/thanos/store/rpc.proto ShardInfo.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import xxhash from 'xxhash-wasm';
import { StoreClient, eq, type Label, type SeriesRequest } from './support/client.js';
import { T0, seriesOk, write } from './support/calls.js';
import { show, shown, type AnsweredSeries } from './support/series-check.js';
import { removeTempDirs, startStrata, stopAll, type StrataGrpc } from './support/strata-grpc.js';
import { samplesOf } from './support/write-request.js';

let strata: StrataGrpc;
let client: StoreClient;
let h64Raw: (input: Uint8Array, seed?: bigint) => bigint;

before(async () => {
  ({ h64Raw } = await xxhash());
  strata = await startStrata({ args: ['--label', 'region=eu-west', '--replica-label', 'replica'] });
  client = new StoreClient(strata.grpcAddress);
  const timeseries = [];
  for (let i = 0; i < 48; i++) {
    timeseries.push({
      labels: [['__name__', 'm_shard'], ['instance', `host-${i}`], ['job', `job-${i % 5}`], ['replica', i % 3 ? 'A' : 'B']] as const,
      samples: samplesOf(3, T0, 1000n, (k) => i + k),
    });
  }
  await write(client, { timeseries: timeseries.slice(0, 32) });
  await write(client, { timeseries: timeseries.slice(24), tenant: 'team-a' });
});

after(async () => {
  client?.close();
  await stopAll();
  removeTempDirs();
});

/** The shard a label set belongs to, computed here from the rule. */
function shardOf(labels: readonly Label[], total: bigint, by: boolean, names: readonly string[]): bigint {
  const parts: Buffer[] = [];
  for (const l of labels) {
    if (names.includes(l.name) !== by) continue;
    parts.push(Buffer.from(l.name, 'utf8'), Buffer.from([0xff]), Buffer.from(l.value, 'utf8'), Buffer.from([0xff]));
  }
  return h64Raw(Buffer.concat(parts), 0n) % total;
}

const base: SeriesRequest = { matchers: [eq('__name__', 'm_shard')] };

async function unsharded(extra: SeriesRequest = {}): Promise<AnsweredSeries[]> {
  return (await seriesOk(client, { ...base, ...extra })).series;
}

describe('shard_info', () => {
  test('the oracle agrees with xxHash64 test vectors', () => {
    // XXH64 of the empty input and of "a", seed 0 (xxHash reference values).
    assert.equal(h64Raw(new Uint8Array(0), 0n), 0xef46db3751d8e999n);
    assert.equal(h64Raw(Buffer.from('a'), 0n), 0xd24ec4f1a98c6e5bn);
  });

  test('total_shards < 1 means no sharding', async () => {
    const all = await unsharded();
    assert.equal(all.length, 56, 'two tenants: 32 + 24 series');
    for (const total of ['0', '-1']) {
      const got = await unsharded({ shard_info: { shard_index: '3', total_shards: total, by: false, labels: [] } });
      assert.deepEqual(shown(got), shown(all), `total_shards ${total}`);
    }
  });

  const cases: Array<[string, { total: number; by: boolean; labels: string[] }, SeriesRequest]> = [
    ['all labels (by=false, no labels)', { total: 3, by: false, labels: [] }, {}],
    ['by (job)', { total: 4, by: true, labels: ['job'] }, {}],
    ['without (instance)', { total: 5, by: false, labels: ['instance'] }, {}],
    ['by (region, tenant_id): external and tenant labels count', { total: 2, by: true, labels: ['region', 'tenant_id'] }, {}],
    ['all labels with skip_chunks', { total: 3, by: false, labels: [] }, { skip_chunks: true }],
    ['all labels with without_replica_labels: hashed as answered, replica removed', { total: 3, by: false, labels: [] }, { without_replica_labels: ['replica'] }],
  ];
  for (const [title, shard, extra] of cases) {
    test(`${title}: the shards partition the unsharded answer, each series where xxhash64 % ${shard.total} says`, async () => {
      const all = await unsharded(extra);
      const total = BigInt(shard.total);
      const seen = new Map<string, number>();
      let nonEmpty = 0;
      for (let index = 0n; index < total; index++) {
        const got = (await seriesOk(client, {
          ...base,
          ...extra,
          shard_info: { shard_index: String(index), total_shards: String(total), by: shard.by, labels: shard.labels },
        })).series;
        if (got.length > 0) nonEmpty++;
        for (const s of got) {
          const key = show(s.labels);
          assert.equal(seen.get(key), undefined, `${key} answered in shards ${seen.get(key)} and ${index}`);
          seen.set(key, Number(index));
          assert.equal(shardOf(s.labels, total, shard.by, shard.labels), index, `${key} answered in shard ${index}`);
        }
      }
      assert.deepEqual([...seen.keys()].sort(), shown(all).sort(), 'the union of the shards is not the unsharded answer');
      assert.ok(nonEmpty >= 2, 'the data should spread over more than one shard');
    });
  }

  test('series sharing the `by` labels land in the same shard', async () => {
    const got = (await seriesOk(client, {
      ...base, skip_chunks: true, shard_info: { shard_index: '0', total_shards: '3', by: true, labels: ['job'] },
    })).series;
    const jobs = new Set(got.map((s) => s.labels.find((l) => l.name === 'job')?.value));
    const all = await unsharded({ skip_chunks: true });
    const want = all.filter((s) => jobs.has(s.labels.find((l) => l.name === 'job')?.value));
    assert.deepEqual(shown(got), shown(want));
  });
});
