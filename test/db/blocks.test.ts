// Head compaction into blocks, reads over blocks and head, restart,
// compaction of blocks and retention by time and by size (issue 11).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../../src/db/db.js';
import { MatchType, type LabelMatcher } from '../../src/index/types.js';
import { readMetaFile } from '../../src/blocks/meta.js';
import { rejectionError } from '../../src/ingest/rejections.js';
import { compareLabels } from '../../src/encoding/utf8.js';
import { batchBuilder, bitsHex, decodeSelected, openSmallDb, samples, tempDir } from '../support/db.js';

const tmp = tempDir();
after(() => tmp.remove());
const HOUR = 3_600_000;
const RANGE = 2 * HOUR;
const STEP = 60_000;

/** What was written: per series key, timestamps and value bits. */
type Written = Map<string, { labels: string[]; t: number[]; v: string[] }>;

/**
 * Writes `hours` of one sample a minute, oldest first, for series of two
 * kinds: `steady` lives throughout, `gen<k>` lives only during hour k
 * (churn). Batches of 10 minutes.
 */
function ingest(db: Db, fromHour: number, hours: number, written: Written, steady = 20): void {
  const b = batchBuilder();
  for (let m = fromHour * 60; m < (fromHour + hours) * 60; m += 10) {
    const ts = Array.from({ length: 10 }, (_, k) => (m + k) * STEP);
    const hour = Math.floor(m / 60);
    const sets: string[][] = [];
    for (let s = 0; s < steady; s++) sets.push(['__name__', 'steady', 's', String(s)]);
    for (let s = 0; s < 5; s++) sets.push(['__name__', `gen${hour}`, 's', String(s)]);
    for (const labels of sets) {
      const vs = ts.map((t, k) => ((t / STEP) * 7 + labels[3]!.length + k) / 4);
      b.add(labels, ...samples(ts, vs));
      const key = labels.join(',');
      let w = written.get(key);
      if (w === undefined) written.set(key, (w = { labels, t: [], v: [] }));
      w.t.push(...ts);
      w.v.push(...vs.map(bitsHex));
    }
    const r = db.append(b.finish());
    assert.equal(r.appended, sets.length * 10);
  }
}

/** Asserts that a select over everything answers exactly what was written. */
function assertAll(db: Db, written: Written, what: string, matchers: LabelMatcher[] = [{ type: MatchType.RE, name: '__name__', value: '.+' }]): void {
  const got = decodeSelected(db.querier().select(matchers, -Infinity, Infinity));
  const want = [...written.values()].sort((a, b) => compareLabels(a.labels, b.labels));
  assert.deepEqual(got.map((s) => s.labels.join(',')), want.map((w) => w.labels.join(',')), `${what}: series`);
  for (const [i, s] of got.entries()) {
    assert.deepEqual(s.t, want[i]!.t, `${what}: timestamps of ${s.labels.join(',')}`);
    assert.deepEqual(s.v, want[i]!.v, `${what}: values of ${s.labels.join(',')}`);
  }
}

function blockDirs(dir: string): string[] {
  return readdirSync(join(dir, 'blocks')).filter((n) => /^[0-9A-Z]{26}$/.test(n)).sort();
}

test('the head cuts its oldest range into a block once it spans more than 1.5 ranges, and lets go of it', async () => {
  const dir = `${tmp.dir}/cut`;
  const db = await openSmallDb(dir, { compaction: false });
  const written: Written = new Map();
  ingest(db, 0, 3, written);
  await db.settle();
  assert.equal(db.blockCount, 0, 'the head spans 3 h: not more than 1.5 ranges yet');
  ingest(db, 3, 1, written);
  await db.settle();
  assert.equal(db.blockCount, 1, 'one block: [0, 2 h)');
  const [ulid] = blockDirs(dir);
  const meta = await readMetaFile(join(dir, 'blocks', ulid!));
  assert.equal(meta.minTime, 0);
  assert.equal(meta.maxTime, RANGE);
  assert.equal(meta.compaction.level, 1);
  assert.deepEqual(meta.compaction.sources, [ulid]);
  assert.equal(meta.stats.numSeries, 20 + 10);
  assert.equal(meta.stats.numSamples, 2 * 60 * 25);
  // gen0 and gen1 had samples only before 2 h: they left the head.
  assert.equal(db.seriesCount, 20 + 10, 'steady series, gen2 and gen3 stay in the head');
  assert.ok(db.headMinTime >= RANGE);
  assertAll(db, written, 'after the cut');
  // Range queries across the boundary: every sample once.
  const across = decodeSelected(db.querier().select([{ type: MatchType.EQ, name: 's', value: '3' }, { type: MatchType.EQ, name: '__name__', value: 'steady' }], RANGE - 5 * STEP, RANGE + 4 * STEP));
  assert.equal(across.length, 1);
  assert.deepEqual(across[0]!.t.filter((t) => t >= RANGE - 5 * STEP && t <= RANGE + 4 * STEP), Array.from({ length: 10 }, (_, k) => RANGE + (k - 5) * STEP));
  assert.deepEqual(db.querier().labelValues('__name__', [], -Infinity, Infinity), ['gen0', 'gen1', 'gen2', 'gen3', 'steady']);
  assert.deepEqual(db.querier().labelValues('__name__', [], 0, HOUR - 1), ['gen0', 'steady']);
  assert.deepEqual(db.querier().labelValues('__name__', [], 3 * HOUR, 4 * HOUR), ['gen3', 'steady']);
  assert.deepEqual(db.querier().labelNames([{ type: MatchType.EQ, name: '__name__', value: 'gen1' }], -Infinity, Infinity), ['__name__', 's']);
  // A matcher every series meets answers as no matcher does, in the block and the head alike.
  const everySeries = [{ type: MatchType.RE, name: 's', value: '.+' }];
  assert.deepEqual(db.querier().labelNames(everySeries, -Infinity, Infinity), ['__name__', 's']);
  assert.deepEqual(db.querier().labelValues('__name__', everySeries, -Infinity, Infinity), ['gen0', 'gen1', 'gen2', 'gen3', 'steady']);
  assert.deepEqual(db.querier().labelValues('__name__', everySeries, 0, HOUR - 1), ['gen0', 'steady']);
  await db.close();
});

test('samples in a range the head has closed are too old; newer ones are taken', async () => {
  const dir = `${tmp.dir}/closed`;
  const db = await openSmallDb(dir, { compaction: false });
  ingest(db, 0, 4, new Map());
  // newest 4 h - 1 min: ranges before the boundary at or past newest - 3 h (2 h) are closed.
  assert.equal(db.minValidTime, RANGE);
  const b = batchBuilder();
  b.add(['__name__', 'late', 'k', 'closed'], ...samples([RANGE - 1], [1]));
  b.add(['__name__', 'late', 'k', 'open'], ...samples([RANGE], [1]));
  const before = db.seriesCount;
  const batch = b.finish();
  const r = db.append(batch);
  assert.equal(r.tooOld, 1);
  assert.equal(r.appended, 1);
  // The series none of whose samples was taken was not created.
  assert.equal(db.seriesCount, before + 1);
  assert.deepEqual(db.querier().select([{ type: MatchType.EQ, name: '__name__', value: 'late' }], -Infinity, Infinity, { skipChunks: true }).map((s) => s.labels), [['__name__', 'late', 'k', 'open']]);
  assert.deepEqual(db.querier().labelValues('k', [], -Infinity, Infinity), ['open']);
  assert.match(rejectionError(r, batch)!.message, /too old sample \(1, first \{__name__="late", k="closed"\} at 7199999\)/);
  await db.close();
});

test('a restart opens the blocks and replays only what the head holds: every sample once', async () => {
  const dir = `${tmp.dir}/restart`;
  const written: Written = new Map();
  let db = await openSmallDb(dir, { compaction: false });
  ingest(db, 0, 9, written);
  await db.settle();
  const blocks = blockDirs(dir);
  assert.ok(blocks.length >= 3, `${blocks.length} blocks`);
  await db.close();
  db = await openSmallDb(dir, { compaction: false });
  assert.deepEqual(blockDirs(dir), blocks);
  assertAll(db, written, 'after a clean restart');
  // Unflushed close (as after a crash the WAL and chunk files are all there is).
  ingest(db, 9, 3, written);
  await db.settle();
  await db.close({ flush: false });
  db = await openSmallDb(dir, { compaction: false });
  assertAll(db, written, 'after a restart that replays the WAL');
  assert.ok(db.seriesCount <= 20 + 20, `${db.seriesCount} series in the head`);
  await db.close();
});

test('an unfinished block directory is never read, and is removed at start', async () => {
  const dir = `${tmp.dir}/tmpdirs`;
  const written: Written = new Map();
  let db = await openSmallDb(dir, { compaction: false });
  ingest(db, 0, 5, written);
  await db.settle();
  await db.close();
  const junk = join(dir, 'blocks', '01JA0000000000000000000000.tmp-for-creation');
  mkdirSync(join(junk, 'chunks'), { recursive: true });
  writeFileSync(join(junk, 'index'), 'half an index');
  const gone = join(dir, 'blocks', '01JA0000000000000000000001.tmp-for-deletion');
  mkdirSync(gone, { recursive: true });
  db = await openSmallDb(dir, { compaction: false });
  assert.equal(existsSync(junk), false);
  assert.equal(existsSync(gone), false);
  assertAll(db, written, 'with leftovers removed');
  await db.close();
});

test('blocks compact 2 h -> 6 h -> 18 h, and the data reads the same', async () => {
  const dir = `${tmp.dir}/compact`;
  const written: Written = new Map();
  const db = await openSmallDb(dir);
  ingest(db, 0, 40, written, 5);
  await db.maintain();
  const metas = await Promise.all(blockDirs(dir).map((u) => readMetaFile(join(dir, 'blocks', u))));
  const levels = metas.map((m) => m.compaction.level);
  assert.ok(levels.some((l) => l >= 3), `levels ${levels.join(',')}: an 18 h block was made`);
  for (const m of metas) {
    if (m.compaction.level > 1) {
      assert.ok(m.compaction.parents!.length >= 2);
      assert.equal(m.maxTime - m.minTime <= 18 * HOUR, true);
    }
  }
  // No two blocks overlap, and the sources of all blocks are distinct.
  const sorted = metas.slice().sort((a, b) => a.minTime - b.minTime);
  for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i]!.minTime >= sorted[i - 1]!.maxTime);
  const sources = metas.flatMap((m) => m.compaction.sources);
  assert.equal(new Set(sources).size, sources.length);
  assertAll(db, written, 'after compaction');
  assert.deepEqual(db.querier().labelValues('__name__', [], 10 * HOUR, 11 * HOUR - 1), ['gen10', 'steady']);
  await db.close();
});

test('retention deletes whole blocks past the window, and the oldest blocks beyond --retention-size', async () => {
  const dir = `${tmp.dir}/retention`;
  const written: Written = new Map();
  const db = await openSmallDb(dir, { compaction: false, retentionMs: 10 * HOUR });
  ingest(db, 0, 20, written);
  await db.settle();
  await db.maintain();
  const metas = await Promise.all(blockDirs(dir).map((u) => readMetaFile(join(dir, 'blocks', u))));
  const cutoff = db.maxTime - 10 * HOUR;
  assert.ok(metas.length > 0);
  for (const m of metas) assert.ok(m.maxTime - 1 >= cutoff, `block [${m.minTime}, ${m.maxTime}) is past the cutoff ${cutoff}`);
  assert.ok(metas.some((m) => m.minTime <= cutoff + RANGE), 'the blocks within the window stay');
  assert.equal(db.counters.blocksDeletedByTime > 0, true);
  await db.close();

  // The same data with a size limit: the oldest blocks go first until the rest fits.
  const sized = `${tmp.dir}/retention-size`;
  const db2 = await openSmallDb(sized, { compaction: false });
  ingest(db2, 0, 20, new Map());
  await db2.settle();
  const before = await Promise.all(blockDirs(sized).map((u) => readMetaFile(join(sized, 'blocks', u))));
  await db2.close();
  const disk = (d: Db) => {
    const b = d.diskBytes();
    return b.wal + b.chunks + b.blocks;
  };
  const db3 = await openSmallDb(sized, { compaction: false });
  const total = disk(db3);
  const perBlock = db3.diskBytes().blocks / before.length;
  await db3.close();
  const limit = Math.floor(total - 2.5 * perBlock);
  const db4 = await openSmallDb(sized, { compaction: false, retentionBytes: limit });
  await db4.maintain();
  const left = await Promise.all(blockDirs(sized).map((u) => readMetaFile(join(sized, 'blocks', u))));
  assert.ok(left.length < before.length, `${left.length} of ${before.length} blocks left`);
  assert.ok(disk(db4) <= limit, `${disk(db4)} bytes within the limit of ${limit}`);
  const newestBefore = before.slice().sort((a, b) => b.minTime - a.minTime).slice(0, left.length).map((m) => m.ulid).sort();
  assert.deepEqual(left.map((m) => m.ulid).sort(), newestBefore, 'the newest blocks are the ones kept');
  assert.ok(db4.counters.blocksDeletedBySize > 0);
  await db4.close();
});
