/**
 * Native histogram samples as Prometheus' model/histogram holds them: the
 * shared contract of the histogram chunk codecs, the write path, the head
 * and the readers. Integer fields are exact below 2^53. `sum` keeps its
 * float64 bit pattern (object fields do; never pass it through a JS array):
 * a stale marker is a histogram whose sum is Prometheus' StaleNaN.
 */

/**
 * histogram.CounterResetHint, numbered as prompb.Histogram.ResetHint:
 * 0 unknown, 1 counter reset, 2 not a counter reset, 3 gauge histogram.
 */
export type CounterResetHint = 0 | 1 | 2 | 3;
export const RESET_UNKNOWN = 0;
export const RESET_YES = 1;
export const RESET_NO = 2;
export const RESET_GAUGE = 3;

/** A run of `length` consecutive buckets, `offset` buckets after the previous run (histogram.Span). */
export interface Span {
  offset: number;
  length: number;
}

/** An integer histogram (histogram.Histogram). */
export interface Histogram {
  counterResetHint: CounterResetHint;
  schema: number;
  zeroThreshold: number;
  zeroCount: number;
  count: number;
  sum: number;
  positiveSpans: Span[];
  negativeSpans: Span[];
  /** Bucket counts as deltas: each against the bucket before it (the first against 0), as histogram.Histogram holds them. */
  positiveBuckets: number[];
  negativeBuckets: number[];
}

/** A float histogram (histogram.FloatHistogram): counts are floats and buckets absolute. */
export interface FloatHistogram {
  counterResetHint: CounterResetHint;
  schema: number;
  zeroThreshold: number;
  zeroCount: number;
  count: number;
  sum: number;
  positiveSpans: Span[];
  negativeSpans: Span[];
  /** Absolute bucket counts. */
  positiveBuckets: number[];
  negativeBuckets: number[];
}
