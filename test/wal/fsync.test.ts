import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Wal } from '../../src/wal/index.js';
import { payloadFor, tempDir } from './support/helpers.js';

/** Waits (bounded) until `cond` holds; false if it never did. */
async function eventually(cond: () => boolean, ms = 2000): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 5) {
    if (cond()) return true;
    await sleep(5);
  }
  return cond();
}

describe('WAL fsync', () => {
  test('fsyncs the open segment once per interval after a write, and not while idle', async () => {
    const wal = await Wal.open({ dir: tempDir(), fsyncIntervalMs: 40 }, () => {});
    const fsyncs = () => wal.stats().fsyncs;
    assert.ok(await eventually(() => fsyncs() === 1), 'the new segment header is synced by the first tick');
    await sleep(200);
    assert.equal(fsyncs(), 1, 'no fsync while nothing is written');
    for (let i = 0; i < 10; i++) wal.append(1, payloadFor(i, 1000));
    assert.ok(await eventually(() => fsyncs() === 2), 'the next tick syncs the appends, all in one fsync');
    await sleep(200);
    assert.equal(fsyncs(), 2);
    await wal.close();
  });

  test('waits for the interval: an append is not fsynced before it, sync() does it at once', async () => {
    const wal = await Wal.open({ dir: tempDir(), fsyncIntervalMs: 60_000 }, () => {});
    wal.append(1, payloadFor(1, 100));
    await sleep(100);
    assert.equal(wal.stats().fsyncs, 0);
    await wal.sync();
    assert.equal(wal.stats().fsyncs, 1);
    await wal.sync();
    assert.equal(wal.stats().fsyncs, 1, 'nothing new to sync');
    await wal.close();
    assert.equal(wal.stats().fsyncs, 1, 'close has nothing left to sync');
  });

  test('fsyncIntervalMs 0 fsyncs after every append', async () => {
    const wal = await Wal.open({ dir: tempDir(), fsyncIntervalMs: 0 }, () => {});
    await wal.sync();
    const start = wal.stats().fsyncs;
    for (let i = 1; i <= 5; i++) {
      wal.append(1, payloadFor(i, 100));
      assert.ok(await eventually(() => wal.stats().fsyncs === start + i), `append ${i} fsynced`);
    }
    await wal.close();
  });

  test('overlapping sync() calls share fsyncs', async () => {
    const wal = await Wal.open({ dir: tempDir(), fsyncIntervalMs: 60_000 }, () => {});
    await wal.sync();
    const start = wal.stats().fsyncs;
    wal.append(1, payloadFor(1, 100));
    await Promise.all(Array.from({ length: 20 }, () => wal.sync()));
    assert.equal(wal.stats().fsyncs - start, 1);
    await wal.close();
  });

  test('a full segment is fsynced and closed when the next one starts, close syncs the last', async () => {
    const wal = await Wal.open({ dir: tempDir(), segmentBytes: 4096, fsyncIntervalMs: 60_000 }, () => {});
    for (let i = 0; i < 30; i++) wal.append(1, payloadFor(i, 500));
    const full = wal.stats().segmentsCreated - 1;
    assert.ok(full >= 3);
    assert.ok(await eventually(() => wal.stats().fsyncs === full), 'one fsync per full segment, without a sync() call');
    await wal.close();
    assert.equal(wal.stats().fsyncs, full + 1);
  });

  test('the fsync timer does not keep the process alive', () => {
    const dir = tempDir();
    const script = `import { Wal } from './src/wal/index.ts';
      const wal = await Wal.open({ dir: ${JSON.stringify(dir)}, fsyncIntervalMs: 1000 }, () => {});
      wal.append(1, new Uint8Array(8));`;
    const started = Date.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: new URL('../..', import.meta.url).pathname, encoding: 'utf8', timeout: 10_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(Date.now() - started < 8000);
  });
});
