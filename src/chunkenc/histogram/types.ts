/**
 * Native histogram samples as Prometheus' model/histogram holds them: the
 * one definition the histogram chunk codecs, the write path, the head, the
 * readers and the library's API share (src/lib/histogram-types.ts
 * re-exports them: the TSDoc here is what a user of the package reads).
 * Integer fields are exact below 2^53. `sum` keeps its float64 bit pattern
 * (object fields do; never pass it through a JS array): a stale marker is
 * a histogram whose sum is Prometheus' StaleNaN.
 */

/**
 * histogram.CounterResetHint, numbered as remote write's
 * prometheus.Histogram.ResetHint: 0 unknown, 1 a counter reset, 2 not a
 * counter reset, 3 a gauge histogram.
 *
 * @example
 * const gauge: CounterResetHint = 3;
 */
export type CounterResetHint = 0 | 1 | 2 | 3;
/** histogram.UnknownCounterReset: the reader finds out by comparing with the sample before. */
export const RESET_UNKNOWN = 0;
/** histogram.CounterReset. */
export const RESET_YES = 1;
/** histogram.NotCounterReset. */
export const RESET_NO = 2;
/** histogram.GaugeType: a gauge histogram, never reset. */
export const RESET_GAUGE = 3;

/**
 * A run of `length` consecutive buckets starting `offset` buckets after
 * the end of the run before; the first run's offset is the index of its
 * first bucket (histogram.Span).
 *
 * @example
 * // buckets 0 and 1, then buckets 5, 6 and 7
 * const spans: Span[] = [{ offset: 0, length: 2 }, { offset: 3, length: 3 }];
 */
export interface Span {
  /** A whole number within ±2^31. */
  offset: number;
  /** A whole number from 0 to 2^32 - 1. */
  length: number;
}

/**
 * What Histogram and FloatHistogram share: the same fields, which differ
 * only in what the counts mean (whole numbers and bucket deltas, or floats
 * and absolute bucket counts).
 */
export interface HistogramShape {
  counterResetHint: CounterResetHint;
  /** Bucket resolution, -4 to 8: bucket boundaries grow by 2^(2^-schema). */
  schema: number;
  zeroThreshold: number;
  zeroCount: number;
  count: number;
  sum: number;
  positiveSpans: readonly Span[];
  positiveBuckets: readonly number[];
  negativeSpans: readonly Span[];
  negativeBuckets: readonly number[];
}

/**
 * An integer native histogram (histogram.Histogram). Counts are whole
 * numbers below 2^53; bucket counts are deltas, each against the bucket
 * before it (the first against 0), over the buckets its spans name. `sum`
 * keeps its float64 bits: a histogram whose sum is Prometheus' stale
 * marker (0x7ff0000000000002) marks the series stale.
 *
 * @example
 * // 3 observations: 1 in the zero bucket, 2 in bucket 1 (schema 0: (1, 2])
 * const h: Histogram = {
 *   counterResetHint: 0, schema: 0, zeroThreshold: 1e-128, zeroCount: 1, count: 3, sum: 3.5,
 *   positiveSpans: [{ offset: 1, length: 1 }], positiveBuckets: [2], negativeSpans: [], negativeBuckets: [],
 * };
 */
export interface Histogram extends HistogramShape {
  /** Deltas: bucket counts are their running sum. */
  positiveBuckets: readonly number[];
}

/**
 * A float native histogram (histogram.FloatHistogram): counts are floats
 * and bucket counts absolute (not deltas). Same shape as Histogram: which
 * one a sample is says its `float` flag (HistogramSample).
 *
 * @example
 * const f: FloatHistogram = {
 *   counterResetHint: 3, schema: 0, zeroThreshold: 1e-128, zeroCount: 0.5, count: 2.5, sum: 4,
 *   positiveSpans: [{ offset: 1, length: 2 }], positiveBuckets: [1.5, 0.5], negativeSpans: [], negativeBuckets: [],
 * };
 */
export interface FloatHistogram extends HistogramShape {
  /** Absolute bucket counts. */
  positiveBuckets: readonly number[];
}
