import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { files, openSmall, rmTemp, task, tempDir } from './support/store-fixtures.js';

describe('record store: last id', () => {
  const dirs: string[] = [];
  const fresh = () => { const d = tempDir(); dirs.push(d); return d; };
  after(() => dirs.forEach(rmTemp));

  test('starts at 0 and follows the highest id written, whatever the order', async () => {
    const store = await openSmall(fresh());
    assert.equal(store.lastId('tasks'), 0);
    await store.commit([{ op: 'put', collection: 'tasks', id: 5, value: task(5) }]);
    await store.commit([{ op: 'put', collection: 'tasks', id: 2, value: task(2) }]);
    assert.equal(store.lastId('tasks'), 5);
    assert.equal(store.lastId('users'), 0);
    await store.close();
  });

  test('does not go down when the highest record is deleted, nor after a restart', async () => {
    const dir = fresh();
    let store = await openSmall(dir);
    await store.commit([{ op: 'put', collection: 'tasks', id: 1, value: task(1) }]);
    await store.commit([{ op: 'put', collection: 'tasks', id: 2, value: task(2) }]);
    await store.commit([{ op: 'delete', collection: 'tasks', id: 2 }]);
    assert.equal(store.lastId('tasks'), 2);
    await store.close();
    store = await openSmall(dir);
    assert.equal(store.lastId('tasks'), 2);
    assert.equal(store.count('tasks'), 1);
    await store.close();
  });

  test('survives compaction throwing away every record that carried it, and a restart after', async () => {
    const dir = fresh();
    let store = await openSmall(dir);
    for (let id = 1; id <= 200; id++) await store.commit([{ op: 'put', collection: 'comments', id, value: { id, body: 'b'.repeat(20) } }]);
    for (let id = 1; id <= 200; id++) await store.commit([{ op: 'delete', collection: 'comments', id }]);
    // Roll once more so that every put and delete sits in a sealed segment.
    for (let id = 1; id <= 60; id++) await store.commit([{ op: 'put', collection: 'tasks', id, value: task(id) }]);
    const before = files(dir).length;
    await store.compactNow();
    assert.ok(files(dir).length < before, `compaction removed files: ${before} -> ${files(dir).length}`);
    assert.equal(store.count('comments'), 0);
    assert.equal(store.lastId('comments'), 200);
    await store.close();
    store = await openSmall(dir);
    assert.equal(store.lastId('comments'), 200);
    assert.equal(store.lastId('tasks'), 60);
    await store.commit([{ op: 'delete', collection: 'tasks', id: 60 }]);
    await store.compactNow();
    await store.close();
    store = await openSmall(dir);
    assert.equal(store.lastId('tasks'), 60);
    await store.close();
  });
});
