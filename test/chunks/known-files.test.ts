import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { ChunkSegments } from '../../src/chunks/chunk-segments.js';
import { ChunkFileCorruption } from '../../src/chunks/corruption.js';
import type { ChunkFileRecord } from '../../src/chunks/known-files.js';
import { tempDir } from '../support/db.js';

const tmp = tempDir('strata-known-chunks-');
after(() => tmp.remove());
let n = 0;

interface Written { dir: string; refs: number[]; files: ChunkFileRecord[] }

/** 30 chunks over several 4 KiB files, closed as a clean stop leaves them, with the record it takes. */
async function written(): Promise<Written> {
  const dir = `${tmp.dir}/${n++}`;
  const cs = ChunkSegments.open({ dir, segmentBytes: 4096 }, () => {});
  const refs: number[] = [];
  for (let i = 0; i < 30; i++) refs.push(cs.add(i + 1, i * 1000, i * 1000 + 999, new Uint8Array(300).fill(i)));
  await cs.sync();
  const files = cs.files()!;
  await cs.close();
  return { dir, refs, files };
}

function reopen(w: Written, log?: { info(o: object, m: string): void; warn(o: object, m: string): void }): { cs: ChunkSegments; visited: number } {
  let visited = 0;
  const cs = ChunkSegments.open({ dir: w.dir, segmentBytes: 4096, log }, () => visited++, w.files);
  return { cs, visited };
}

/** A whole second: utimes cannot set the nanoseconds a write leaves. */
const PINNED = 1_700_000_000;

/**
 * Flips a byte inside the data of chunk `ref`, keeping its file's size,
 * and gives the file the same whole-second time before and after (the
 * record taking the first): damage that no size or time shows.
 */
function flipKeepingTimes(w: Written, ref: number): string {
  const seq = Math.floor(ref / 2 ** 32);
  const file = `${w.dir}/${String(seq).padStart(6, '0')}`;
  utimesSync(file, PINNED, PINNED);
  w.files.find((f) => f.seq === seq)!.mtimeNs = statSync(file, { bigint: true }).mtimeNs;
  const b = readFileSync(file);
  b[(ref % 2 ** 32) + 20]! ^= 0x10;
  writeFileSync(file, b);
  utimesSync(file, PINNED, PINNED);
  return file;
}

test('files as recorded are mapped without a scan, and every chunk reads back', async () => {
  const w = await written();
  assert.ok(w.files.length >= 3);
  assert.equal(w.files.reduce((a, f) => a + f.chunks, 0), 30);
  assert.equal(Math.max(...w.files.map((f) => f.maxId)), 30);
  const { cs, visited } = reopen(w);
  assert.equal(cs.scanned, false);
  assert.equal(visited, 0);
  w.refs.forEach((ref, i) => assert.deepEqual([...cs.read(ref)], [...new Uint8Array(300).fill(i)]));
  // The record is the same one a scan would have made: the next stop records it again.
  assert.deepEqual(cs.files()!.map((f) => ({ ...f, mtimeNs: 0n })), w.files.map((f) => ({ ...f, mtimeNs: 0n })));
  await cs.close();
});

test('a file added, grown or gone since the record means the full scan', async () => {
  const changes: [string, (w: Written) => void][] = [
    ['grown', (w) => appendFileSync(`${w.dir}/${readdirSync(w.dir).sort().at(-1)}`, Buffer.alloc(10))],
    ['a new file', (w) => writeFileSync(`${w.dir}/999999`, Buffer.alloc(0))],
    ['touched', (w) => {
      const f = `${w.dir}/${readdirSync(w.dir).sort()[0]}`;
      utimesSync(f, new Date(), new Date(Date.now() + 5000));
    }],
  ];
  for (const [what, change] of changes) {
    const w = await written();
    change(w);
    const lines: string[] = [];
    const { cs, visited } = reopen(w, { info: (_o, m) => lines.push(m), warn: () => {} });
    assert.equal(cs.scanned, true, what);
    assert.equal(visited, 30, what);
    assert.ok(lines.some((l) => l.includes('differ from the snapshot')), what);
    await cs.close();
  }
});

test('a file whose last checksum is not the recorded one is scanned, and its damage found there', async () => {
  const w = await written();
  // The first file's last chunk: damage there is skipped (in the last file it would be a torn tail, cut off).
  const first = Math.floor(w.refs[0]! / 2 ** 32);
  const last = w.refs.filter((r) => Math.floor(r / 2 ** 32) === first).at(-1)!;
  flipKeepingTimes(w, last);
  const { cs, visited } = reopen(w, { info: () => {}, warn: () => {} });
  assert.equal(cs.scanned, false, 'size, time and the stored checksum unchanged: no scan');
  await cs.close();
  // The recorded CRC of the last entry is what the file must end with.
  const file = w.files.find((f) => f.seq === Math.floor(last / 2 ** 32))!;
  file.lastCrc ^= 1;
  const again = reopen(w, { info: () => {}, warn: () => {} });
  assert.equal(again.cs.scanned, true);
  assert.equal(again.visited, 29, 'the damaged chunk is skipped by the scan');
  assert.equal(again.cs.damaged.length, 1);
  await again.cs.close();
  assert.ok(visited === 0);
});

test('a damaged chunk in a file mapped unread fails its read with the file and offset; the others read', async () => {
  const w = await written();
  const file = flipKeepingTimes(w, w.refs[4]!);
  const { cs } = reopen(w);
  assert.equal(cs.scanned, false);
  assert.throws(() => cs.read(w.refs[4]!), (err: unknown) => err instanceof ChunkFileCorruption && err.file === file && /checksum mismatch/.test(err.message));
  w.refs.forEach((ref, i) => {
    if (i !== 4) assert.equal(cs.read(ref)[0], i);
  });
  await cs.close();
});
