import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { GroupCommit } from '../../src/docstore/group-commit.js';
import { openSmall, rmTemp, task, tempDir } from './support/store-fixtures.js';

/** A sync the test finishes by hand, counting calls. */
function manualSync() {
  const pending: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  return {
    calls: () => pending.length,
    sync: () => new Promise<void>((resolve, reject) => { pending.push({ resolve, reject }); }),
    finish: (i: number) => pending[i]!.resolve(),
    failWith: (i: number, err: unknown) => pending[i]!.reject(err),
  };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('group commit', () => {
  test('asks made in one turn share one sync, and resolve only when it is done', async () => {
    const s = manualSync();
    const group = new GroupCommit(s.sync, () => {});
    let resolved = 0;
    const asks = Array.from({ length: 50 }, () => group.request().then(() => { resolved++; }));
    await turn();
    assert.equal(s.calls(), 1);
    await turn();
    assert.equal(resolved, 0, 'nothing resolves before the sync finishes');
    s.finish(0);
    await Promise.all(asks);
    assert.equal(resolved, 50);
    assert.equal(group.rounds, 1);
  });

  test('asks made while a sync is in flight wait for the next one, and share it', async () => {
    const s = manualSync();
    const group = new GroupCommit(s.sync, () => {});
    const first = group.request();
    await turn();
    const late = Array.from({ length: 20 }, () => group.request());
    let lateDone = false;
    void Promise.all(late).then(() => { lateDone = true; });
    s.finish(0);
    await first;
    await turn();
    assert.equal(lateDone, false, 'the first sync began before they asked');
    assert.equal(s.calls(), 2, 'one more sync for all twenty');
    s.finish(1);
    await Promise.all(late);
    await group.idle();
    assert.equal(s.calls(), 2);
  });

  test('a failed sync rejects its waiters and every later ask, and is reported once', async () => {
    const s = manualSync();
    const failures: unknown[] = [];
    const group = new GroupCommit(s.sync, (err) => failures.push(err));
    const a = group.request();
    await turn();
    const b = group.request();
    s.failWith(0, new Error('EIO'));
    await assert.rejects(a, /EIO/);
    await assert.rejects(b, /EIO/);
    await assert.rejects(group.request(), /EIO/);
    assert.equal(failures.length, 1);
  });
});

describe('record store: group commit', () => {
  const dir = tempDir();
  after(() => rmTemp(dir));

  test('200 concurrent commits share a handful of fsyncs, and each resolves after one', async () => {
    const store = await openSmall(dir, { segmentBytes: 1 << 20 });
    const before = store.stats();
    const roundsSeen: number[] = [];
    await Promise.all(Array.from({ length: 200 }, (_, i) =>
      store.commit([{ op: 'put', collection: 'tasks', id: i + 1, value: task(i + 1) }]).then(() => roundsSeen.push(store.stats().syncRounds))));
    const s = store.stats();
    assert.equal(s.commits - before.commits, 200);
    assert.ok(s.syncRounds - before.syncRounds <= 2, `sync rounds: ${s.syncRounds - before.syncRounds}`);
    assert.ok(s.fsyncs - before.fsyncs <= 3, `fsyncs: ${s.fsyncs - before.fsyncs} (the segment, once the directory)`);
    assert.ok(roundsSeen.every((r) => r > before.syncRounds), 'no commit resolved before a sync round finished');
    await store.close();
  });

  test('64 committers in a loop need far fewer fsyncs than commits', async () => {
    const store = await openSmall(dir, { segmentBytes: 1 << 20 });
    const before = store.stats();
    let next = store.lastId('tasks');
    const end = next + 3000;
    await Promise.all(Array.from({ length: 64 }, async () => {
      while (next < end) {
        const id = ++next;
        await store.commit([{ op: 'put', collection: 'tasks', id, value: task(id) }]);
      }
    }));
    const fsyncs = store.stats().fsyncs - before.fsyncs;
    assert.ok(fsyncs * 10 < 3000, `${fsyncs} fsyncs for 3000 commits`);
    await store.close();
  });
});
