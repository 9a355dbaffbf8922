import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { MatchType } from '../../src/index/types.js';
import { Db } from '../../src/db/db.js';
import { batchBuilder, decodeSelected, openSmallDb, samples, tempDir } from '../support/db.js';

const tmp = tempDir();
after(() => tmp.remove());
let n = 0;
const all = [{ type: MatchType.NEQ, name: '__name__', value: '' }];

/** Writes `batches` batches of 20 series x 10 samples each. */
function fill(db: Db, batches: number, from = 0): void {
  const b = batchBuilder();
  for (let i = from; i < from + batches; i++) {
    for (let s = 0; s < 20; s++) {
      const ts = Array.from({ length: 10 }, (_, k) => (i * 10 + k) * 15_000);
      b.add(['__name__', 'm', 's', String(s)], ...samples(ts, ts.map((t) => t / 15_000 + s)));
    }
    db.append(b.finish());
  }
}

function snapshot(db: Db): string {
  return JSON.stringify(decodeSelected(db.querier().select(all, -Infinity, Infinity)));
}

function walSegments(dir: string): string[] {
  return readdirSync(`${dir}/wal`).filter((f) => /^\d+$/.test(f)).sort();
}

test('a restart keeps every sample and the sample rules still hold', async () => {
  const dir = `${tmp.dir}/${n++}`;
  let db = await openSmallDb(dir);
  fill(db, 30);
  const before = snapshot(db);
  await db.close();
  db = await openSmallDb(dir);
  assert.equal(snapshot(db), before);
  const b = batchBuilder();
  const newestT = (30 * 10 - 1) * 15_000;
  b.add(['__name__', 'm', 's', '0'], ...samples([newestT, newestT, newestT - 1], [299, 5, 1]));
  const r = db.append(b.finish());
  assert.deepEqual([r.ignored, r.conflict, r.outOfOrder], [1, 1, 1]);
  await db.close();
});

test('the newest sample is known after a restart when it lives only in a chunk file', async () => {
  const dir = `${tmp.dir}/${n++}`;
  let db = await openSmallDb(dir);
  fill(db, 30);
  await db.truncateWal(1);
  await db.close();
  db = await openSmallDb(dir);
  const b = batchBuilder();
  const newestT = (30 * 10 - 1) * 15_000;
  b.add(['__name__', 'm', 's', '3'], ...samples([newestT, newestT], [302, 1]));
  const r = db.append(b.finish());
  assert.deepEqual([r.ignored, r.conflict], [1, 1]);
  await db.close();
});

test('WAL truncation checkpoints the series, deletes old segments and loses nothing', async () => {
  const dir = `${tmp.dir}/${n++}`;
  let db = await openSmallDb(dir);
  fill(db, 60);
  const segmentsBefore = walSegments(dir).length;
  await db.truncateWal(2);
  const after1 = walSegments(dir);
  assert.ok(after1.length <= 2 && segmentsBefore > 2, `${segmentsBefore} segments, then ${after1.length}`);
  assert.ok(readdirSync(`${dir}/wal`).some((f) => f.startsWith('checkpoint.')));
  const before = snapshot(db);
  fill(db, 5, 60);
  const later = snapshot(db);
  await db.close();
  db = await openSmallDb(dir);
  assert.notEqual(before, later);
  assert.equal(snapshot(db), later);
  await db.close();
});

test('a torn tail of the last WAL segment is truncated with a log line', async () => {
  const dir = `${tmp.dir}/${n++}`;
  let db = await openSmallDb(dir);
  fill(db, 5);
  const before = snapshot(db);
  await db.close();
  const last = walSegments(dir).at(-1)!;
  appendFileSync(`${dir}/wal/${last}`, Buffer.from([2, 0xff, 0xff, 0, 0, 1, 2, 3]));
  const lines: string[] = [];
  const log = { info() {}, error() {}, warn: (_o: object, msg: string) => lines.push(msg) };
  db = await openSmallDb(dir, { log });
  assert.equal(snapshot(db), before);
  assert.ok(lines.some((l) => /torn/i.test(l)), `log lines: ${lines.join(' | ')}`);
  await db.close();
});

test('a checksum failure in a WAL segment that is not the last is skipped: start-up goes on and loses at most that record', async () => {
  const dir = `${tmp.dir}/${n++}`;
  let db = await openSmallDb(dir, { walSegmentsKept: 100 });
  fill(db, 60);
  const before = decodeSelected(db.querier().select(all, -Infinity, Infinity));
  await db.close({ flush: false }); // as after a crash: the WAL still holds the data
  const segs = walSegments(dir);
  assert.ok(segs.length > 2);
  const victim = `${dir}/wal/${segs[0]}`;
  const bytes = readFileSync(victim);
  const at = Math.floor(statSync(victim).size / 2);
  bytes[at] = bytes[at]! ^ 0x40;
  writeFileSync(victim, bytes);
  db = await openSmallDb(dir, { walSegmentsKept: 100 });
  assert.equal(db.walDamage, 1);
  const after = decodeSelected(db.querier().select(all, -Infinity, Infinity));
  assert.deepEqual(after.map((s) => s.labels), before.map((s) => s.labels));
  const count = (xs: typeof before): number => xs.reduce((sum, s) => sum + s.t.length, 0);
  // One batch's record is 20 series x 10 samples; what the chunk files hold of it is not lost.
  assert.ok(count(after) >= count(before) - 200 && count(after) <= count(before), `${count(after)} of ${count(before)}`);
  await db.close();
});

test('a torn tail of the last chunk segment is recovered from the WAL', async () => {
  const dir = `${tmp.dir}/${n++}`;
  let db = await openSmallDb(dir);
  fill(db, 40);
  const before = snapshot(db);
  await db.close({ flush: false }); // as after a crash: the WAL still holds what the tail had
  const files = readdirSync(`${dir}/chunks_head`).sort();
  const last = `${dir}/chunks_head/${files.at(-1)}`;
  const size = statSync(last).size;
  writeFileSync(last, readFileSync(last).subarray(0, size - 10));
  db = await openSmallDb(dir);
  assert.equal(snapshot(db), before);
  await db.close();
});

test('a data directory is used by one process at a time; a dead owner\'s lock is taken over', async () => {
  const dir = `${tmp.dir}/${n++}`;
  const db = await openSmallDb(dir);
  await db.close();
  writeFileSync(`${dir}/lock`, `${process.ppid}\n`);
  await assert.rejects(openSmallDb(dir), /in use by process/);
  writeFileSync(`${dir}/lock`, '999999999\n');
  const again = await openSmallDb(dir);
  await again.close();
});

test('a clean close flushes the head: open chunks go to chunk files, the WAL is left empty, nothing is lost', async () => {
  const dir = `${tmp.dir}/${n++}`;
  let db = await openSmallDb(dir);
  fill(db, 7);
  const before = snapshot(db);
  await db.close();
  assert.ok(readdirSync(`${dir}/wal`).some((f) => f.startsWith('checkpoint.')));
  assert.ok(walSegments(dir).length <= 1);
  db = await openSmallDb(dir);
  assert.equal(snapshot(db), before);
  assert.ok(db.diskBytes().wal < 64 * 1024);
  const b = batchBuilder();
  const newestT = (7 * 10 - 1) * 15_000;
  b.add(['__name__', 'm', 's', '4'], ...samples([newestT, newestT, newestT + 15_000], [69 + 4, 1, 9]));
  const r = db.append(b.finish());
  assert.deepEqual([r.ignored, r.conflict, r.appended], [1, 1, 1]);
  await db.close();
});
