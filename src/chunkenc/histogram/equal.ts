import type { FloatHistogram, Histogram, Span } from './types.js';

const words = new Float64Array(2);
const bits = new BigUint64Array(words.buffer);

/** Whether two sums are the same: equal numbers, or NaNs of the same bits (two stale markers). */
function sameSum(a: number, b: number): boolean {
  if (a === b) return true;
  if (!Number.isNaN(a) || !Number.isNaN(b)) return false;
  words[0] = a;
  words[1] = b;
  return bits[0] === bits[1];
}

/**
 * Whether a histogram sample repeats the one held at its timestamp, so that
 * the head takes it as a duplicate (accepted, stored once) rather than a
 * conflict. Prometheus 2.42's Histogram.Equals / FloatHistogram.Equals:
 * same kind, schema, zero threshold, zero count, count and sum; the same
 * bucket layout once zero-length spans are folded into the next; the same
 * bucket values. The counter reset hint does not count. One difference: a
 * NaN sum equals a NaN sum of the same bits (Go's != calls two stale
 * markers different; later Prometheus versions compare the sums' bits).
 */
export function sameHistogram(a: Histogram | FloatHistogram, aFloat: boolean, b: Histogram | FloatHistogram, bFloat: boolean): boolean {
  if (aFloat !== bFloat) return false;
  if (a.schema !== b.schema || a.zeroThreshold !== b.zeroThreshold || a.zeroCount !== b.zeroCount || a.count !== b.count) return false;
  if (!sameSum(a.sum, b.sum)) return false;
  return spansMatch(a.positiveSpans, b.positiveSpans) && spansMatch(a.negativeSpans, b.negativeSpans)
    && sameBuckets(a.positiveBuckets, b.positiveBuckets) && sameBuckets(a.negativeBuckets, b.negativeBuckets);
}

function sameBuckets(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Prometheus' spansMatch: the same layout after folding zero-length spans into the span that follows. */
export function spansMatch(s1: readonly Span[], s2: readonly Span[]): boolean {
  if (s1.length === 0 && s2.length === 0) return true;
  let i1 = 0;
  let i2 = 0;
  for (;;) {
    if (i1 >= s1.length) return allEmpty(s2, i2);
    if (i2 >= s2.length) return allEmpty(s1, i1);
    let o1 = s1[i1]!.offset;
    let l1 = s1[i1++]!.length;
    let o2 = s2[i2]!.offset;
    let l2 = s2[i2++]!.length;
    if (l1 === 0) {
      for (; i1 < s1.length && s1[i1]!.length === 0; i1++) o1 += s1[i1]!.offset;
      if (i1 < s1.length) {
        o1 += s1[i1]!.offset;
        l1 = s1[i1++]!.length;
      }
    }
    if (l2 === 0) {
      for (; i2 < s2.length && s2[i2]!.length === 0; i2++) o2 += s2[i2]!.offset;
      if (i2 < s2.length) {
        o2 += s2[i2]!.offset;
        l2 = s2[i2++]!.length;
      }
    }
    if (l1 === 0 && l2 === 0) return true;
    if (o1 !== o2 || l1 !== l2) return false;
  }
}

function allEmpty(s: readonly Span[], from: number): boolean {
  for (let i = from; i < s.length; i++) if (s[i]!.length > 0) return false;
  return true;
}
