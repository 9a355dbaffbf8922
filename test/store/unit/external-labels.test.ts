import { test } from 'node:test';
import assert from 'node:assert/strict';
import xxhash from 'xxhash-wasm';
import { ExternalLabels, withoutLabels } from '../../../src/store/external-labels.js';
import { ShardFilter } from '../../../src/store/shard.js';
import { instantiateHeadWasm } from '../../../src/wasm/head.js';
import { MatchType } from '../../../src/index/index.js';

const ext = new ExternalLabels([['b', 'ext'], ['region', 'eu']]);

test('external labels are merged in order and win over stored labels of the same name', () => {
  assert.deepEqual(ext.apply(['a', '1', 'b', 'stored', 'z', '9']), ['a', '1', 'b', 'ext', 'region', 'eu', 'z', '9']);
  assert.deepEqual(ext.apply([]), ['b', 'ext', 'region', 'eu']);
});

test('matchers on external labels are decided against them and removed; others pass through', () => {
  const r = ext.decide([
    { type: MatchType.EQ, name: 'region', value: 'eu' },
    { type: MatchType.RE, name: 'job', value: 'a|b' },
  ]);
  assert.equal(r.matches, true);
  assert.deepEqual(r.rest.map((m) => m.name), ['job']);
  assert.equal(ext.decide([{ type: MatchType.NRE, name: 'region', value: 'e.*' }]).matches, false);
  assert.throws(() => ext.decide([{ type: MatchType.RE, name: 'region', value: '(' }]), /InvalidMatcher|pattern|missing/i);
});

test('without_replica_labels drops only the labels named', () => {
  assert.deepEqual(withoutLabels(['a', '1', 'replica', 'r1', 'z', '2'], new Set(['replica'])), ['a', '1', 'z', '2']);
});

test('shard hashes are xxHash64 of name 0xFF value 0xFF over the kept labels', async () => {
  const { h64Raw } = await xxhash();
  const wasm = instantiateHeadWasm();
  const labels = ['__name__', 'up', 'instance', 'host:9100', 'job', 'node', 'région', 'é'];
  const expected = (pairs: string[]) => {
    const parts: Buffer[] = [];
    for (let i = 0; i < pairs.length; i += 2) parts.push(Buffer.from(pairs[i]!), Buffer.of(0xff), Buffer.from(pairs[i + 1]!), Buffer.of(0xff));
    return h64Raw(new Uint8Array(Buffer.concat(parts)), 0n);
  };
  const all = ShardFilter.of(wasm, { shardIndex: 0n, totalShards: 3n, by: false, labels: [] })!;
  assert.equal(all.hash(labels), expected(labels));
  const byJob = ShardFilter.of(wasm, { shardIndex: 0n, totalShards: 3n, by: true, labels: ['job', 'instance'] })!;
  assert.equal(byJob.hash(labels), expected(['instance', 'host:9100', 'job', 'node']));
  const without = ShardFilter.of(wasm, { shardIndex: 0n, totalShards: 3n, by: false, labels: ['instance'] })!;
  assert.equal(without.hash(labels), expected(['__name__', 'up', 'job', 'node', 'région', 'é']));
  assert.equal(ShardFilter.of(wasm, { shardIndex: 0n, totalShards: 0n, by: false, labels: [] }), undefined);
  for (const total of [1n, 2n, 5n]) {
    let hits = 0;
    for (let i = 0n; i < total; i++) {
      if (ShardFilter.of(wasm, { shardIndex: i, totalShards: total, by: false, labels: [] })!.keeps(labels)) hits++;
    }
    assert.equal(hits, 1, `exactly one of ${total} shards keeps the series`);
  }
});
