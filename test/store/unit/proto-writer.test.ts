import { test } from 'node:test';
import assert from 'node:assert/strict';
import { putUvarint, putUvarint64, uvarint64Size, uvarintSize } from '../../../src/encoding/varint.js';

/** The varint of `n` the plain way: 7 bits at a time, by division. */
function reference(n: number): number[] {
  const out: number[] = [];
  while (n >= 128) {
    out.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

const edges: number[] = [0, 1, Number.MAX_SAFE_INTEGER, 1_699_999_200_000, 1_700_007_135_000];
for (let k = 1; k <= 53; k++) edges.push(2 ** k - 1, 2 ** k, 2 ** k + 1);
for (let i = 0; i < 2000; i++) edges.push(Math.floor(Math.random() * 2 ** (1 + (i % 53))));

test('varints of safe integers, 7-bit group boundaries included, are the plain encoding and sized alike', () => {
  const b = new Uint8Array(16);
  for (const n of edges) {
    const want = reference(n);
    const end = putUvarint(b, 3, n);
    assert.deepEqual([...b.subarray(3, end)], want, `varint of ${n}`);
    assert.equal(uvarintSize(n), want.length, `size of ${n}`);
  }
});

test('int64 varints of negative times take 10 bytes, two\'s complement', () => {
  const b = new Uint8Array(16);
  assert.equal(uvarint64Size(-1), 10);
  assert.deepEqual([...b.subarray(0, putUvarint64(b, 0, -1))], [...Array(9).fill(0xff), 0x01]);
  assert.deepEqual([...b.subarray(0, putUvarint64(b, 0, 1_700_000_000_000))], reference(1_700_000_000_000));
});
