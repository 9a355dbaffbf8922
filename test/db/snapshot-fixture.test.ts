// The frozen head snapshot of format version 1 (docs/format/head-snapshot.md) still reads as written:
// a change to the writer that moves a byte fails here, not on users' disks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { readHeadSnapshot } from '../../src/db/snapshot-read.js';

const fixture = fileURLToPath(new URL('../fixtures/head-snapshot/v1-three-series', import.meta.url));

test('the version 1 fixture reads back: series, labels, newest samples and postings', () => {
  const s = readHeadSnapshot(fixture);
  assert.deepEqual([s.segment, s.offset, s.nextId, s.values], [1, 0, 4, 5]);
  assert.deepEqual([...s.ids], [1, 2, 3]);
  const labels = [0, 1, 2].map((i) => {
    const bytes = Buffer.from(s.labels.subarray(s.offs[i]!, s.offs[i + 1]!));
    const parts: string[] = [];
    for (let from = 0, at = bytes.indexOf(0xff); at >= 0; from = at + 1, at = bytes.indexOf(0xff, from)) parts.push(bytes.toString('utf8', from, at));
    return parts;
  });
  assert.deepEqual(labels, [['__name__', 'up', 'job', 'api'], ['__name__', 'up', 'job', 'zürich'], ['__name__', 'temp', 'room', 'a']]);
  assert.deepEqual([...s.newestT], [2000, 1500, 1000]);
  const values = new Float64Array(s.newestV.buffer.slice(s.newestV.byteOffset, s.newestV.byteOffset + s.newestV.byteLength));
  assert.deepEqual([...values], [0, 1, 21.5]);
  assert.ok([...s.lastRef].every((r) => r > 0), 'each series names its last chunk');
  // Postings: name, its values and their ids, in the index's order.
  const u32 = new Uint32Array(s.postings.buffer, s.postings.byteOffset, s.postings.length / 4);
  const text = (at: number, len: number) => s.postings.toString('utf8', at + 8, at + 8 + len);
  const out: string[] = [];
  let at = 0;
  while (at < s.postings.length) {
    const [len, count] = [u32[at / 4]!, u32[at / 4 + 1]!];
    const name = text(at, len);
    at += 8 + ((len + 3) & ~3);
    for (let v = 0; v < count; v++) {
      const [vl, n] = [u32[at / 4]!, u32[at / 4 + 1]!];
      const value = text(at, vl);
      at += 8 + ((vl + 3) & ~3);
      out.push(`${name}=${value}:${[...u32.subarray(at / 4, at / 4 + n)].join(',')}`);
      at += 4 * n;
    }
  }
  assert.deepEqual(out, ['__name__=up:1,2', '__name__=temp:3', 'job=api:1', 'job=zürich:2', 'room=a:3']);
});

const withChunks = fileURLToPath(new URL('../fixtures/head-snapshot/v1-three-series-chunks', import.meta.url));

// The same three series, written by a clean stop that also recorded the chunk files (CHUNKS, section 4).
test('the version 1 fixture with a CHUNKS section reads back: the chunk file and each series\' chunk list', () => {
  const plain = readHeadSnapshot(fixture);
  const s = readHeadSnapshot(withChunks);
  assert.deepEqual([...s.ids], [...plain.ids]);
  assert.equal(plain.chunks, undefined, 'a snapshot without CHUNKS reads as before');
  const c = s.chunks!;
  assert.deepEqual(c.files.map((f) => [f.seq, f.size, f.chunks, f.maxId, f.minT, f.maxT]), [[1, 82, 3, 3, 1000, 2000]]);
  assert.equal(c.files[0]!.mtimeNs, 1795948599381442227n);
  assert.equal(c.floor, -Infinity, 'no blocks');
  assert.equal(c.files[0]!.lastCrc, 0x57ac2694);
  assert.deepEqual([...c.counts], [1, 1, 1]);
  assert.deepEqual([...c.triples], [2 ** 32 + 8, 1000, 2000, 2 ** 32 + 36, 1500, 1500, 2 ** 32 + 59, 1000, 1000]);
  assert.deepEqual([0, 1, 2].map((i) => c.triples[3 * i]), [...s.lastRef]);
});
