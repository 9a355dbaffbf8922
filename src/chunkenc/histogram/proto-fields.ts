/**
 * Field numbers of prometheus.Histogram (proto/thanos/store/prompb/
 * types.proto), read by the write path and written by remote read; remote
 * write 2.0's Histogram has the same numbers (plus 17).
 */
export const HISTOGRAM_FIELD = {
  countInt: 1,
  countFloat: 2,
  sum: 3,
  schema: 4,
  zeroThreshold: 5,
  zeroCountInt: 6,
  zeroCountFloat: 7,
  negativeSpans: 8,
  negativeDeltas: 9,
  negativeCounts: 10,
  positiveSpans: 11,
  positiveDeltas: 12,
  positiveCounts: 13,
  resetHint: 14,
  timestamp: 15,
} as const;

/** Field numbers of prometheus.BucketSpan. */
export const SPAN_FIELD = { offset: 1, length: 2 } as const;
