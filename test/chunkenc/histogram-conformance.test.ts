// The histogram codec conformance suite, run against every implementation
// (WebAssembly and the TypeScript oracle). Prometheus' own bytes are in
// histogram-golden.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ChunkDecodeError, ChunkEncodeError, HEADER_GAUGE, HEADER_NOT_RESET, HEADER_RESET, HEADER_UNKNOWN,
  histogramCodecSets, type HistogramChunkCodec,
} from '../../src/chunkenc/index.js';
import type { FloatHistogram, Histogram } from '../../src/chunkenc/histogram/types.js';
import { STALE_NAN, asDecoded, bitsOf, fh, ih, stale, toFloat } from './histogram-support.js';

type AnyCodec = HistogramChunkCodec<Histogram | FloatHistogram>;

/** A chunk of `count` samples whose bits after the 3-byte header are `bits` ('0'/'1', spaces ignored), zero padded. */
function bytes(count: number, bits: string): Uint8Array {
  const b = bits.replace(/ /g, '');
  const out = new Uint8Array(3 + Math.ceil(b.length / 8));
  out[1] = count;
  for (let i = 0; i < b.length; i++) if (b[i] === '1') out[3 + (i >> 3)]! |= 0x80 >> (i & 7);
  return out;
}

const spans = [{ offset: -2, length: 2 }, { offset: 1, length: 3 }];
const series = (n: number, f: (i: number) => Histogram): Histogram[] => Array.from({ length: n }, (_, i) => f(i));
const ts = (n: number): BigInt64Array => BigInt64Array.from({ length: n }, (_, i) => 1_700_000_000_000n + BigInt(i) * 15_000n);
const counters = series(5, (i) => ih({
  count: 20 + 9 * i, zeroCount: 3 + i, sum: 12.5 * (i + 1), schema: 2, positiveSpans: spans, negativeSpans: [{ offset: 0, length: 2 }],
  positive: [1 + i, 2, 3 + i, 4, 5 + i], negative: [1, 1 + i],
}));

/** Encodes, decodes, and checks the samples come back as Prometheus reports them, bit for bit. */
function roundTrip(codec: AnyCodec, timestamps: BigInt64Array, hs: (Histogram | FloatHistogram)[], header?: 0 | 1 | 2 | 3): Uint8Array {
  const chunk = codec.encode(timestamps, hs, header);
  const back = codec.decode(chunk);
  assert.deepEqual([...back.timestamps], [...timestamps]);
  const h0 = header ?? back.header;
  hs.forEach((h, i) => {
    const hint = h0 === HEADER_GAUGE ? 3 : i > 0 ? 2 : h0 === HEADER_RESET ? 1 : 0;
    const want = asDecoded(h, hint);
    const got = back.histograms[i]!;
    assert.deepEqual(got, want, `sample ${i}`);
    assert.equal(bitsOf(got.sum), bitsOf(want.sum), `sample ${i} sum bits`);
  });
  return chunk;
}

for (const set of histogramCodecSets()) {
  for (const [kind, codec, conv] of [
    ['integer', set.histogram, (h: Histogram) => h],
    ['float', set.floatHistogram, toFloat],
  ] as const) {
    const c = codec as AnyCodec;
    const hs = (list: Histogram[]): (Histogram | FloatHistogram)[] => list.map(conv);
    describe(`${set.name} ${kind} histogram codec`, () => {
      test('round-trips counters with positive, negative and zero buckets', () => {
        roundTrip(c, ts(5), hs(counters));
      });

      test('round-trips every schema from -4 to 8', () => {
        for (let schema = -4; schema <= 8; schema++) {
          roundTrip(c, ts(3), hs(series(3, (i) => ih({ count: 5 + i, sum: 1, schema, positiveSpans: [{ offset: 3, length: 2 }], positive: [2, 3 + i] }))));
        }
      });

      test('round-trips empty histograms and a zero bucket alone', () => {
        roundTrip(c, ts(3), hs(series(3, () => ih({ count: 0, sum: 0 }))));
        roundTrip(c, ts(3), hs(series(3, (i) => ih({ count: i, zeroCount: i, sum: 0.5 * i, zeroThreshold: 0.001 }))));
      });

      test('keeps a stale marker\'s sum bit for bit, and only its sum', () => {
        const chunk = roundTrip(c, ts(4), hs([counters[0]!, counters[1]!, stale(), stale()]));
        const back = c.decode(chunk).histograms;
        assert.equal(bitsOf(back[2]!.sum), 0x7ff0000000000002n);
        assert.deepEqual(back[3]!.positiveBuckets, []);
        // A chunk that starts stale has an empty layout.
        roundTrip(c, ts(2), hs([stale(), { ...counters[0]!, sum: STALE_NAN }]));
      });

      test('sets the header from the first hint unless told, and reports hints as Prometheus 2.42 does', () => {
        const hinted = (hint: 0 | 1 | 2 | 3): (Histogram | FloatHistogram)[] => hs(counters.slice(0, 3)).map((h, i) => ({ ...h, counterResetHint: i === 0 ? hint : 0 }));
        const cases: Array<[0 | 1 | 2 | 3, number, number[]]> = [
          [0, HEADER_UNKNOWN, [0, 2, 2]], [1, HEADER_RESET, [1, 2, 2]], [2, HEADER_NOT_RESET, [0, 2, 2]], [3, HEADER_GAUGE, [3, 3, 3]],
        ];
        for (const [hint, header, hints] of cases) {
          const chunk = c.encode(ts(3), hinted(hint));
          assert.equal(chunk[2]! >> 6, header, `hint ${hint}`);
          const back = c.decode(chunk);
          assert.equal(back.header, header);
          assert.deepEqual(back.histograms.map((h) => h.counterResetHint), hints, `hint ${hint}`);
        }
        assert.equal(c.encode(ts(3), hinted(3), HEADER_RESET)[2]! >> 6, HEADER_RESET);
      });

      test('encodes no samples as the 3-byte header Prometheus starts a chunk with', () => {
        assert.deepEqual([...c.encode(new BigInt64Array(0), [], HEADER_GAUGE)], [0, 0, 0xc0]);
        assert.deepEqual(c.decode(Uint8Array.of(0, 0, 0x40)), { timestamps: new BigInt64Array(0), histograms: [], header: HEADER_NOT_RESET });
      });

      test('round-trips any int64 timestamp, in any order', () => {
        const t = BigInt64Array.of(-(2n ** 63n), 2n ** 63n - 1n, 0n, 0n, -1n, 2n ** 40n);
        roundTrip(c, t, hs(series(6, (i) => ih({ count: i, sum: i }))));
      });

      test('takes a layout split into different spans as the same buckets', () => {
        const a = ih({ count: 6, sum: 1, positiveSpans: [{ offset: 0, length: 3 }], positive: [1, 2, 3] });
        const b = ih({ count: 7, sum: 1, positiveSpans: [{ offset: 0, length: 1 }, { offset: 0, length: 2 }], positive: [1, 2, 4] });
        const back = c.decode(c.encode(ts(2), hs([a, b]))).histograms[1]!;
        assert.deepEqual(back.positiveSpans, a.positiveSpans);
      });

      test('refuses what Prometheus\' appender cannot take, naming the sample', () => {
        const bad: Array<[string, Histogram[]]> = [
          ['bucket count', [ih({ count: 1, sum: 1, positiveSpans: [{ offset: 0, length: 2 }], positive: [1] })]],
          ['layout change', [counters[0]!, { ...counters[1]!, schema: 3 }]],
          ['new bucket', [counters[0]!, ih({ ...counters[1]!, positiveSpans: [{ offset: -2, length: 7 }], positive: [1, 2, 3, 4, 5, 6, 7] })]],
          ['zero threshold', [counters[0]!, { ...counters[1]!, zeroThreshold: 0.5 }]],
          ['sample after a stale marker', [counters[0]!, stale(), counters[1]!]],
          ['bad span length', [ih({ count: 1, sum: 1, positiveSpans: [{ offset: 0, length: -1 }] })]],
        ];
        for (const [why, list] of bad) {
          assert.throws(() => c.encode(ts(list.length), hs(list)), ChunkEncodeError, why);
        }
        if (kind === 'integer') {
          for (const h of [{ ...counters[0]!, count: 1.5 }, { ...counters[0]!, count: -1 }, { ...counters[0]!, zeroCount: 2 ** 53 },
            { ...counters[0]!, positiveBuckets: [1, 2, 3, 4, 0.5] }, { ...counters[0]!, negativeBuckets: [1, NaN] }]) {
            assert.throws(() => c.encode(ts(2), [counters[0]!, h]), (e: unknown) => e instanceof ChunkEncodeError && /sample 1/.test(e.message));
          }
        }
      });

      test('refuses a 65536th sample', () => {
        const n = 65536;
        const list = new Array<Histogram | FloatHistogram>(n).fill(conv(ih({ count: 0, sum: 0 })));
        assert.throws(() => c.encode(new BigInt64Array(n), list), (e: unknown) => e instanceof ChunkEncodeError && /sample 65535/.test(e.message));
      });

      test('names what is wrong with bytes that are not a chunk', () => {
        const chunk = c.encode(ts(3), hs(counters.slice(0, 3)));
        const twoLong = c.encode(ts(2), hs(counters.slice(0, 2))).length;
        const float = kind === 'float';
        // Layout: zero threshold 0, schema 0, no spans; a first sample of zeros (t, counts, sum).
        const empty = `00000000 0 0 0 0 ${float ? '0'.repeat(128) : '0 0'} ${'0'.repeat(64)}`;
        const cases: Array<[Uint8Array, string, number | undefined]> = [
          [Uint8Array.of(0, 1), 'too-short', 0],
          [chunk.subarray(0, twoLong), 'truncated', 2],
          [Uint8Array.from([0, 100, ...chunk.subarray(2)]), 'truncated', undefined],
          [Uint8Array.from([...chunk, 0, 0]), 'trailing-bytes', 3],
          [Uint8Array.from([0, 1, ...chunk.subarray(2)]), 'trailing-bytes', 1],
          [Uint8Array.of(0, 0, 0, 1), 'trailing-bytes', 0],
          // Schema -53 (varbit 1110 + 9 bits of -53).
          [bytes(1, '00000000 1110 111001011'), 'unsupported-schema', 0],
          // A positive span count of 2^24 in a few bytes.
          [bytes(1, `00000000 0 1111110 1${'0'.repeat(24)} ${'0'.repeat(30)}`), 'bad-layout', 0],
          // More buckets than the chunk has bits for.
          [bytes(1, `00000000 0 10 001 1111110 1${'0'.repeat(24)} 0 0 ${'0'.repeat(40)}`), 'bad-layout', 0],
          // The second sample opens an XOR window of 31 leading zeros and 64 significant bits.
          [bytes(2, `${empty} 0 ${float ? '' : '0 0 '}11 11111 000000 ${'0'.repeat(64)}`), 'bad-xor-window', 1],
        ];
        for (const [b, reason, index] of cases) {
          assert.throws(() => c.decode(b), (err: unknown) => {
            assert.ok(err instanceof ChunkDecodeError, `${reason}: ${String(err)}`);
            assert.equal(err.reason, reason);
            if (index !== undefined) assert.equal(err.sampleIndex, index, reason);
            assert.match(err.message, new RegExp(`^invalid ${float ? 'float histogram' : 'histogram'} chunk: .+ \\(at sample \\d+\\)$`));
            return true;
          });
        }
        // The empty first sample alone is a valid chunk.
        assert.equal(c.decode(bytes(1, empty)).histograms[0]!.count, 0);
      });

      test('an appender writes what encode writes, and is unchanged by a refused sample', () => {
        const app = set.appender(codec.encoding);
        app.reset(HEADER_NOT_RESET);
        const list = hs(counters);
        const timestamps = ts(list.length);
        list.forEach((h, i) => {
          app.append(Number(timestamps[i]!), h);
          assert.deepEqual([...app.bytes()], [...c.encode(timestamps.subarray(0, i + 1), list.slice(0, i + 1), HEADER_NOT_RESET)], `after ${i + 1}`);
        });
        const before = app.bytes().slice();
        assert.throws(() => app.append(2e12, { ...list[0]!, schema: 7 }), ChunkEncodeError);
        assert.deepEqual([...app.bytes()], [...before]);
        app.setHeader(HEADER_GAUGE);
        assert.equal(app.bytes()[2]! >> 6, HEADER_GAUGE);
        assert.equal(app.numSamples, list.length);
      });
    });
  }

  test(`${set.name}: float chunks keep special values bit for bit`, () => {
    const list = [
      fh({ count: 1.5, sum: Infinity, zeroCount: 0.25, positiveSpans: [{ offset: 0, length: 3 }], positive: [-0, 5e-324, 1e308] }),
      fh({ count: 1.75, sum: -0, zeroCount: -0, positiveSpans: [{ offset: 0, length: 3 }], positive: [Infinity, -Infinity, 0.1] }),
    ];
    const back = set.floatHistogram.decode(set.floatHistogram.encode(ts(2), list)).histograms;
    for (let i = 0; i < 2; i++) {
      assert.deepEqual(back[i]!.positiveBuckets.map(bitsOf), list[i]!.positiveBuckets.map(bitsOf));
      assert.equal(bitsOf(back[i]!.sum), bitsOf(list[i]!.sum));
      assert.equal(bitsOf(back[i]!.zeroCount), bitsOf(list[i]!.zeroCount));
    }
  });
}
