// Native histograms in remote write: read from the wire into the histogram
// batch, checked as Prometheus 2.42 checks them, refused one by one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { Histogram } from '../../src/gen/thanos/store/prompb/types.js';
import { Label } from '../../src/gen/thanos/store/labels.js';
import { MalformedRequestError } from '../../src/errors/errors.js';
import { rw2Bytes, Symbols, type Rw2Series } from '../support/rw2.js';
import { decodeBatch, decodeHistogramBatch, parse, prometheusRequest, requestOf, series, thanosRequest } from './support.js';

const STALE = 0x7ff0000000000002n;

/** An integer histogram: 2 + 1 + 3 observations in three positive buckets, 1 in a negative one, 2 in the zero bucket. */
function intHistogram(timestamp: bigint, extra: Partial<Histogram> = {}): Histogram {
  return Histogram.fromPartial({
    count: { $case: 'countInt', value: 9n },
    sum: 12.5,
    schema: 3,
    zeroThreshold: 0.001,
    zeroCount: { $case: 'zeroCountInt', value: 2n },
    positiveSpans: [{ offset: -2, length: 2 }, { offset: 1, length: 1 }],
    positiveDeltas: [2n, -1n, 2n],
    negativeSpans: [{ offset: 0, length: 1 }],
    negativeDeltas: [1n],
    resetHint: 2,
    timestamp,
    ...extra,
  });
}

function floatHistogram(timestamp: bigint, extra: Partial<Histogram> = {}): Histogram {
  return Histogram.fromPartial({
    count: { $case: 'countFloat', value: 7.5 },
    sum: -3.25,
    schema: -2,
    zeroThreshold: 0,
    zeroCount: { $case: 'zeroCountFloat', value: 0.5 },
    positiveSpans: [{ offset: 1, length: 2 }],
    positiveCounts: [2.5, 4],
    resetHint: 3,
    timestamp,
    ...extra,
  });
}

/** The 64 bits of a double, as a bigint. */
function bits(x: number): bigint {
  const d = new DataView(new ArrayBuffer(8));
  d.setFloat64(0, x, true);
  return d.getBigUint64(0, true);
}

describe('remote write: native histograms into the histogram batch', () => {
  test('an integer histogram arrives whole: layout, deltas, counts, hint, time, tenant label', () => {
    const parsed = parse(thanosRequest([series(['__name__', 'rpc_seconds'], [], { histograms: [intHistogram(1000n)] })], 'acme'));
    assert.equal(parsed.histogramSamples, 1);
    assert.equal(parsed.samples, 0);
    assert.equal(decodeBatch(parsed.batch).length, 0, 'no float entry for a series of histograms only');
    const [e] = decodeHistogramBatch(parsed.histogramBatch!);
    assert.deepEqual(e!.labels, ['__name__', 'rpc_seconds', 'tenant_id', 'acme']);
    assert.deepEqual(e!.t, [1000]);
    assert.equal(e!.float[0], false);
    assert.deepEqual(e!.h[0], {
      counterResetHint: 2, schema: 3, zeroThreshold: 0.001, zeroCount: 2, count: 9, sum: 12.5,
      positiveSpans: [{ offset: -2, length: 2 }, { offset: 1, length: 1 }], negativeSpans: [{ offset: 0, length: 1 }],
      positiveBuckets: [2, -1, 2], negativeBuckets: [1],
    });
  });

  test('the label hash is the float batch\'s for the same series (one series in the head)', () => {
    const parsed = parse(thanosRequest([series(['a', '1'], [[5n, 1]], { histograms: [intHistogram(6n)] })]));
    assert.equal(decodeHistogramBatch(parsed.histogramBatch!)[0]!.hash, decodeBatch(parsed.batch)[0]!.hash);
  });

  test('a float histogram (count_float set) keeps absolute counts and the 64 bits of its floats', () => {
    const parsed = parse(thanosRequest([series(['a', '1'], [], { histograms: [floatHistogram(7n)] })]));
    const [e] = decodeHistogramBatch(parsed.histogramBatch!);
    assert.equal(e!.float[0], true);
    assert.deepEqual(e!.h[0], {
      counterResetHint: 3, schema: -2, zeroThreshold: 0, zeroCount: 0.5, count: 7.5, sum: -3.25,
      positiveSpans: [{ offset: 1, length: 2 }], negativeSpans: [], positiveBuckets: [2.5, 4], negativeBuckets: [],
    });
  });

  test('a stale marker\'s sum keeps its exact NaN bits through the body', () => {
    const w = new BinaryWriter();
    Label.encode({ name: 'a', value: '1' }, w.tag(1, WireType.LengthDelimited).fork()).join();
    w.tag(4, WireType.LengthDelimited).fork();
    w.tag(1, WireType.Varint).uint64(0n);
    w.tag(3, WireType.Bit64).fixed64(STALE);
    w.tag(15, WireType.Varint).int64(9n);
    w.join();
    const parsed = parse(requestOf([w.finish()]));
    const body = decodeHistogramBatch(parsed.histogramBatch!)[0]!.bodies[0]!;
    // flags, schema 0, zero threshold (8), then the sum's 8 bytes.
    assert.equal(new DataView(body.buffer, body.byteOffset).getBigUint64(10, true), STALE);
  });

  test('samples and histograms of one series both arrive, each in its batch, in wire order', () => {
    const parsed = parse(prometheusRequest([
      series(['a', '1'], [[1n, 1], [2n, 2]], { histograms: [intHistogram(3n), intHistogram(4n)] }),
      series(['b', '1'], [[5n, 5]]),
      series(['c', '1'], [], { histograms: [floatHistogram(8n)] }),
    ]));
    assert.equal(parsed.samples, 3);
    assert.equal(parsed.histogramSamples, 3);
    assert.deepEqual(decodeHistogramBatch(parsed.histogramBatch!).map((e) => [e.labels[0], e.t, e.float]), [
      ['a', [3, 4], [false, false]],
      ['c', [8], [true]],
    ]);
  });

  test('no histogram batch when there are no histograms', () => {
    assert.equal(parse(thanosRequest([series(['a', '1'])])).histogramBatch, undefined);
  });
});

describe('remote write: native histograms checked as Prometheus 2.42 checks them', () => {
  /** The reason the one histogram of a series is refused, and what else the request kept. */
  function refusal(h: Histogram): string | undefined {
    const parsed = parse(thanosRequest([
      series(['__name__', 'ok'], [[1n, 1]]),
      series(['__name__', 'bad', 'job', 'x'], [], { histograms: [intHistogram(1n), h, intHistogram(3n)] }),
    ]));
    assert.equal(parsed.samples, 1, 'the float samples are kept');
    if (parsed.invalidHistograms === 0) {
      assert.equal(parsed.histogramSamples, 3);
      return undefined;
    }
    assert.equal(parsed.invalidHistograms, 1);
    assert.deepEqual(decodeHistogramBatch(parsed.histogramBatch!)[0]!.t, [1, 3], 'the series\' valid histograms are kept');
    return parsed.firstInvalidHistogram;
  }

  test('spans that need more or fewer buckets than given', () => {
    assert.equal(refusal(intHistogram(2n, { positiveDeltas: [2n, -1n] })),
      'series 1 {__name__="bad", job="x"}: histogram 1 at 2: positive side: spans need 3 buckets, have 2 buckets: histogram spans specify different number of buckets than provided');
    assert.match(refusal(intHistogram(2n, { negativeSpans: [{ offset: 0, length: 2 }] }))!, /: negative side: spans need 2 buckets, have 1 buckets: /);
  });

  test('a span after the first with a negative offset', () => {
    assert.equal(refusal(intHistogram(2n, { positiveSpans: [{ offset: 0, length: 2 }, { offset: -1, length: 1 }] })),
      'series 1 {__name__="bad", job="x"}: histogram 1 at 2: positive side: span number 2 with offset -1: histogram has a span whose offset is negative');
    assert.equal(refusal(intHistogram(2n, { positiveSpans: [{ offset: -5, length: 2 }, { offset: 0, length: 1 }] })), undefined, 'the first span may start anywhere');
  });

  test('a bucket whose count, deltas summed, is negative', () => {
    assert.equal(refusal(intHistogram(2n, { positiveDeltas: [2n, -3n, 2n] })),
      'series 1 {__name__="bad", job="x"}: histogram 1 at 2: positive side: bucket number 2 has observation count of -1: histogram has a bucket whose observation count is negative');
    assert.match(refusal(floatHistogram(2n, { positiveCounts: [1, -0.5] }))!, /positive side: bucket number 2 has observation count of -0.5: histogram has a bucket/);
  });

  test('a count below the buckets\' total (the zero bucket not counted, as in 2.42)', () => {
    assert.equal(refusal(intHistogram(2n, { count: { $case: 'countInt', value: 5n } })),
      'series 1 {__name__="bad", job="x"}: histogram 1 at 2: 7 observations found in buckets, but the Count field is 5: histogram\'s observation count should be at least the number of observations found in the buckets');
    assert.equal(refusal(intHistogram(2n, { count: { $case: 'countInt', value: 7n } })), undefined);
    assert.match(refusal(floatHistogram(2n, { count: { $case: 'countFloat', value: 6 } }))!,
      /: 6\.500000 observations found in buckets, but the Count field is 6\.000000: /);
    assert.equal(refusal(floatHistogram(2n, { count: { $case: 'countFloat', value: NaN } })), undefined, 'a NaN count passes, as in Go');
  });

  test('a schema outside -4..8, a zero threshold that is negative or NaN', () => {
    assert.match(refusal(intHistogram(2n, { schema: 9 }))!, /histogram 1 at 2: histogram has an invalid schema 9, which must be between -4 and 8$/);
    assert.match(refusal(intHistogram(2n, { schema: -53 }))!, /invalid schema -53/);
    assert.equal(refusal(intHistogram(2n, { schema: -4 })), undefined);
    assert.match(refusal(intHistogram(2n, { zeroThreshold: -1 }))!, /invalid zero threshold -1, which must be a number >= 0/);
    assert.match(refusal(intHistogram(2n, { zeroThreshold: NaN }))!, /invalid zero threshold NaN/);
  });

  test('integers of 2^53 or more are refused with a clear reason, not stored inexactly', () => {
    assert.match(refusal(intHistogram(2n, { count: { $case: 'countInt', value: 2n ** 53n } }))!, /histogram 1 at 2: count of 2\^53 or more, which this store does not hold exactly$/);
    assert.equal(refusal(intHistogram(2n, { count: { $case: 'countInt', value: 2n ** 53n - 1n } })), undefined);
    assert.match(refusal(intHistogram(2n, { zeroCount: { $case: 'zeroCountInt', value: 2n ** 64n - 1n } }))!, /zero count of 2\^53 or more/);
    assert.match(refusal(intHistogram(2n, { positiveDeltas: [2n, -(2n ** 60n), 2n] }))!, /a bucket delta of 2\^53 or more in magnitude/);
    assert.match(refusal(intHistogram(2n, { positiveDeltas: [2n ** 52n, 2n ** 52n, 0n], count: { $case: 'countInt', value: 2n ** 53n - 1n } }))!,
      /bucket number 2 has an observation count above 2\^53/);
    assert.match(refusal(intHistogram(2n ** 52n))!, /timestamp 4503599627370496 lies 2\^52 ms or more from 1970/);
  });

  test('the other kind\'s fields are ignored, as Prometheus\' conversions ignore them', () => {
    // An integer histogram's counts (doubles) and a float one's deltas do not count.
    assert.equal(refusal(intHistogram(2n, { positiveCounts: [1, 2, 3, 4] })), undefined);
    assert.equal(refusal(floatHistogram(2n, { positiveDeltas: [1n, 2n, 3n] })), undefined);
    // zero_count_int in a float histogram reads as 0.
    const parsed = parse(thanosRequest([series(['a', '1'], [], { histograms: [floatHistogram(2n, { zeroCount: { $case: 'zeroCountInt', value: 5n } })] })]));
    assert.equal(decodeHistogramBatch(parsed.histogramBatch!)[0]!.h[0]!.zeroCount, 0);
  });

  test('only the first refused histogram is named; all are counted; a series with bad labels counts none', () => {
    const parsed = parse(thanosRequest([
      series(['b', '1', 'a', '1'], [], { histograms: [intHistogram(1n, { schema: 20 })] }),
      series(['x', '1'], [], { histograms: [intHistogram(1n, { schema: 20 }), intHistogram(2n, { schema: 30 })] }),
      series(['y', '1'], [], { histograms: [intHistogram(1n, { schema: 40 })] }),
    ]));
    assert.equal(parsed.invalidSeries, 1);
    assert.equal(parsed.invalidHistograms, 3);
    assert.match(parsed.firstInvalidHistogram!, /^series 1 \{x="1"\}: histogram 0 at 1: histogram has an invalid schema 20/);
    assert.equal(parsed.histogramBatch, undefined);
  });
});

describe('remote write: histogram messages on the wire', () => {
  function oneHistogram(write: (w: BinaryWriter) => void): Uint8Array {
    const w = new BinaryWriter();
    Label.encode({ name: 'a', value: '1' }, w.tag(1, WireType.LengthDelimited).fork()).join();
    w.tag(4, WireType.LengthDelimited).fork();
    write(w);
    w.join();
    return requestOf([w.finish()]);
  }

  test('deltas packed or one by one, and repeated fields accumulate; a oneof keeps the member set last', () => {
    const parsed = parse(oneHistogram((w) => {
      w.tag(6, WireType.Varint).uint64(1n); // zero_count_int, then overridden below
      w.tag(2, WireType.Bit64).double(1); // count_float, then count_int last: an integer histogram
      w.tag(1, WireType.Varint).uint64(4n);
      w.tag(11, WireType.LengthDelimited).fork().tag(1, WireType.Varint).sint32(-1).tag(2, WireType.Varint).uint32(2).join();
      w.tag(11, WireType.LengthDelimited).fork().tag(2, WireType.Varint).uint32(1).join();
      w.tag(12, WireType.LengthDelimited).fork().sint64(1n).sint64(1n).join();
      w.tag(12, WireType.Varint).sint64(-1n);
      w.tag(4, WireType.Varint).sint32(-3);
      w.tag(6, WireType.Varint).uint64(0n);
      w.tag(14, WireType.Varint).int32(7); // an unknown hint reads as unknown
      w.tag(15, WireType.Varint).int64(-5n);
      w.tag(16, WireType.LengthDelimited).fork().double(1).join(); // custom_values: not read
    }));
    const [e] = decodeHistogramBatch(parsed.histogramBatch!);
    assert.deepEqual(e!.t, [-5]);
    assert.equal(e!.float[0], false);
    assert.deepEqual(e!.h[0], {
      counterResetHint: 0, schema: -3, zeroThreshold: 0, zeroCount: 0, count: 4, sum: 0,
      positiveSpans: [{ offset: -1, length: 2 }, { offset: 0, length: 1 }], negativeSpans: [], positiveBuckets: [1, 1, -1], negativeBuckets: [],
    });
  });

  test('a known field with the wrong wire type, or a double cut short, makes the request malformed', () => {
    const malformed = (write: (w: BinaryWriter) => void, re: RegExp): void => {
      assert.throws(() => parse(oneHistogram(write)), (err: unknown) => err instanceof MalformedRequestError && re.test(err.message));
    };
    malformed((w) => w.tag(3, WireType.Varint).uint64(1n), /Histogram field 3 has wire type varint, expected fixed64/);
    malformed((w) => w.tag(8, WireType.Varint).uint64(1n), /Histogram field 8 has wire type varint, expected length-delimited/);
    malformed((w) => w.tag(8, WireType.LengthDelimited).fork().tag(1, WireType.Bit64).fixed64(1n).join(), /BucketSpan field 1 has wire type fixed64/);
    malformed((w) => w.tag(13, WireType.LengthDelimited).bytes(new Uint8Array(7)), /Histogram field 13: packed doubles are not a multiple of 8 bytes/);
    malformed((w) => w.tag(15, WireType.LengthDelimited).bytes(new Uint8Array(1)), /Histogram field 15 has wire type length-delimited, expected varint/);
    // A double whose 8 bytes run past the histogram message (its length says 5).
    const bytes = requestOf([new Uint8Array([0x0a, 4, 0x0a, 1, 0x61, 0x12, 0x22, 5, 0x19, 0, 0, 0, 0, 0x12, 1, 0x31])]);
    assert.throws(() => parse(bytes), (err: unknown) => err instanceof MalformedRequestError);
  });

  test('remote write 2.0: histograms are read and checked as in 1.0 (start_timestamp not stored)', () => {
    const s = new Symbols();
    const h = {
      count: { case: 'countInt', value: 3n }, sum: 1.5, schema: 1, zeroThreshold: 0.001, zeroCount: { case: 'zeroCountInt', value: 0n },
      positiveSpans: [{ offset: 0, length: 2 }], positiveDeltas: [1n, 1n], timestamp: 10n, startTimestamp: 3n,
    };
    const timeseries: Rw2Series[] = [
      { labelsRefs: s.refs('__name__', 'h'), histograms: [h, { ...h, timestamp: 20n, schema: 11 }, { ...h, timestamp: 30n }] },
    ];
    const parsed = parse(rw2Bytes({ symbols: s.table, timeseries }), { dialect: 'prometheus-v2' });
    assert.equal(parsed.histogramSamples, 2);
    assert.equal(parsed.invalidHistograms, 1);
    assert.match(parsed.firstInvalidHistogram!, /^series 0 \{__name__="h"\}: histogram 1 at 20: histogram has an invalid schema 11/);
    const [e] = decodeHistogramBatch(parsed.histogramBatch!);
    assert.deepEqual(e!.labels, ['__name__', 'h', 'tenant_id', 'default-tenant']);
    assert.deepEqual(e!.t, [10, 30]);
    assert.deepEqual(e!.h[0]!.positiveBuckets, [1, 1]);
    assert.equal(parsed.emptySeries, 0);
  });
});

test('body bits: the sum and float counts are copied, never rounded through a number', () => {
  const parsed = parse(thanosRequest([series(['a', '1'], [], { histograms: [floatHistogram(1n, { positiveCounts: [0.1, 2 ** -1074] })] })]));
  const body = decodeHistogramBatch(parsed.histogramBatch!)[0]!.bodies[0]!;
  const d = new DataView(body.buffer, body.byteOffset, body.byteLength);
  // flags, schema -2 (1 byte), threshold, sum, count, zero count, 0 negative spans, 0 negative buckets, 1 span (2 bytes), 2 buckets.
  assert.equal(d.getBigUint64(2 + 8, true), bits(-3.25));
  assert.equal(d.getBigUint64(body.length - 8, true), bits(2 ** -1074));
  assert.equal(d.getBigUint64(body.length - 16, true), bits(0.1));
});
