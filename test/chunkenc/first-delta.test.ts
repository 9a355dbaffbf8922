// xorFirstDelta: the first time delta read from an XOR chunk's bytes
// without decoding, whatever the sizes of the first time and the delta.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { threadCodec } from '../../src/chunkenc/index.js';
import { xorFirstDelta } from '../../src/chunkenc/xor/first-delta.js';

test('the first delta of chunks with first times and deltas of every varint size', () => {
  const codec = threadCodec();
  for (const first of [0, 1, -1, 63, -64, 1_700_000_000_000, -1_700_000_000_000]) {
    for (const delta of [1, 127, 128, 15_000, 86_400_000, 2 ** 40 + 3]) {
      const chunk = codec.encode(BigInt64Array.of(BigInt(first), BigInt(first + delta), BigInt(first + 3 * delta)), Float64Array.of(0.5, Math.PI, -1));
      // At an offset in a larger buffer, as in the head's memory.
      const mem = new Uint8Array(chunk.length + 16);
      mem.set(chunk, 5);
      assert.equal(xorFirstDelta(mem, 5, chunk.length), delta, `first ${first}, delta ${delta}`);
    }
  }
});

test('bytes too short to hold a first delta read as -1', () => {
  const chunk = threadCodec().encode(BigInt64Array.of(1_700_000_000_000n, 1_700_000_015_000n), Float64Array.of(1, 2));
  assert.equal(xorFirstDelta(chunk, 0, chunk.length), 15_000);
  for (let len = 0; len < 2 + 6 + 8 + 2; len++) assert.equal(xorFirstDelta(chunk, 0, len), -1, `length ${len}`);
});
