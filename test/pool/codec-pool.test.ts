import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { threadCodec } from '../../src/chunkenc/index.js';
import { decodeInPool, encodeInPool } from '../../src/chunkenc/pool-tasks.js';
import { CodecPool } from '../../src/pool/codec-pool.js';
import { rng, sameBytes, wildSeries } from '../support/series.js';

function makeBatch(series: number, seed: number) {
  const next = rng(seed);
  const parts = Array.from({ length: series }, () => wildSeries(next, 1 + Math.floor(next() * 300)));
  const offsets = new Uint32Array(series + 1);
  parts.forEach((p, i) => { offsets[i + 1] = offsets[i]! + p.timestamps.length; });
  const timestamps = new BigInt64Array(offsets[series]!);
  const values = new Float64Array(offsets[series]!);
  parts.forEach((p, i) => { timestamps.set(p.timestamps, offsets[i]!); values.set(p.values, offsets[i]!); });
  return { parts, batch: { timestamps, values, offsets } };
}

describe('CodecPool', () => {
  const pool = new CodecPool({ workers: 2 });
  after(() => pool.close());

  test('has as many threads as asked', () => {
    assert.equal(pool.threads, 2);
  });

  test('encodes a batch of series into the chunks the codec makes', async () => {
    const { parts, batch } = makeBatch(300, 1);
    const chunks = await encodeInPool(pool, batch);
    assert.equal(chunks.offsets.length, 301);
    parts.forEach((p, i) => {
      sameBytes(chunks.data.subarray(chunks.offsets[i]!, chunks.offsets[i + 1]!), threadCodec().encode(p.timestamps, p.values), `series ${i}`);
    });
  });

  test('decodes chunks back to the samples, bit for bit, with transferred inputs', async () => {
    const { batch } = makeBatch(200, 2);
    const ts = batch.timestamps.slice();
    const vs = batch.values.slice();
    const offsets = batch.offsets.slice();
    const chunks = await encodeInPool(pool, batch, { transfer: true });
    assert.equal(batch.timestamps.length, 0, 'the input buffer moved to the worker');
    const back = await decodeInPool(pool, { data: chunks.data.slice(), offsets: chunks.offsets.slice() }, { transfer: true });
    sameBytes(back.timestamps, ts);
    sameBytes(back.values, vs);
    sameBytes(back.offsets, offsets);
  });

  test('names the chunk that fails to decode', async () => {
    const { batch } = makeBatch(3, 3);
    const chunks = await encodeInPool(pool, batch);
    const data = chunks.data.slice();
    const offsets = chunks.offsets.slice();
    // Chunk 1 claims 256 samples more than it holds (one more could still
    // decode: two zero padding bits are a valid repeat of the last sample).
    data[offsets[1]!]! += 1;
    await assert.rejects(decodeInPool(pool, { data, offsets }), /chunk 1: invalid XOR chunk/);
  });

  test('rejects offsets that do not fit the data', async () => {
    await assert.rejects(decodeInPool(pool, { data: new Uint8Array(4), offsets: Uint32Array.of(0, 9) }), /offsets end at 9/);
  });

  test('rejects a message that no task runs', async () => {
    await assert.rejects(pool.run({ op: 'nope' }), /no pool task is named "nope"/);
  });

  test('refuses a pool without workers', () => {
    assert.throws(() => new CodecPool({ workers: 0 }), /positive integer/);
  });
});
