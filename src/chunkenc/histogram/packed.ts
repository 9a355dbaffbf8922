import type { Span } from './types.js';

/**
 * One histogram sample (integer or float) in flat, reusable typed arrays: what the
 * head's fast path reads a body into (src/record/histogram-body.ts readPacked)
 * and hands the chunker (HistogramChunker.appendPacked) instead of a
 * Histogram object. No allocation per sample: the arrays grow and are
 * reused from one sample to the next. Numbers are exact: span offsets and
 * lengths; for an integer histogram counts and bucket deltas as read (safe
 * integers), for a float one counts and absolute bucket counts as float64s
 * that are not NaNs; the sum a float64 that is not a NaN (bodies with a
 * NaN take the object path, which keeps a stale marker's bits).
 */
export class PackedHistogram {
  /** A float histogram (FLOAT_HISTOGRAM chunks), else an integer one. */
  float = false;
  /** Counter-reset hint of the body (0 unknown or 2 not a reset on the fast path). */
  hint = 0;
  schema = 0;
  zeroThreshold = 0;
  count = 0;
  zeroCount = 0;
  sum = 0;
  nPosSpans = 0;
  nNegSpans = 0;
  /** Spans as (offset, length) pairs. */
  posSpans = new Float64Array(16);
  negSpans = new Float64Array(16);
  nPos = 0;
  nNeg = 0;
  /** Bucket deltas (integer) or absolute counts (float), as Histogram and FloatHistogram hold them. */
  pos = new Float64Array(32);
  neg = new Float64Array(32);

  /** Room for `n` spans (pairs) on one side; returns the array to fill. */
  static grow(a: Float64Array<ArrayBuffer>, n: number): Float64Array<ArrayBuffer> {
    if (n <= a.length) return a;
    return new Float64Array(Math.max(n, a.length * 2));
  }
}

/** Whether `n` packed (offset, length) pairs are exactly `spans`. */
export function sameSpansPacked(spans: readonly Span[], packed: Float64Array, n: number): boolean {
  if (spans.length !== n) return false;
  for (let i = 0; i < n; i++) {
    const s = spans[i]!;
    if (s.offset !== packed[2 * i] || s.length !== packed[2 * i + 1]) return false;
  }
  return true;
}
