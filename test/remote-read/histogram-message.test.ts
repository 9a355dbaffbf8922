// prometheus.Histogram messages as remote read's SAMPLES answers carry
// them, judged by the generated (ts-proto) decoder and encoder of the
// project's proto: the fields Prometheus' HistogramToHistogramProto and
// FloatHistogramToHistogramProto fill, packed repeated fields, bytes equal
// to a stock encoder's.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FloatHistogram, Histogram } from '../../src/chunkenc/histogram/types.js';
import { Histogram as HistogramMessage, Histogram_ResetHint } from '../../src/gen/prometheus/types.js';
import { encodeHistogramMessage } from '../../src/remote-read/histogram-message.js';

const integer: Histogram = {
  counterResetHint: 2,
  schema: -2,
  zeroThreshold: 0.001,
  zeroCount: 7,
  count: 1234567890123,
  sum: -45.25,
  positiveSpans: [{ offset: -3, length: 2 }, { offset: 4, length: 1 }],
  negativeSpans: [{ offset: 0, length: 2 }],
  positiveBuckets: [5, -2, 300000000000],
  negativeBuckets: [1, -1],
};

const float: FloatHistogram = {
  counterResetHint: 3,
  schema: 8,
  zeroThreshold: 0,
  zeroCount: 0.5,
  count: 10.75,
  sum: 1e300,
  positiveSpans: [{ offset: 1, length: 3 }],
  negativeSpans: [],
  positiveBuckets: [0.25, 4, 6],
  negativeBuckets: [],
};

const empty: Histogram = {
  counterResetHint: 0, schema: 0, zeroThreshold: 0, zeroCount: 0, count: 0, sum: 0,
  positiveSpans: [], negativeSpans: [], positiveBuckets: [], negativeBuckets: [],
};

describe('prometheus.Histogram messages', () => {
  test('an integer histogram carries count_int, zero_count_int and zig-zag bucket deltas', () => {
    const got = HistogramMessage.decode(encodeHistogramMessage(integer, false, -1_700_000_000_123));
    assert.deepEqual(got.count, { $case: 'countInt', value: 1234567890123n });
    assert.deepEqual(got.zeroCount, { $case: 'zeroCountInt', value: 7n });
    assert.equal(got.sum, -45.25);
    assert.equal(got.schema, -2);
    assert.equal(got.zeroThreshold, 0.001);
    assert.deepEqual(got.positiveSpans, integer.positiveSpans);
    assert.deepEqual(got.negativeSpans, integer.negativeSpans);
    assert.deepEqual(got.positiveDeltas, [5n, -2n, 300000000000n]);
    assert.deepEqual(got.negativeDeltas, [1n, -1n]);
    assert.deepEqual(got.positiveCounts, []);
    assert.equal(got.resetHint, Histogram_ResetHint.NO);
    assert.equal(got.timestamp, -1_700_000_000_123n);
  });

  test('a float histogram carries count_float, zero_count_float and absolute counts', () => {
    const got = HistogramMessage.decode(encodeHistogramMessage(float, true, 1_700_000_000_000));
    assert.deepEqual(got.count, { $case: 'countFloat', value: 10.75 });
    assert.deepEqual(got.zeroCount, { $case: 'zeroCountFloat', value: 0.5 });
    assert.equal(got.sum, 1e300);
    assert.equal(got.schema, 8);
    assert.deepEqual(got.positiveCounts, [0.25, 4, 6]);
    assert.deepEqual(got.positiveDeltas, []);
    assert.equal(got.resetHint, Histogram_ResetHint.GAUGE);
    assert.equal(got.timestamp, 1_700_000_000_000n);
  });

  test('bytes equal a stock protobuf encoder\'s, field by field in order', () => {
    for (const [h, isFloat, t] of [[integer, false, 5], [float, true, -5], [empty, false, 0]] as const) {
      const reference = HistogramMessage.encode(HistogramMessage.decode(encodeHistogramMessage(h, isFloat, t))).finish();
      assert.deepEqual(Buffer.from(encodeHistogramMessage(h, isFloat, t)), Buffer.from(reference));
    }
  });

  test('an empty histogram still says which kind it is (the oneof members are written at zero)', () => {
    const got = HistogramMessage.decode(encodeHistogramMessage(empty, false, 0));
    assert.deepEqual(got.count, { $case: 'countInt', value: 0n });
    assert.deepEqual(got.zeroCount, { $case: 'zeroCountInt', value: 0n });
    const f = HistogramMessage.decode(encodeHistogramMessage(empty, true, 0));
    assert.deepEqual(f.count, { $case: 'countFloat', value: 0 });
  });

  test('the sum keeps its bits: a stale marker and -0 survive', () => {
    const sums = new Float64Array(BigUint64Array.of(0x7ff0000000000002n, 0x8000000000000000n).buffer);
    const want = new BigUint64Array(sums.buffer);
    for (let k = 0; k < 2; k++) {
      // Straight from the typed array into the object: a JS array of doubles would quiet the NaN.
      const h: Histogram = { ...empty, count: 3 };
      h.sum = sums[k]!;
      const bytes = encodeHistogramMessage(h, false, 1);
      // count_int 3 (08 03), then field 3, wire type 1: tag 0x19 and 8 little-endian bytes.
      assert.equal(bytes[2], 0x19, 'the sum is written');
      assert.equal(new DataView(bytes.buffer, bytes.byteOffset + 3, 8).getBigUint64(0, true), want[k]);
    }
  });
});
