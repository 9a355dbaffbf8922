import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync, copyFileSync, utimesSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MatchType } from '../../src/index/types.js';
import type { Db } from '../../src/db/db.js';
import type { DbLog } from '../../src/db/options.js';
import { batchBuilder, decodeSelected, openSmallDb, samples, tempDir } from '../support/db.js';

const tmp = tempDir();
after(() => tmp.remove());
let n = 0;
const all = [{ type: MatchType.NEQ, name: '__name__', value: '' }];
const STALE_NAN = new Float64Array(new Uint32Array([2, 0x7ff00000]).buffer)[0]!;

/** A log that keeps its lines. */
function recordingLog(): DbLog & { lines: { o: Record<string, unknown>; msg: string; level: string }[] } {
  const lines: { o: Record<string, unknown>; msg: string; level: string }[] = [];
  const at = (level: string) => (o: object, msg: string): void => {
    lines.push({ o: o as Record<string, unknown>, msg, level });
  };
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

/** 300 series (UTF-8 values among them) x `batches` x 10 samples, the last a stale marker for some. */
function fill(db: Db, batches: number, from = 0): void {
  const b = batchBuilder();
  for (let i = from; i < from + batches; i++) {
    for (let s = 0; s < 300; s++) {
      const ts = Array.from({ length: 10 }, (_, k) => (i * 10 + k) * 15_000);
      const vs = ts.map((t, k) => (s % 7 === 0 && k === 9 ? STALE_NAN : t / 15_000 + s));
      b.add(['__name__', `m${s % 3}`, 'instance', `host-${s}`, 'job', s % 2 === 0 ? 'api' : 'zürich'], ...samples(ts, vs));
    }
    db.append(b.finish());
  }
}

function contents(db: Db): string {
  const q = db.querier();
  return JSON.stringify({
    series: decodeSelected(q.select(all, -Infinity, Infinity)),
    api: decodeSelected(q.select([{ type: MatchType.EQ, name: 'job', value: 'api' }], -Infinity, Infinity)).length,
    re: decodeSelected(q.select([{ type: MatchType.RE, name: 'instance', value: 'host-1.' }], -Infinity, Infinity)).length,
  });
}

function snapshots(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.startsWith('chunk_snapshot.')).sort();
}

function line(log: ReturnType<typeof recordingLog>, msg: string): Record<string, unknown> | undefined {
  return log.lines.find((l) => l.msg === msg)?.o;
}

/** A data directory closed cleanly after some writes; answers its contents. */
async function closedDir(): Promise<{ dir: string; before: string }> {
  const dir = `${tmp.dir}/${n++}`;
  const db = await openSmallDb(dir);
  fill(db, 12);
  const before = contents(db);
  await db.close();
  return { dir, before };
}

/** Opens `dir`, checks it holds `before` and that the WAL replay read the checkpoint's series (no snapshot used). */
async function assertFullReplay(dir: string, before: string): Promise<ReturnType<typeof recordingLog>> {
  const log = recordingLog();
  const db = await openSmallDb(dir, { log });
  assert.equal(contents(db), before);
  assert.equal(line(log, 'head snapshot loaded'), undefined);
  assert.equal(line(log, 'storage recovered')?.walSeriesRecordsSkipped, 0);
  assert.equal(line(log, 'storage recovered')?.chunkFilesScanned, true);
  await db.close();
  return log;
}

test('a clean close writes a snapshot, and the next open loads it instead of the checkpoint\'s series records', async () => {
  const { dir, before } = await closedDir();
  let expected = before;
  assert.equal(snapshots(dir).length, 1);
  assert.match(snapshots(dir)[0]!, /^chunk_snapshot\.\d{6}\.0000000000$/);
  for (let generation = 0; generation < 2; generation++) {
    const log = recordingLog();
    const db = await openSmallDb(dir, { log });
    assert.equal(line(log, 'head snapshot loaded')?.series, 300 + generation);
    assert.ok((line(log, 'storage recovered')?.walSeriesRecordsSkipped as number) > 0);
    // The chunk files are the ones the snapshot recorded: mapped, not scanned.
    assert.equal(line(log, 'storage recovered')?.chunkFilesScanned, false);
    assert.equal(contents(db), expected);
    assert.deepEqual(db.querier().labelValues('job', [], -Infinity, Infinity), ['api', 'zürich']);
    // The sample rules hold: the newest sample (a stale marker for series 0) is known.
    const newestT = (12 * 10 - 1) * 15_000;
    const b = batchBuilder();
    b.add(['__name__', 'm0', 'instance', 'host-0', 'job', 'api'], ...samples([newestT, newestT, newestT - 1], [STALE_NAN, 5, 1]));
    const r = db.append(b.finish());
    assert.deepEqual([r.ignored, r.conflict, r.outOfOrder], [1, 1, 1]);
    // A new series takes a new id, and is found after the next restart too.
    const c = batchBuilder();
    c.add(['__name__', 'new', 'g', String(generation)], ...samples([newestT + 1], [1]));
    assert.equal(db.append(c.finish()).created, 1);
    expected = contents(db);
    await db.close();
    const again = await openSmallDb(dir);
    assert.equal(decodeSelected(again.querier().select([{ type: MatchType.EQ, name: '__name__', value: 'new' }], -Infinity, Infinity)).length, generation + 1);
    await again.close();
  }
  assert.equal(snapshots(dir).length, 1, 'older snapshots are deleted once a new one is written');
});

test('a torn or corrupted snapshot is ignored with a warning, and the WAL replay loses nothing', async () => {
  const damages: [string, (path: string) => void][] = [
    ['cut in half', (p) => truncateSync(p, Math.floor(readFileSync(p).length / 2))],
    ['cut to its header', (p) => truncateSync(p, 8)],
    ['a flipped byte in the series', (p) => {
      const b = readFileSync(p);
      b[Math.floor(b.length / 3)]! ^= 0x40;
      writeFileSync(p, b);
    }],
    ['a flipped byte in the postings', (p) => {
      const b = readFileSync(p);
      // Header (8), META section (32), SERIES section (8 + length + 4, to 8), then the POSTINGS header (8).
      const series = 40;
      const postings = series + ((8 + b.readUInt32LE(series + 4) + 4 + 7) & ~7);
      assert.equal(b.readUInt32LE(postings), 3, 'the POSTINGS section');
      b[postings + 8]! ^= 0x01;
      writeFileSync(p, b);
    }],
    ['empty', (p) => truncateSync(p, 0)],
  ];
  for (const [what, damage] of damages) {
    const { dir, before } = await closedDir();
    damage(`${dir}/${snapshots(dir)[0]}`);
    const log = await assertFullReplay(dir, before);
    assert.ok(log.lines.some((l) => l.level === 'warn' && l.msg.includes('snapshot unusable')), what);
  }
});

test('a snapshot of another format version is ignored', async () => {
  const { dir, before } = await closedDir();
  const p = `${dir}/${snapshots(dir)[0]}`;
  const b = readFileSync(p);
  b[4] = 0; // the version byte
  writeFileSync(p, b);
  const log = await assertFullReplay(dir, before);
  assert.match(String(log.lines.find((l) => l.msg.includes('snapshot unusable'))?.o.err), /format version 0/);
});

test('a snapshot older than the WAL checkpoint is not used', async () => {
  const { dir } = await closedDir();
  const old = snapshots(dir)[0]!;
  copyFileSync(`${dir}/${old}`, `${tmp.dir}/old-snapshot`);
  const db = await openSmallDb(dir);
  fill(db, 3, 12);
  const later = contents(db);
  await db.close();
  // As if the close had checkpointed, then died before its snapshot was written.
  for (const f of snapshots(dir)) rmSync(`${dir}/${f}`);
  copyFileSync(`${tmp.dir}/old-snapshot`, `${dir}/${old}`);
  const log = await assertFullReplay(dir, later);
  assert.ok(line(log, 'head snapshot is older than the WAL checkpoint: not used'));
});

test('kill -9 while a snapshot is written: the half-written file is ignored and removed', async () => {
  const { dir, before } = await closedDir();
  const name = snapshots(dir)[0]!;
  // What a kill during the write leaves: the temporary file, part written, and no snapshot under its name.
  renameSync(`${dir}/${name}`, `${dir}/${name}.tmp`);
  truncateSync(`${dir}/${name}.tmp`, 1000);
  await assertFullReplay(dir, before);
  assert.deepEqual(snapshots(dir).filter((f) => f.endsWith('.tmp')), []);
});

const child = fileURLToPath(new URL('./support/open-child.ts', import.meta.url));

/**
 * Starts a process that opens `dir` and SIGKILLs it `afterMs` after it
 * says it begins the open (at once if it finishes first); answers whether
 * the kill came before the open finished.
 */
function openAndKill(dir: string, afterMs: number): Promise<boolean> {
  return new Promise((done, fail) => {
    const p = spawn(process.execPath, ['--import', 'tsx', child, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let timer: NodeJS.Timeout | undefined;
    let opened = false;
    const deadline = setTimeout(() => p.kill('SIGKILL'), 60_000);
    p.stdout.on('data', (d: Buffer) => {
      const text = d.toString();
      if (text.includes('opening') && timer === undefined) timer = setTimeout(() => p.kill('SIGKILL'), afterMs);
      if (text.includes('open\n')) {
        opened = true;
        p.kill('SIGKILL');
      }
    });
    p.on('error', fail);
    p.on('exit', () => {
      clearTimeout(timer);
      clearTimeout(deadline);
      done(!opened);
    });
  });
}

test('kill -9 during a start that loads the snapshot loses nothing, and the snapshot stays usable', async (t) => {
  // 20,000 series: a load long enough for some of the kills to land in it.
  const dir = `${tmp.dir}/${n++}`;
  let db = await openSmallDb(dir);
  const b = batchBuilder();
  for (let s = 0; s < 20_000; s++) b.add(['__name__', 'k', 'i', String(s), 'job', String(s % 10)], ...samples([1000, 2000], [s, s + 1]));
  db.append(b.finish());
  fill(db, 2);
  const before = contents(db);
  await db.close();
  let during = 0;
  for (const ms of [0, 30, 100, 250, 600]) if (await openAndKill(dir, ms)) during++;
  const log = recordingLog();
  db = await openSmallDb(dir, { log });
  assert.equal(contents(db), before);
  assert.equal(line(log, 'head snapshot loaded')?.series, 20_300);
  await db.close();
  // Which kills land inside the open depends on the machine (said, not asserted); the data must not.
  t.diagnostic(`${during} of 5 kills came before the open finished`);
});

test('with memorySnapshotOnShutdown false no snapshot is written, and one left from before is not used', async () => {
  const { dir, before } = await closedDir();
  const log = recordingLog();
  const db = await openSmallDb(dir, { log, memorySnapshotOnShutdown: false });
  assert.equal(contents(db), before);
  assert.equal(line(log, 'head snapshot loaded'), undefined);
  await db.close();
  assert.deepEqual(snapshots(dir), []);
  await assertFullReplay(dir, before);
});

function chunkFiles(dir: string): string[] {
  return readdirSync(`${dir}/chunks_head`).sort().map((f) => `${dir}/chunks_head/${f}`);
}

/** Flips a byte in the middle of `file`. */
function flipByte(file: string): void {
  const b = readFileSync(file);
  b[b.length >>> 1]! ^= 0x10;
  writeFileSync(file, b);
}

test('a chunk file changed after the snapshot means the full scan, and its damage is handled as without a snapshot', async () => {
  const { dir } = await closedDir();
  const files = chunkFiles(dir);
  assert.ok(files.length >= 2, 'several chunk files');
  flipByte(files[0]!);
  const log = recordingLog();
  const db = await openSmallDb(dir, { log });
  assert.equal(line(log, 'storage recovered')?.chunkFilesScanned, true);
  assert.ok(line(log, 'head chunk files differ from the snapshot\'s record: scanning them'));
  assert.ok(log.lines.some((l) => l.level === 'warn' && l.msg.startsWith('skipped a damaged')));
  assert.equal(db.chunkFileDamage, 1);
  // The series are all there (from the snapshot); only the damaged chunk's samples are gone.
  assert.equal(decodeSelected(db.querier().select(all, -Infinity, Infinity)).length, 300);
  await db.close();
});

test('damage that leaves a chunk file\'s size and time alone is found when the chunk is read', async () => {
  const { dir, before } = await closedDir();
  // Whole-second times (what utimes can set), recorded by a second clean stop that writes no chunk.
  const pinned = 1_700_000_000;
  for (const f of chunkFiles(dir)) utimesSync(f, pinned, pinned);
  let db = await openSmallDb(dir);
  assert.equal(contents(db), before);
  await db.close();
  const file = chunkFiles(dir)[0]!;
  flipByte(file);
  utimesSync(file, pinned, pinned);
  const log = recordingLog();
  db = await openSmallDb(dir, { log });
  assert.equal(line(log, 'storage recovered')?.chunkFilesScanned, false);
  assert.throws(() => contents(db), (err: Error) => err.message.includes(file) && /checksum mismatch/.test(err.message));
  await db.close();
});

test('chunks written after a start from the snapshot, then a crash: the snapshot is used, the files scanned, nothing lost', async () => {
  const { dir } = await closedDir();
  // WAL segments large enough that no checkpoint is written (one would make the snapshot stale).
  let db = await openSmallDb(dir, { walSegmentBytes: 16 << 20 });
  // 250 samples a series: chunks cut and written to a new chunk file.
  fill(db, 25, 12);
  const later = contents(db);
  // As a kill -9 leaves it: no flush, no snapshot; the WAL holds what the chunk files may not.
  await db.close({ flush: false });
  const log = recordingLog();
  db = await openSmallDb(dir, { log });
  assert.equal(line(log, 'head snapshot loaded')?.series, 300);
  assert.equal(line(log, 'storage recovered')?.chunkFilesScanned, true);
  assert.equal(contents(db), later);
  await db.close();
});
