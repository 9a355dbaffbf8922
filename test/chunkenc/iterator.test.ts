import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ChunkEncodeError, XorAppender, XorIterator, threadCodec } from '../../src/chunkenc/index.js';
import { STALE_NAN_BITS, bitsOf, fromBits, rng, sameBytes, scrapeSeries, wildSeries } from '../support/series.js';

const codec = threadCodec();

describe('XorIterator', () => {
  const { timestamps, values } = scrapeSeries('gauge', 120, 3);
  const chunk = codec.encode(timestamps, values);

  test('walks every sample in order', () => {
    const it = new XorIterator(codec).reset(chunk);
    let i = 0;
    while (it.next()) {
      assert.equal(it.atT(), Number(timestamps[i]));
      assert.equal(it.atV(), values[i]);
      i++;
    }
    assert.equal(i, 120);
    assert.equal(it.err(), undefined);
    it.close();
  });

  test('seeks to the first sample at or after a time, never backwards', () => {
    const it = new XorIterator(codec).reset(chunk);
    assert.ok(it.seek(timestamps[0]! - 1_000_000n));
    assert.equal(it.atT(), Number(timestamps[0]));
    assert.ok(it.seek(timestamps[50]! - 1n));
    assert.equal(it.atT(), Number(timestamps[50]));
    assert.ok(it.seek(timestamps[50]!), 'seeking to the current time stays');
    assert.equal(it.atT(), Number(timestamps[50]));
    assert.ok(it.seek(timestamps[10]!), 'seeking backwards stays');
    assert.equal(it.atT(), Number(timestamps[50]));
    assert.ok(it.next());
    assert.equal(it.atT(), Number(timestamps[51]));
    assert.equal(it.seek(timestamps[119]! + 1n), false);
    assert.equal(it.next(), false);
    it.close();
  });

  test('is reused across chunks and reads value bits exactly', () => {
    const it = new XorIterator(codec);
    const stale = codec.encode(BigInt64Array.of(1n, 2n), fromBits([STALE_NAN_BITS, 0n]));
    const got = new Float64Array(1);
    it.reset(chunk);
    assert.ok(it.next());
    it.reset(stale);
    assert.ok(it.next());
    it.atValueBits(got, 0);
    assert.equal(bitsOf(got)[0], STALE_NAN_BITS);
    it.close();
  });

  test('agrees with whole-chunk decoding on random chunks', () => {
    const next = rng(5);
    const it = new XorIterator(codec);
    for (let k = 0; k < 200; k++) {
      const { timestamps: t, values: v } = wildSeries(next, 1 + Math.floor(next() * 200));
      it.reset(codec.encode(t, v));
      const target = t[Math.floor(next() * t.length)]!;
      const first = t.findIndex((x) => x >= target);
      assert.ok(it.seek(target));
      const got = new Float64Array(1);
      it.atValueBits(got, 0);
      assert.equal(bitsOf(got)[0], bitsOf(v)[first]);
    }
    it.close();
  });

  test('reports an error on a chunk too short to hold its count', () => {
    const it = new XorIterator(codec).reset(Uint8Array.of(1));
    assert.equal(it.next(), false);
    assert.equal(it.err()?.reason, 'too-short');
    it.close();
  });
});

describe('XorAppender', () => {
  test('appending in batches makes the same chunk as encoding at once', () => {
    const next = rng(8);
    const app = new XorAppender(codec);
    for (let k = 0; k < 50; k++) {
      const { timestamps, values } = wildSeries(next, 1 + Math.floor(next() * 500));
      app.reset();
      for (let at = 0; at < timestamps.length;) {
        const to = Math.min(timestamps.length, at + 1 + Math.floor(next() * 40));
        app.append(timestamps.subarray(at, to), values.subarray(at, to));
        at = to;
      }
      assert.equal(app.numSamples, timestamps.length);
      sameBytes(app.bytes(), codec.encode(timestamps, values));
    }
    app.close();
  });

  test('refuses a batch that would pass 65535 samples and keeps the chunk', () => {
    const { timestamps, values } = scrapeSeries('counter', 65535);
    const app = new XorAppender(codec);
    app.append(timestamps.subarray(0, 65530), values.subarray(0, 65530));
    const before = app.bytes();
    assert.throws(() => app.append(timestamps.subarray(0, 10), values.subarray(0, 10)), ChunkEncodeError);
    sameBytes(app.bytes(), before);
    app.append(timestamps.subarray(65530), values.subarray(65530));
    sameBytes(app.bytes(), codec.encode(timestamps, values));
    app.close();
  });
});
