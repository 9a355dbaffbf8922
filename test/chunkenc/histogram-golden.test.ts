// Bytes written by Prometheus v2.42.0's own chunkenc appenders, and what its
// iterators decode from them (histogram-go-vectors.ts): both codecs must
// write the same bytes from the same samples and read back what Go reads.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { histogramCodecSets } from '../../src/chunkenc/index.js';
import type { FloatHistogram, Histogram } from '../../src/chunkenc/histogram/types.js';
import { GO_VECTORS, type GoSample } from './histogram-go-vectors.js';
import { asDecoded, bitsOf, floatOf } from './histogram-support.js';

function fromGo(s: GoSample, float: boolean): Histogram | FloatHistogram {
  const num = (v: string): number => (float ? floatOf(BigInt(`0x${v}`)) : Number(v));
  return {
    counterResetHint: s.hint as 0 | 1 | 2 | 3,
    schema: s.schema,
    zeroThreshold: floatOf(BigInt(`0x${s.zt}`)),
    zeroCount: num(s.zc),
    count: num(s.c),
    sum: floatOf(BigInt(`0x${s.sum}`)),
    positiveSpans: s.ps.map(([offset, length]) => ({ offset, length })),
    negativeSpans: s.ns.map(([offset, length]) => ({ offset, length })),
    positiveBuckets: s.pb.map(num),
    negativeBuckets: s.nb.map(num),
  };
}

/** Go's shape of a sample, floats as bit patterns: equal shapes are equal bit for bit. */
function toGo(t: bigint, h: Histogram | FloatHistogram, float: boolean): GoSample {
  const hex = (v: number): string => bitsOf(v).toString(16);
  const num = (v: number): string => (float ? hex(v) : String(v));
  return {
    t: t.toString(), hint: h.counterResetHint, schema: h.schema, zt: hex(h.zeroThreshold), zc: num(h.zeroCount), c: num(h.count),
    sum: hex(h.sum), ps: h.positiveSpans.map((s) => [s.offset, s.length]), ns: h.negativeSpans.map((s) => [s.offset, s.length]),
    pb: h.positiveBuckets.map(num), nb: h.negativeBuckets.map(num),
  };
}

const hexOf = (b: Uint8Array): string => Buffer.from(b).toString('hex');

for (const set of histogramCodecSets()) {
  describe(`${set.name} histogram codecs against Prometheus 2.42's bytes`, () => {
    test('cover integer and float chunks, stale markers, headers and spare bytes', () => {
      assert.ok(GO_VECTORS.some((v) => v.float) && GO_VECTORS.some((v) => !v.float));
      assert.ok(GO_VECTORS.some((v) => v.name.includes('stale')));
      // Some chunk must end in Go's spare zero byte for the rule to be tested.
      const spare = GO_VECTORS.filter((v) => v.hex.endsWith('00'));
      assert.ok(spare.length > 0);
    });

    for (const v of GO_VECTORS) {
      test(`${v.float ? 'float ' : ''}${v.name.replace(/^float /, '')}: same bytes, same samples`, () => {
        const codec = v.float ? set.floatHistogram : set.histogram;
        const timestamps = BigInt64Array.from(v.samples, (s) => BigInt(s.t));
        const input = v.samples.map((s) => fromGo(s, v.float));
        const chunk = codec.encode(timestamps, input, v.header as 0 | 1 | 2 | 3);
        assert.equal(hexOf(chunk), v.hex);
        const back = codec.decode(Buffer.from(v.hex, 'hex'));
        assert.equal(back.header, v.header);
        assert.deepEqual([...back.timestamps], [...timestamps]);
        const got = back.histograms.map((h, i) => toGo(back.timestamps[i]!, h, v.float));
        const want = v.decoded ?? input.map((h, i) => {
          const hint = v.header === 3 ? 3 : i > 0 ? 2 : v.header === 2 ? 1 : 0;
          return toGo(timestamps[i]!, asDecoded(h, hint), v.float);
        });
        assert.deepEqual(got, want);
      });
    }
  });
}
