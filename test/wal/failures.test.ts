// What the disk can do to a writer: short writes, a write failing half way,
// an fsync failing. The fs functions are swapped for the duration of a test.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { afterEach, describe, mock, test } from 'node:test';
import { Wal, WalError } from '../../src/wal/index.js';
import { memoryLog, payloadFor, replayAll, tempDir } from './support/helpers.js';

const quiet = { fsyncIntervalMs: 60_000 };
const realWritev = fs.writevSync;

/** Replaces fs.writevSync for every importer (named imports included). */
function swapWritev(impl: (fd: number, parts: readonly NodeJS.ArrayBufferView[], position?: number | null) => number): void {
  mock.method(fs, 'writevSync', impl);
  syncBuiltinESMExports();
}

/** Writes at most `max` bytes of `parts`, as a short write would. */
function writeSome(fd: number, parts: readonly NodeJS.ArrayBufferView[], position: number | null | undefined, max: number): number {
  const all = Buffer.concat(parts.map((p) => new Uint8Array(p.buffer, p.byteOffset, p.byteLength)));
  return fs.writeSync(fd, all, 0, Math.min(max, all.byteLength), position ?? null);
}

afterEach(() => {
  mock.restoreAll();
  syncBuiltinESMExports();
});

describe('WAL under disk failures', () => {
  test('short writes are resumed until the whole record is written', async () => {
    const dir = tempDir();
    const wal = await Wal.open({ dir, ...quiet }, () => {});
    let calls = 0;
    swapWritev((fd, parts, position) => {
      calls++;
      return writeSome(fd, parts, position, 1000);
    });
    wal.append(1, [payloadFor(1, 2500), payloadFor(2, 2500)]);
    mock.restoreAll();
    syncBuiltinESMExports();
    assert.ok(calls >= 5, `${calls} writes`);
    await wal.close();
    const [r] = await replayAll({ dir, ...quiet });
    assert.deepEqual(r?.payload, Buffer.concat([payloadFor(1, 2500), payloadFor(2, 2500)]));
  });

  test('a write that fails half way throws and is cut back, and later appends follow the earlier records', async () => {
    const dir = tempDir();
    const wal = await Wal.open({ dir, ...quiet }, () => {});
    wal.append(1, payloadFor(1, 100));
    let calls = 0;
    swapWritev((fd, parts, position) => {
      if (++calls === 1) return writeSome(fd, parts, position, 700);
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    });
    assert.throws(() => wal.append(1, payloadFor(2, 3000)), /ENOSPC/);
    mock.restoreAll();
    syncBuiltinESMExports();
    wal.append(1, payloadFor(3, 100));
    await wal.close();
    assert.deepEqual((await replayAll({ dir, ...quiet })).map((r) => r.payload.readUInt32BE(0)), [1, 3]);
  });

  test('after a failed fsync, sync() rejects and appends are refused, with an error log line', async () => {
    const dir = tempDir();
    const log = memoryLog();
    const wal = await Wal.open({ dir, log, ...quiet }, () => {});
    wal.append(1, payloadFor(1, 100));
    mock.method(fs, 'fdatasync', (_fd: number, cb: (err: Error | null) => void) => {
      setImmediate(() => cb(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })));
    });
    syncBuiltinESMExports();
    const failed = (e: unknown) => e instanceof WalError && e.reason === 'failed' && /EIO/.test(e.message);
    await assert.rejects(wal.sync(), failed);
    mock.restoreAll();
    syncBuiltinESMExports();
    await assert.rejects(wal.sync(), failed, 'a later fsync cannot make up for the lost one');
    assert.throws(() => wal.append(1, payloadFor(2, 10)), failed);
    assert.ok(log.lines.some((l) => l.level === 'error' && /fsync/.test(l.msg)));
    await assert.rejects(wal.close(), failed);
  });
});
