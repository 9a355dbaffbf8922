// Head chunk segments hold native histogram chunks (encodings 2 and 3)
// beside XOR chunks, each entry with its encoding.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { ChunkSegments } from '../../src/chunks/chunk-segments.js';
import { tempDir } from '../support/db.js';

const tmp = tempDir('strata-chunk-encodings-');
after(() => tmp.remove());

test('encodings 1, 2 and 3 are written, found on open and read back with their chunks', async () => {
  const dir = `${tmp.dir}/a`;
  const cs = ChunkSegments.open({ dir, segmentBytes: 4096 }, () => assert.fail('a new directory has no chunks'));
  const refs = [
    cs.add(1, 0, 10, Uint8Array.of(1, 1), 1),
    cs.add(1, 11, 20, Uint8Array.of(2, 2, 2), 2),
    cs.add(2, 5, 6, Uint8Array.of(3), 3),
    cs.add(2, 7, 8, Uint8Array.of(4)), // XOR by default
  ];
  assert.deepEqual(refs.map((r) => cs.encodingOf(r)), [1, 2, 3, 1], 'readable before the flush');
  await cs.close();
  const seen: number[][] = [];
  const again = ChunkSegments.open({ dir, segmentBytes: 4096 }, (id, ref, minT, maxT, encoding) => seen.push([id, minT, maxT, encoding, ref]));
  try {
    assert.deepEqual(seen.map((s) => s.slice(0, 4)), [[1, 0, 10, 1], [1, 11, 20, 2], [2, 5, 6, 3], [2, 7, 8, 1]]);
    assert.deepEqual(seen.map((s) => [again.encodingOf(s[4]!), [...again.read(s[4]!)]]), [[1, [1, 1]], [2, [2, 2, 2]], [3, [3]], [1, [4]]]);
  } finally {
    await again.close();
  }
});

test('an unknown encoding is damage, skipped and reported (not in the last file), or a torn tail (in it)', async () => {
  const dir = `${tmp.dir}/b`;
  // Two files: every open starts a new one.
  for (const id of [1, 2]) {
    const cs = ChunkSegments.open({ dir, segmentBytes: 4096 }, () => {});
    cs.add(id, 0, 10, Uint8Array.of(1, 1), 2);
    await cs.close();
  }
  const [first, second] = readdirSync(dir).sort().map((f) => `${dir}/${f}`);
  const setEncoding = (file: string, encoding: number): void => {
    const bytes = readFileSync(file);
    // File header 8 bytes, then id, min time 0, span 10, encoding.
    assert.equal(bytes[11], 2);
    bytes[11] = encoding;
    writeFileSync(file, bytes);
  };
  setEncoding(second!, 4);
  const warnings: string[] = [];
  const seen: number[] = [];
  const log = { info: () => {}, warn: (_o: object, m: string) => warnings.push(m) };
  const cs = ChunkSegments.open({ dir, segmentBytes: 4096, log }, (id) => seen.push(id));
  await cs.close();
  assert.deepEqual(seen, [1]);
  assert.match(warnings.join('\n'), /torn chunk segment tail \(unknown encoding 4\)/);
  setEncoding(first!, 4);
  const again = ChunkSegments.open({ dir, segmentBytes: 4096 }, () => {});
  assert.match(again.damaged[0]?.reason ?? '', /unknown encoding 4/);
  assert.equal(again.damaged[0]?.file, first);
  await again.close();
});
