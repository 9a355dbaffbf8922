import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { MatchType } from '../../src/index/types.js';
import { InvalidLabelsError } from '../../src/errors/errors.js';
import { batchBuilder, bitsHex, decodeSelected, openSmallDb, samples, tempDir } from '../support/db.js';
import { STALE_NAN_BITS, fromBits } from '../support/series.js';

const tmp = tempDir();
after(() => tmp.remove());
let n = 0;
const fresh = () => openSmallDb(`${tmp.dir}/${n++}`);
const all = [{ type: MatchType.NEQ, name: '__name__', value: '' }];

test('appends samples and reads them back byte-exact, stale marker included', async () => {
  const db = await fresh();
  const b = batchBuilder();
  b.add(['__name__', 'up', 'job', 'a'], ...samples([1000, 2000, 3000], [1, 0, 1]));
  const ts = BigInt64Array.of(1000n, 2000n);
  const vs = fromBits([BigInt(`0x${bitsHex(2.5)}`), STALE_NAN_BITS]);
  b.add(['__name__', 'up', 'job', 'b'], ts, vs);
  const r = db.append(b.finish());
  assert.equal(r.appended, 5);
  assert.equal(r.created, 2);
  const got = decodeSelected(db.querier().select(all, 0, 10_000));
  assert.deepEqual(got.map((s) => s.labels), [['__name__', 'up', 'job', 'a'], ['__name__', 'up', 'job', 'b']]);
  assert.deepEqual(got[1]!.t, [1000, 2000]);
  assert.deepEqual(got[1]!.v, [bitsHex(2.5), STALE_NAN_BITS.toString(16)]);
  await db.close();
});

test('rejects a sample older than the newest as out of order and keeps the valid rest of the batch', async () => {
  const db = await fresh();
  const b = batchBuilder();
  b.add(['a', '1'], ...samples([1000, 2000], [1, 2]));
  db.append(b.finish());
  b.add(['a', '1'], ...samples([1500, 3000], [9, 3]));
  b.add(['a', '2'], ...samples([500], [5]));
  const r = db.append(b.finish());
  assert.equal(r.outOfOrder, 1);
  assert.equal(r.appended, 2);
  assert.deepEqual(r.first.outOfOrder, { entry: 0, t: 1500 });
  const got = decodeSelected(db.querier().select([{ type: MatchType.EQ, name: 'a', value: '1' }], 0, 10_000));
  assert.deepEqual(got[0]!.t, [1000, 2000, 3000]);
  await db.close();
});

test('accepts and ignores a duplicate of the newest sample; another value at that time is a conflict', async () => {
  const db = await fresh();
  const b = batchBuilder();
  b.add(['a', '1'], ...samples([1000], [1]));
  db.append(b.finish());
  b.add(['a', '1'], ...samples([1000, 1000, 2000], [1, 7, 2]));
  const r = db.append(b.finish());
  assert.equal(r.ignored, 1);
  assert.equal(r.conflict, 1);
  assert.equal(r.appended, 1);
  const got = decodeSelected(db.querier().select([{ type: MatchType.EQ, name: 'a', value: '1' }], 0, 10_000));
  assert.deepEqual(got[0]!.t, [1000, 2000]);
  await db.close();
});

test('an empty store accepts samples from 1970; later, samples older than the retention window are too old', async () => {
  const db = await openSmallDb(`${tmp.dir}/${n++}`, { retentionMs: 3_600_000 });
  const b = batchBuilder();
  b.add(['a', '1'], ...samples([0, 1], [1, 2]));
  assert.equal(db.append(b.finish()).appended, 2);
  b.add(['a', '2'], ...samples([10_000_000], [1]));
  db.append(b.finish());
  b.add(['a', '3'], ...samples([10_000_000 - 3_600_001, 10_000_000 - 3_600_000], [1, 2]));
  const r = db.append(b.finish());
  assert.equal(r.tooOld, 1);
  assert.equal(r.appended, 1);
  assert.equal(db.minValidTime, 10_000_000 - 3_600_000);
  await db.close();
});

test('series of two tenants with the same labels are distinct series', async () => {
  const db = await fresh();
  for (const tenant of ['t1', 't2']) {
    const b = batchBuilder(['tenant_id', tenant]);
    b.add(['__name__', 'up', 'zone', 'z'], ...samples([1000], [1]));
    db.append(b.finish());
  }
  const got = db.querier().select(all, 0, 10_000);
  assert.deepEqual(got.map((s) => s.labels), [
    ['__name__', 'up', 'tenant_id', 't1', 'zone', 'z'],
    ['__name__', 'up', 'tenant_id', 't2', 'zone', 'z'],
  ]);
  await db.close();
});

test('the same series twice in one batch is one series', async () => {
  const db = await fresh();
  const b = batchBuilder();
  b.add(['a', '1'], ...samples([1000], [1]));
  b.add(['a', '1'], ...samples([2000], [2]));
  const r = db.append(b.finish());
  assert.equal(r.created, 1);
  assert.equal(r.appended, 2);
  assert.equal(db.seriesCount, 1);
  await db.close();
});

test('the batch builder refuses invalid label sets', () => {
  const b = batchBuilder();
  const [t, v] = samples([1], [1]);
  assert.throws(() => b.add(['', 'x'], t, v), InvalidLabelsError);
  assert.throws(() => b.add(['a', ''], t, v), InvalidLabelsError);
  assert.throws(() => b.add(['a', '1', 'a', '2'], t, v), /duplicate/);
  assert.throws(() => b.add(['b', '1', 'a', '2'], t, v), /not sorted/);
});

test('appending by series id after a lookup by labels', async () => {
  const db = await fresh();
  const b = batchBuilder();
  b.add(['a', '1'], ...samples([1000], [1]));
  db.append(b.finish());
  const id = db.querier().select([{ type: MatchType.EQ, name: 'a', value: '1' }], 0, 5000).length;
  assert.equal(id, 1);
  b.addRef(1, ...samples([2000], [2]));
  assert.equal(db.append(b.finish()).appended, 1);
  await db.close();
});

test('rejections become one typed error naming each reason, its count and its first series', async () => {
  const { rejectionError } = await import('../../src/ingest/rejections.js');
  const { SamplesRejectedError } = await import('../../src/errors/errors.js');
  const db = await fresh();
  const b = batchBuilder();
  b.add(['__name__', 'up', 'job', 'a'], ...samples([1000, 2000], [1, 2]));
  const first = b.finish();
  assert.equal(rejectionError(db.append(first), first), undefined);
  b.add(['__name__', 'up', 'job', 'a'], ...samples([1500, 2000, 2500], [1, 9, 3]));
  const batch = b.finish();
  const err = rejectionError(db.append(batch), batch);
  assert.ok(err instanceof SamplesRejectedError);
  assert.deepEqual(err.counts, { 'out-of-order': 1, conflict: 1, 'too-old': 0, 'too-far-in-future': 0 });
  assert.match(err.message, /^2 samples rejected: out of order sample \(1, first \{__name__="up", job="a"\} at 1500\); duplicate sample for timestamp \(1, first/);
  const { samplesAppended, samplesIgnored, outOfOrder, conflict, tooOld, seriesCreated } = db.counters;
  assert.deepEqual({ samplesAppended, samplesIgnored, outOfOrder, conflict, tooOld, seriesCreated }, { samplesAppended: 3, samplesIgnored: 0, outOfOrder: 1, conflict: 1, tooOld: 0, seriesCreated: 1 });
  await db.close();
});

test('two label sets with the same hash stay two series (collisions are checked)', async () => {
  const { viewAppendBatch } = await import('../../src/record/append-batch.js');
  const db = await fresh();
  const b = batchBuilder();
  b.add(['a', '1'], ...samples([1000], [1]));
  b.add(['a', '2'], ...samples([1000], [2]));
  const batch = b.finish();
  // Force both entries onto one hash, as a real collision would.
  const v = viewAppendBatch(batch);
  const entries = new DataView(batch, v.entriesAt);
  entries.setBigUint64(32, entries.getBigUint64(0, true), true);
  const r = db.append(batch);
  assert.equal(r.created, 2);
  assert.equal(db.seriesCount, 2);
  b.add(['a', '2'], ...samples([2000], [3]));
  const again = b.finish();
  new DataView(again, viewAppendBatch(again).entriesAt).setBigUint64(0, entries.getBigUint64(0, true), true);
  assert.equal(db.append(again).appended, 1);
  const got = decodeSelected(db.querier().select([{ type: MatchType.EQ, name: 'a', value: '2' }], 0, 10_000));
  assert.deepEqual(got[0]!.t, [1000, 2000]);
  assert.deepEqual(got[0]!.v, [bitsHex(2), bitsHex(3)]);
  await db.close();
});

test('label names and values over part of the time range, without matchers, come from the series with data there', async () => {
  const db = await fresh();
  const b = batchBuilder();
  b.add(['__name__', 'early', 'a', '1'], ...samples([1000], [1]));
  b.add(['__name__', 'late', 'b', '2'], ...samples([9000], [1]));
  db.append(b.finish());
  const q = db.querier();
  assert.deepEqual(q.labelNames([], 0, 5000), ['__name__', 'a']);
  assert.deepEqual(q.labelValues('__name__', [], 5000, 10_000), ['late']);
  assert.deepEqual(q.labelNames([], 20_000, 30_000), []);
  await db.close();
});

test('label names and values under a matcher every series meets (one tenant) equal the unmatched answer; under one that splits, only the matched series count', async () => {
  const db = await fresh();
  const b = batchBuilder();
  b.add(['__name__', 'up', 'job', 'a', 'tenant_id', 't1'], ...samples([1000], [1]));
  b.add(['__name__', 'up', 'region', 'eu', 'tenant_id', 't1'], ...samples([1000], [1]));
  db.append(b.finish());
  const q = db.querier();
  const t1 = [{ type: MatchType.EQ, name: 'tenant_id', value: 't1' }];
  assert.deepEqual(q.labelNames(t1, 0, 5000), ['__name__', 'job', 'region', 'tenant_id']);
  assert.deepEqual(q.labelValues('job', t1, 0, 5000), ['a']);
  assert.deepEqual(q.labelValues('absent', t1, 0, 5000), []);
  assert.deepEqual(q.labelNames(t1, 5000, 6000), [], 'no series has data there');
  b.add(['__name__', 'other', 'tenant_id', 't2', 'zone', 'z'], ...samples([1000], [1]));
  db.append(b.finish());
  assert.deepEqual(q.labelNames(t1, 0, 5000), ['__name__', 'job', 'region', 'tenant_id']);
  assert.deepEqual(q.labelValues('__name__', t1, 0, 5000), ['up']);
  assert.deepEqual(db.querier().labelValues('tenant_id', [], 0, 5000), ['t1', 't2']);
  await db.close();
});
