import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { ChunkSegments } from '../../src/chunks/chunk-segments.js';
import { tempDir } from '../support/db.js';

const tmp = tempDir('strata-chunks-');
after(() => tmp.remove());
let n = 0;

interface Seen { id: number; ref: number; minT: number; maxT: number }

function open(dir: string, log?: { info(): void; warn(o: object, m: string): void }): { cs: ChunkSegments; seen: Seen[] } {
  const seen: Seen[] = [];
  const cs = ChunkSegments.open({ dir, segmentBytes: 4096, log }, (id, ref, minT, maxT) => seen.push({ id, ref, minT, maxT }));
  return { cs, seen };
}

const chunks = [
  { id: 1, minT: -5_000_000_000_000, maxT: -4_999_999_000_000, data: Uint8Array.of(0, 1, 2, 3) },
  { id: 2, minT: 0, maxT: 0, data: Uint8Array.of(9) },
  { id: 70000, minT: 1_700_000_000_000, maxT: 1_700_007_200_000, data: new Uint8Array(1500).fill(7) },
  { id: 3, minT: 2 ** 52, maxT: 2 ** 52 + 1, data: new Uint8Array(900).fill(3) },
];

async function written(): Promise<string> {
  const dir = `${tmp.dir}/${n++}`;
  const { cs } = open(dir);
  for (let round = 0; round < 3; round++) for (const c of chunks) cs.add(c.id, c.minT, c.maxT, c.data);
  await cs.close();
  return dir;
}

test('chunks come back after a reopen: ids, times (negative too), bytes, across several files', async () => {
  const dir = await written();
  assert.ok(readdirSync(dir).length >= 2);
  const { cs, seen } = open(dir);
  assert.equal(seen.length, 12);
  seen.forEach((s, i) => {
    const c = chunks[i % chunks.length]!;
    assert.deepEqual([s.id, s.minT, s.maxT], [c.id, c.minT, c.maxT]);
    assert.deepEqual([...cs.read(s.ref)], [...c.data]);
  });
  await cs.close();
});

test('a torn tail of the last file is cut off with a warning', async () => {
  const dir = await written();
  const files = readdirSync(dir).sort();
  const last = `${dir}/${files.at(-1)}`;
  const bytes = readFileSync(last);
  writeFileSync(last, bytes.subarray(0, bytes.length - 7));
  const warnings: string[] = [];
  const { cs, seen } = open(dir, { info() {}, warn: (_o, m) => warnings.push(m) });
  assert.ok(warnings.some((w) => /torn/.test(w)));
  assert.equal(seen.length, 11, "only the torn entry is lost");
  await cs.close();
});

test('a damaged entry in a file that is not the last loses that chunk only, reported with file and offset', async () => {
  const dir = await written();
  const first = `${dir}/${readdirSync(dir).sort()[0]}`;
  const bytes = readFileSync(first);
  bytes[20] = bytes[20]! ^ 0x10;
  writeFileSync(first, bytes);
  const { cs, seen } = open(dir);
  assert.equal(seen.length, 11);
  assert.deepEqual(cs.damaged.map((d) => [d.file, d.offset]), [[first, 8]]);
  assert.match(cs.damaged[0]!.reason, /checksum mismatch/);
  await cs.close();
  // The damaged file is left as it was: a second open finds the same.
  const again = open(dir);
  assert.equal(again.seen.length, 11);
  await again.cs.close();
});

test('zero bytes followed by data in the last file: the garbage is not a chunk, and the chunks before it are kept', async () => {
  const dir = await written();
  const last = `${dir}/${readdirSync(dir).sort().at(-1)}`;
  appendFileSync(last, Buffer.concat([Buffer.alloc(10), Buffer.from([1, 2, 3])]));
  const { cs, seen } = open(dir);
  assert.equal(seen.length, 12);
  await cs.close();
});

test('a file whose header is damaged is skipped and reported; the other files are read', async () => {
  const dir = await written();
  const first = `${dir}/${readdirSync(dir).sort()[0]}`;
  const bytes = readFileSync(first);
  bytes[0] = bytes[0]! ^ 0xff;
  writeFileSync(first, bytes);
  const { cs, seen } = open(dir);
  assert.ok(seen.length > 0 && seen.length < 12);
  assert.deepEqual(cs.damaged.map((d) => [d.file, d.offset, d.reason]), [[first, 0, 'bad magic number']]);
  await cs.close();
});
