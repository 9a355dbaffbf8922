/**
 * Native histograms as the library takes and gives them: Prometheus'
 * model/histogram shapes (Histogram with bucket deltas, FloatHistogram
 * with absolute counts). Declared here, not re-exported from the codecs,
 * so the package's types are its own: the codecs' shared types
 * (src/chunkenc/histogram/types.ts) may change without changing the API;
 * read-histograms.ts assigns the codecs' to these, so the compiler says
 * when the two drift apart.
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
export interface Histogram {
  counterResetHint: CounterResetHint;
  /** Bucket resolution, -4 to 8: bucket boundaries grow by 2^(2^-schema). */
  schema: number;
  zeroThreshold: number;
  zeroCount: number;
  count: number;
  sum: number;
  positiveSpans: readonly Span[];
  /** Deltas: bucket counts are their running sum. */
  positiveBuckets: readonly number[];
  negativeSpans: readonly Span[];
  negativeBuckets: readonly number[];
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
export interface FloatHistogram {
  counterResetHint: CounterResetHint;
  schema: number;
  zeroThreshold: number;
  zeroCount: number;
  count: number;
  sum: number;
  positiveSpans: readonly Span[];
  /** Absolute bucket counts. */
  positiveBuckets: readonly number[];
  negativeSpans: readonly Span[];
  negativeBuckets: readonly number[];
}

/**
 * One native histogram sample at `timestamp` (whole milliseconds).
 * Histogram and FloatHistogram have the same shape, so `float` says which
 * it is, always: `false` for an integer histogram (bucket deltas), `true`
 * for a float one (absolute counts). The same shape goes in (append) and
 * comes out (select), so what is selected can be appended elsewhere as it
 * is.
 *
 * @example
 * const samples: HistogramSample[] = [
 *   { timestamp: 1000, float: false, histogram: h },
 *   { timestamp: 2000, float: true, histogram: f },
 * ];
 * for (const s of samples) if (!s.float) console.log(s.histogram.positiveBuckets); // deltas
 */
export type HistogramSample =
  | { timestamp: number; float: false; histogram: Histogram }
  | { timestamp: number; float: true; histogram: FloatHistogram };
