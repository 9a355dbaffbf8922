import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { InvalidWriteError, RecordStoreStateError } from '../../src/docstore/index.js';
import type { WriteOp } from '../../src/docstore/types.js';
import { contents, files, openSmall, rmTemp, task, tempDir } from './support/store-fixtures.js';

describe('record store: reads and writes', () => {
  const dirs: string[] = [];
  const fresh = () => { const d = tempDir(); dirs.push(d); return d; };
  after(() => dirs.forEach(rmTemp));

  test('answers a put at once, as a value and as its exact JSON bytes', async () => {
    const store = await openSmall(fresh());
    const value = { id: 1, title: 'Write the store', completed: false, note: 'ünïcode ✓' };
    const done = store.commit([{ op: 'put', collection: 'tasks', id: 1, value }]);
    assert.deepEqual(store.get('tasks', 1), value, 'visible before the fsync');
    assert.equal(Buffer.from(store.getJson('tasks', 1)!).toString('utf8'), JSON.stringify(value));
    await done;
    assert.equal(store.get('tasks', 2), undefined);
    assert.equal(store.getJson('users', 1), undefined, 'collections have their own ids');
    await store.close();
  });

  test('keeps each collection apart, counts live records and scans them by id', async () => {
    const store = await openSmall(fresh());
    for (const id of [3, 1, 2, 5]) await store.commit([{ op: 'put', collection: 'tasks', id, value: task(id) }]);
    await store.commit([{ op: 'put', collection: 'users', id: 1, value: { id: 1, name: 'Ada' } }]);
    await store.commit([{ op: 'delete', collection: 'tasks', id: 2 }]);
    assert.equal(store.count('tasks'), 3);
    assert.equal(store.count('users'), 1);
    assert.equal(store.count('comments'), 0);
    assert.deepEqual([...store.scan('tasks')].map(([id]) => id), [1, 3, 5]);
    assert.deepEqual([...store.scan('tasks', 1)], [[3, task(3)], [5, task(5)]]);
    assert.deepEqual([...store.scan('tasks', 5)], []);
    await store.close();
  });

  test('a scan sees records added ahead of it and skips those deleted ahead of it', async () => {
    const store = await openSmall(fresh());
    for (let id = 1; id <= 100; id++) void store.commit([{ op: 'put', collection: 'tasks', id, value: task(id) }]);
    const seen: number[] = [];
    for (const [id] of store.scan('tasks')) {
      seen.push(id);
      if (id === 10) {
        // Deleting most ids sweeps the scan's array; the scan must carry on.
        for (let d = 11; d <= 90; d++) void store.commit([{ op: 'delete', collection: 'tasks', id: d }]);
        void store.commit([{ op: 'put', collection: 'tasks', id: 101, value: task(101) }]);
      }
    }
    assert.deepEqual(seen, [...Array.from({ length: 10 }, (_, i) => i + 1), ...Array.from({ length: 11 }, (_, i) => i + 91)]);
    await store.close();
  });

  test('applies the ops of one commit in order, all together', async () => {
    const store = await openSmall(fresh());
    await store.commit([
      { op: 'put', collection: 'discussions', id: 1, value: { id: 1, title: 'a', comments_count: 1 } },
      { op: 'put', collection: 'comments', id: 1, value: { id: 1, discussion_id: 1, body: 'hi' } },
      { op: 'put', collection: 'discussions', id: 1, value: { id: 1, title: 'a', comments_count: 2 } },
      { op: 'put', collection: 'comments', id: 2, value: { id: 2, discussion_id: 1, body: 'ho' } },
      { op: 'delete', collection: 'comments', id: 1 },
    ]);
    assert.deepEqual(store.get('discussions', 1), { id: 1, title: 'a', comments_count: 2 });
    assert.equal(store.count('comments'), 1);
    assert.equal(store.lastId('comments'), 2);
    await store.close();
  });

  test('refuses an invalid op synchronously and applies nothing of its commit', async () => {
    const store = await openSmall(fresh());
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const good: WriteOp = { op: 'put', collection: 'tasks', id: 7, value: task(7) };
    const bad: Array<[unknown, RegExp]> = [
      [{ op: 'put', collection: 'tasks', id: 0, value: {} }, /id 0 is not a positive integer/],
      [{ op: 'put', collection: 'tasks', id: 1.5, value: {} }, /id 1.5/],
      [{ op: 'delete', collection: 'tasks', id: -3 }, /id -3/],
      [{ op: 'put', collection: 'tasks', id: 1, value: [1, 2] }, /not a JSON object/],
      [{ op: 'put', collection: 'tasks', id: 1, value: null }, /not a JSON object/],
      [{ op: 'put', collection: 'tasks', id: 1, value: cyclic }, /cannot be written as JSON/],
      [{ op: 'put', collection: 'tasks', id: 1, value: { big: 1n } }, /cannot be written as JSON/],
      [{ op: 'put', collection: 'tasks', id: 1, value: new Date(0) }, /does not serialize to a JSON object/],
      [{ op: 'put', collection: 'widgets', id: 1, value: {} }, /unknown collection "widgets"/],
      [{ op: 'upsert', collection: 'tasks', id: 1, value: {} }, /neither put nor delete/],
    ];
    for (const [op, message] of bad) {
      assert.throws(() => store.commit([good, op as WriteOp]), (err: unknown) => err instanceof InvalidWriteError && err.opIndex === 1 && message.test(err.message));
    }
    assert.equal(store.get('tasks', 7), undefined);
    assert.equal(store.lastId('tasks'), 0);
    assert.equal(store.stats().commits, 0);
    await store.close();
  });

  test('keeps a record bigger than a segment in a segment of its own', async () => {
    const dir = fresh();
    let store = await openSmall(dir);
    await store.commit([{ op: 'put', collection: 'tasks', id: 1, value: task(1) }]);
    const big = { id: 2, title: 'x'.repeat(20_000), completed: true };
    await store.commit([{ op: 'put', collection: 'tasks', id: 2, value: big }]);
    await store.commit([{ op: 'put', collection: 'tasks', id: 3, value: task(3) }]);
    assert.deepEqual(store.get('tasks', 2), big);
    await store.close();
    store = await openSmall(dir);
    assert.deepEqual(store.get('tasks', 2), big);
    assert.equal(store.count('tasks'), 3);
    await store.close();
  });

  test('rolls to a new segment file past the size limit and reads across all of them after a restart', async () => {
    const dir = fresh();
    let store = await openSmall(dir);
    for (let id = 1; id <= 300; id++) await store.commit([{ op: 'put', collection: 'tasks', id, value: task(id) }]);
    assert.ok(files(dir).length >= 5, `several segments: ${files(dir).join(' ')}`);
    const before = contents(store);
    await store.close();
    store = await openSmall(dir);
    assert.deepEqual(contents(store), before);
    await store.close();
  });

  test('a JSON view stays readable after its segment is compacted away and the store closed', async () => {
    const dir = fresh();
    const store = await openSmall(dir);
    for (let id = 1; id <= 100; id++) await store.commit([{ op: 'put', collection: 'tasks', id, value: task(id) }]);
    const view = store.getJson('tasks', 1)!;
    for (let id = 2; id <= 100; id++) await store.commit([{ op: 'delete', collection: 'tasks', id }]);
    await store.compactNow();
    await store.close();
    assert.ok(!files(dir).includes('0000000001.seg'), 'the first segment is gone');
    assert.deepEqual(JSON.parse(Buffer.from(view).toString()), task(1));
  });

  test('refuses writes once closed', async () => {
    const store = await openSmall(fresh());
    await store.close();
    await store.close();
    assert.throws(() => store.commit([{ op: 'put', collection: 'tasks', id: 1, value: task(1) }]), RecordStoreStateError);
  });
});
