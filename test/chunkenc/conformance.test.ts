// The codec conformance suite, run against every implementation.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ChunkEncodeError, codecs, type XorCodec } from '../../src/chunkenc/index.js';
import { STALE_NAN_BITS, bitsOf, fromBits, rng, sameBytes, scrapeSeries, wildSeries } from '../support/series.js';

function roundTrip(codec: XorCodec, timestamps: BigInt64Array, values: Float64Array): Uint8Array {
  const chunk = codec.encode(timestamps, values);
  const back = codec.decode(chunk);
  sameBytes(back.timestamps, timestamps, 'timestamps');
  sameBytes(back.values, values, 'value bits');
  return chunk;
}

/** Three samples whose third has delta-of-delta `dod`; returns the bucket prefix bits. */
function bucketPrefix(codec: XorCodec, dod: number): string {
  const ts = BigInt64Array.from([0n, 100n, BigInt(200 + dod)]);
  const chunk = roundTrip(codec, ts, new Float64Array(3));
  // 2 count bytes, 1 varint byte, 8 value bytes, 1 uvarint byte: then the
  // second sample's value bit, then the third sample's bucket prefix.
  const bits = ((chunk[12]! << 8) | (chunk[13] ?? 0)).toString(2).padStart(16, '0');
  assert.equal(bits[0], '0', 'equal value is a single 0 bit');
  const ones = /^1{0,4}/.exec(bits.slice(1))![0].length;
  return bits.slice(1, 1 + Math.min(ones + 1, 4));
}

for (const codec of codecs) {
  describe(`${codec.name} codec`, () => {
    test('picks the delta-of-delta bucket at each edge as Prometheus does', () => {
      const want: Array<[number, string]> = [
        [0, '0'], [1, '10'], [-1, '10'],
        [8192, '10'], [8193, '110'], [-8191, '10'], [-8192, '110'],
        [65536, '110'], [65537, '1110'], [-65535, '110'], [-65536, '1110'],
        [524288, '1110'], [524289, '1111'], [-524287, '1110'], [-524288, '1111'],
        [2 ** 40, '1111'], [-(2 ** 40), '1111'],
      ];
      for (const [dod, prefix] of want) assert.equal(bucketPrefix(codec, dod), prefix, `dod ${dod}`);
    });

    test('keeps special values bit for bit: stale marker, NaN, ±Inf, -0, denormals', () => {
      const bits = [1n, STALE_NAN_BITS, 0x7ff8000000000001n, 0x7ff0000000000000n, 0xfff0000000000000n,
        0x8000000000000000n, 0n, 1n, 0x000fffffffffffffn, 0xffffffffffffffffn, STALE_NAN_BITS, STALE_NAN_BITS];
      const ts = BigInt64Array.from(bits.map((_, i) => BigInt(i * 15_000)));
      roundTrip(codec, ts, fromBits(bits));
    });

    test('encodes values equal, close and far', () => {
      const vs = Float64Array.from([1, 1, 1.0000000001, 1.0000000002, 1e300, -1e-300, 7, 7, 7.5, 0.1, 0.2, 0.30000000000000004]);
      roundTrip(codec, BigInt64Array.from(vs, (_, i) => BigInt(i * 1000)), vs);
    });

    test('handles negative timestamps and decreasing ones', () => {
      roundTrip(codec, BigInt64Array.from([-86_400_000n, -1n, 0n, 5n, -3n, -100_000_000n]), new Float64Array(6).fill(2));
    });

    for (const n of [1, 2, 3, 120, 65535]) {
      test(`round-trips ${n} samples`, () => {
        const { timestamps, values } = scrapeSeries('gauge', n, n);
        const chunk = roundTrip(codec, timestamps, values);
        assert.equal((chunk[0]! << 8) | chunk[1]!, n);
      });
    }

    test('refuses a 65536th sample', () => {
      const { timestamps, values } = scrapeSeries('counter', 65536);
      assert.throws(() => codec.encode(timestamps, values), ChunkEncodeError);
    });

    test('encodes an empty chunk as its zero count', () => {
      const chunk = roundTrip(codec, new BigInt64Array(0), new Float64Array(0));
      sameBytes(chunk, Uint8Array.of(0, 0));
    });

    test('round-trips counter, gauge and constant scrapes', () => {
      for (const pattern of ['counter', 'gauge', 'constant'] as const) {
        const { timestamps, values } = scrapeSeries(pattern, 120, 7);
        roundTrip(codec, timestamps, values);
      }
    });

    test('round-trips random series that reach every branch', () => {
      const next = rng(2024);
      for (let i = 0; i < 200; i++) {
        const { timestamps, values } = wildSeries(next, 1 + Math.floor(next() * 300));
        roundTrip(codec, timestamps, values);
      }
    });

    test('a constant series costs about a bit per sample pair', () => {
      const { timestamps, values } = scrapeSeries('constant', 120);
      timestamps.forEach((_, i) => { timestamps[i] = BigInt(i) * 15_000n; });
      // count, varint 0, value, uvarint 15000 (2 bytes), then 1 bit + 2 bits per sample.
      assert.equal(codec.encode(timestamps, values).length, 2 + 1 + 8 + 2 + Math.ceil((1 + 118 * 2) / 8));
    });
  });
}

describe('differential: WebAssembly against TypeScript', () => {
  const [wasm, ts] = codecs as [XorCodec, XorCodec];

  test('produce the same bytes for the same random series', () => {
    const next = rng(99);
    for (let i = 0; i < 1000; i++) {
      const { timestamps, values } = wildSeries(next, 1 + Math.floor(next() * 200));
      const a = wasm.encode(timestamps, values);
      sameBytes(a, ts.encode(timestamps, values), `series ${i}`);
      sameBytes(bitsOf(ts.decode(a).values), bitsOf(values), `series ${i} values`);
    }
  });
});
