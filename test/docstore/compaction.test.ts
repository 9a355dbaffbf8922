import assert from 'node:assert/strict';
import { cpSync, readdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { CompactionStep, SegmentRecordStore } from '../../src/docstore/index.js';
import { rng } from '../support/series.js';
import { contents, files, memoryLogger, openSmall, rmTemp, task, tempDir } from './support/store-fixtures.js';

function dirBytes(dir: string): number {
  return readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

/** Churn: creates, updates and deletes over several segments, seeded. */
async function churn(store: SegmentRecordStore, seed: number, n: number): Promise<void> {
  const next = rng(seed);
  const ids = [...store.scan('tasks')].map(([id]) => id);
  for (let i = 0; i < n; i++) {
    const r = next();
    if (r < 0.4 || ids.length === 0) {
      const id = store.lastId('tasks') + 1;
      ids.push(id);
      await store.commit([{ op: 'put', collection: 'tasks', id, value: task(id) }]);
    } else {
      const at = Math.floor(next() * ids.length);
      const id = ids[at]!;
      if (r >= 0.75) ids.splice(at, 1);
      await store.commit([r < 0.75
        ? { op: 'put', collection: 'tasks', id, value: task(id, `v${i}`, r < 0.6) }
        : { op: 'delete', collection: 'tasks', id }]);
    }
  }
}

/** Resolves at a compaction step, so a test can wait for background work. */
function stepWaiter() {
  let waiters: Array<{ step: CompactionStep; resolve: () => void }> = [];
  return {
    hook: (step: CompactionStep) => {
      waiters = waiters.filter((w) => (w.step === step ? (w.resolve(), false) : true));
    },
    next: (step: CompactionStep) => new Promise<void>((resolve) => waiters.push({ step, resolve })),
  };
}

describe('record store: compaction', () => {
  const dirs: string[] = [];
  const fresh = () => { const d = tempDir(); dirs.push(d); return d; };
  after(() => dirs.forEach(rmTemp));

  test('drops superseded and deleted records, keeps every live one, before and after a restart', async () => {
    const dir = fresh();
    let store = await openSmall(dir);
    await churn(store, 1, 1500);
    const before = contents(store);
    const bytes = dirBytes(dir);
    await store.compactNow();
    assert.deepEqual(contents(store), before);
    const s = store.stats();
    assert.ok(s.compactions > 0);
    assert.ok(dirBytes(dir) < bytes / 2, `${bytes} -> ${dirBytes(dir)} bytes`);
    await store.close();
    store = await openSmall(dir);
    assert.deepEqual(contents(store), before);
    await store.close();
  });

  test('runs in the background once a sealed segment is half garbage', async () => {
    const dir = fresh();
    const steps = stepWaiter();
    const store = await openSmall(dir, { compactRatio: 0.5, onCompactionStep: steps.hook });
    const installed = steps.next('installed');
    for (let id = 1; id <= 80; id++) await store.commit([{ op: 'put', collection: 'tasks', id, value: task(id) }]);
    assert.equal(store.stats().compactions, 0);
    for (let id = 1; id <= 60; id++) await store.commit([{ op: 'delete', collection: 'tasks', id }]);
    await installed;
    assert.equal(store.count('tasks'), 20);
    assert.deepEqual([...store.scan('tasks')].map(([id]) => id), Array.from({ length: 20 }, (_, i) => 61 + i));
    await store.close();
  });

  test('keeps a delete while an older segment still holds the put it covers', async () => {
    const dir = fresh();
    const steps = stepWaiter();
    let store = await openSmall(dir, { compactRatio: 0.5, onCompactionStep: steps.hook });
    // Segment 1: a full segment of puts, all live but id 1, so never worth compacting.
    let last = 0;
    while (files(dir).length < 2) await store.commit([{ op: 'put', collection: 'tasks', id: ++last, value: task(last) }]);
    const first = files(dir)[0]!;
    // Later segments: the delete of id 1, then churn on one id: mostly garbage.
    await store.commit([{ op: 'delete', collection: 'tasks', id: 1 }]);
    const installed = steps.next('installed');
    for (let v = 0; v < 120; v++) await store.commit([{ op: 'put', collection: 'tasks', id: last, value: task(last, `v${v}`) }]);
    await installed;
    assert.ok(files(dir).includes(first), 'the oldest segment was left alone');
    assert.equal(store.get('tasks', 1), undefined);
    await store.close();
    store = await openSmall(dir);
    assert.equal(store.get('tasks', 1), undefined, 'the put in the oldest segment stays deleted');
    assert.equal(store.count('tasks'), last - 1);
    // Compacting from the oldest segment may drop the delete with the put.
    await store.compactNow();
    assert.ok(!files(dir).includes(first));
    await store.close();
    store = await openSmall(dir);
    assert.equal(store.get('tasks', 1), undefined);
    assert.deepEqual(store.get('tasks', last), task(last, 'v119'));
    await store.close();
  });

  test('readers and writers keep working while a compaction runs, and what they change wins', async () => {
    const dir = fresh();
    let resume!: () => void;
    const paused = new Promise<void>((r) => { resume = r; });
    let reached!: () => void;
    const atRename = new Promise<void>((r) => { reached = r; });
    let store = await openSmall(dir, {
      onCompactionStep: async (step) => { if (step === 'renamed') { reached(); await paused; } },
    });
    for (let id = 1; id <= 150; id++) await store.commit([{ op: 'put', collection: 'tasks', id, value: task(id) }]);
    for (let id = 1; id <= 150; id += 2) await store.commit([{ op: 'delete', collection: 'tasks', id }]);
    const compacting = store.compactNow();
    await atRename;
    // Mid-compaction: the copies are on disk but the index still points at the old files.
    await store.commit([{ op: 'put', collection: 'tasks', id: 2, value: task(2, 'changed meanwhile') }]);
    await store.commit([{ op: 'delete', collection: 'tasks', id: 4 }]);
    await store.commit([{ op: 'put', collection: 'tasks', id: 151, value: task(151) }]);
    assert.deepEqual(store.get('tasks', 6), task(6));
    resume();
    await compacting;
    const expected = contents(store);
    assert.deepEqual(store.get('tasks', 2), task(2, 'changed meanwhile'));
    assert.equal(store.get('tasks', 4), undefined);
    assert.deepEqual(store.get('tasks', 6), task(6));
    await store.close();
    store = await openSmall(dir);
    assert.deepEqual(contents(store), expected);
    await store.close();
  });

  test('a crash at any step of a compaction recovers exactly the acknowledged data', async () => {
    for (const allDeleted of [false, true]) {
      const dir = fresh();
      const snaps: Array<[string, string]> = [];
      const snapshot = (name: string) => { const to = fresh(); cpSync(dir, to, { recursive: true }); snaps.push([name, to]); };
      const store = await openSmall(dir, { onCompactionStep: (step) => snapshot(step) });
      await churn(store, 7, 600);
      if (allDeleted) {
        for (const [id] of [...store.scan('tasks')]) await store.commit([{ op: 'delete', collection: 'tasks', id }]);
        for (let id = 1; id <= 60; id++) await store.commit([{ op: 'put', collection: 'users', id, value: { id } }]);
      }
      const expected = contents(store);
      snapshot('before');
      await store.compactNow();
      assert.deepEqual(contents(store), expected);
      await store.close();
      // Deletes of old files may stop half way: leave the temp file out and drop only the oldest.
      const written = snaps.find(([n]) => n === 'written')![1];
      const half = fresh();
      cpSync(written, half, { recursive: true });
      for (const f of files(half).filter((f) => f.endsWith('.tmp'))) unlinkSync(join(half, f));
      unlinkSync(join(half, files(half)[0]!));
      snaps.push(['old files half deleted', half]);
      assert.ok(snaps.some(([n]) => n === (allDeleted ? 'installed' : 'renamed')));
      for (const [name, snap] of snaps) {
        const log = memoryLogger();
        const again = await openSmall(snap, { logger: log });
        assert.deepEqual(contents(again), expected, `crash at "${name}" (${allDeleted ? 'nothing kept' : 'some kept'})`);
        await again.close();
        if (name === 'written') assert.ok(log.lines.some((l) => /unfinished compaction/.test(l.msg)), 'the temp file is removed');
        if (name === 'renamed') assert.ok(log.lines.some((l) => /compaction had replaced/.test(l.msg)), 'replaced segments are removed');
      }
    }
  });

  test('a temp file left by a crash is removed on open', async () => {
    const dir = fresh();
    let store = await openSmall(dir);
    await store.commit([{ op: 'put', collection: 'tasks', id: 1, value: task(1) }]);
    await store.close();
    writeFileSync(join(dir, '0000000009.seg.tmp'), Buffer.alloc(100, 7));
    store = await openSmall(dir);
    assert.deepEqual(files(dir), ['0000000001.seg']);
    assert.deepEqual(store.get('tasks', 1), task(1));
    await store.close();
  });
});
