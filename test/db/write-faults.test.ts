/**
 * The engine on a failing disk, with the faults injected where the WAL
 * meets the OS: an I/O error on a WAL write, a failed fsync, a chunk file
 * that cannot be written. Writes are refused (never latched) and resume
 * on their own; nothing acknowledged is lost across a restart.
 * (test/faults/disk-full.test.ts runs the real server on a full tmpfs.)
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { MatchType } from '../../src/index/types.js';
import type { Db } from '../../src/db/db.js';
import { batchBuilder, decodeSelected, openSmallDb, samples, tempDir } from '../support/db.js';

const tmp = tempDir();
after(() => tmp.remove());
let n = 0;
const all = [{ type: MatchType.NEQ, name: '__name__', value: '' }];

function ioError(code: string): Error {
  return Object.assign(new Error(`${code}: injected`), { code });
}

/** One sample at t for series a and b. */
function write(db: Db, t: number): void {
  const b = batchBuilder();
  b.add(['__name__', 'x', 'i', 'a'], ...samples([t], [t]));
  b.add(['__name__', 'x', 'i', 'b'], ...samples([t], [t]));
  db.append(b.finish());
}

function times(db: Db): number[][] {
  return decodeSelected(db.querier().select(all, 0, 1e12)).map((s) => s.t);
}

/** The engine's WAL, to inject faults into its file calls. */
function walOf(db: Db): { append: (...a: unknown[]) => number; sync: () => Promise<void> } {
  return (db as unknown as { wal: { append: (...a: unknown[]) => number; sync: () => Promise<void> } }).wal;
}

test('an I/O error on a WAL write refuses that write and those after it, then writes resume once the disk takes the held record', async () => {
  const dir = `${tmp.dir}/${n++}`;
  let db = await openSmallDb(dir);
  write(db, 1000);
  const wal = walOf(db);
  const real = wal.append.bind(wal);
  let failing = true;
  wal.append = (...a: unknown[]) => {
    if (failing) throw ioError('EIO');
    return real(...a);
  };
  assert.throws(() => write(db, 2000), /store unavailable: WAL write failed \(EIO\)/);
  assert.match(db.writeRefusal ?? '', /EIO/);
  assert.throws(() => write(db, 3000), /store unavailable/);
  assert.equal(await db.tryResumeWrites(), false);
  failing = false;
  assert.equal(await db.tryResumeWrites(), true);
  assert.equal(db.writeRefusal, undefined);
  write(db, 4000);
  // The refused write's record was held and written once the disk took it.
  assert.deepEqual(times(db), [[1000, 2000, 4000], [1000, 2000, 4000]]);
  assert.deepEqual(db.writeFaults().errors.find((e) => e.site === 'wal'), { site: 'wal', code: 'EIO', count: 2 });
  await db.close({ flush: false });
  db = await openSmallDb(dir);
  assert.deepEqual(times(db), [[1000, 2000, 4000], [1000, 2000, 4000]]);
  await db.close();
});

test('a failed WAL fsync stops writes until the head is checkpointed past the abandoned segment, then they resume', async () => {
  const dir = `${tmp.dir}/${n++}`;
  let db = await openSmallDb(dir, { walFsyncIntervalMs: 3_600_000 });
  write(db, 1000);
  const wal = walOf(db) as unknown as { cur: { sync: () => Promise<void> } };
  const seg = wal.cur;
  seg.sync = () => Promise.reject(ioError('EIO'));
  await assert.rejects(db.sync(), /EIO/);
  assert.throws(() => write(db, 2000), /store unavailable/);
  assert.equal(await db.tryResumeWrites(), true);
  write(db, 3000);
  await db.sync();
  assert.deepEqual(times(db), [[1000, 2000, 3000], [1000, 2000, 3000]]);
  await db.close({ flush: false });
  db = await openSmallDb(dir);
  // 1000 and 2000 were made durable by the checkpoint of the whole head, 3000 by the new segment.
  assert.deepEqual(times(db), [[1000, 2000, 3000], [1000, 2000, 3000]]);
  await db.close();
});

test('a chunk file that cannot be written keeps its chunks readable in memory and refuses writes until it is written', async () => {
  const dir = `${tmp.dir}/${n++}`;
  const db = await openSmallDb(dir);
  const chunks = (db as unknown as { chunks: { flush: () => void } }).chunks;
  const proto = Object.getPrototypeOf(chunks) as { write: (seg: unknown) => void };
  const target = chunks as unknown as { write: (seg: unknown) => void };
  let failing = true;
  target.write = function (seg: unknown) {
    if (failing) throw ioError('ENOSPC');
    proto.write.call(this, seg);
  };
  // 121 samples a series: the first chunk is full at 120 and cut.
  const b = batchBuilder();
  const ts = Array.from({ length: 121 }, (_, i) => 1000 + i * 1000);
  b.add(['__name__', 'x', 'i', 'a'], ...samples(ts, ts));
  db.append(b.finish());
  assert.match(db.writeRefusal ?? '', /head chunk files could not be written \(ENOSPC\)/);
  assert.deepEqual(times(db), [ts]);
  failing = false;
  assert.equal(await db.tryResumeWrites(), true);
  assert.deepEqual(times(db), [ts]);
  await db.close();
});
