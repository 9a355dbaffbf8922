/**
 * OTLP exponential histogram points as Prometheus native histograms, as
 * Prometheus' exponentialToNativeHistogram and convertBucketsLayout
 * (storage/remote/otlptranslator/prometheusremotewrite/histograms.go) make
 * them: the scale is the schema (scales above 8 merged down to 8, below -4
 * refused), OTLP bucket i of offset o is Prometheus bucket o + i + 1
 * (OTLP's buckets are lower-exclusive, Prometheus' upper-inclusive), runs
 * of more than two empty buckets start a new span, and the zero threshold
 * is Prometheus' default (2^-128), not the point's.
 */
import type { ExpHistogramPoint } from './model.js';
import type { OutHistogram } from './translated.js';

/** histogram.ExponentialSchemaMin and Max. */
const SCHEMA_MIN = -4;
const SCHEMA_MAX = 8;
/** Prometheus' defaultZeroThreshold: 2^-128. */
const DEFAULT_ZERO_THRESHOLD = 2.938735877055719e-39;

/** convertBucketsLayout with adjustOffset: spans as offset, length pairs and the deltas. */
function layout(counts: number[], offset: number, scaleDown: number): { spans: number[]; deltas: number[] } {
  const spans: number[] = [];
  const deltas: number[] = [];
  if (counts.length === 0) return { spans, deltas };
  let count = 0;
  let prev = 0;
  const append = (c: number): void => {
    spans[spans.length - 1] = spans[spans.length - 1]! + 1;
    deltas.push(c - prev);
    prev = c;
  };
  let bucketIdx = (offset >> scaleDown) + 1;
  spans.push((offset >> scaleDown) + 1, 0);
  for (let i = 0; i < counts.length; i++) {
    const next = ((i + offset) >> scaleDown) + 1;
    if (bucketIdx === next) {
      count += counts[i]!;
      continue;
    }
    if (count === 0) {
      count = counts[i]!;
      continue;
    }
    const gap = next - bucketIdx - 1;
    if (gap > 2) spans.push(gap, 0);
    else for (let g = 0; g < gap; g++) append(0);
    append(count);
    count = counts[i]!;
    bucketIdx = next;
  }
  const gap = ((counts.length + offset - 1) >> scaleDown) + 1 - bucketIdx;
  if (gap > 2) spans.push(gap, 0);
  else for (let g = 0; g < gap; g++) append(0);
  append(count);
  return { spans, deltas };
}

/** The native histogram of a point, or an Error for a scale below -4. */
export function nativeHistogram(p: ExpHistogramPoint, delta: boolean): OutHistogram | Error {
  let scale = p.scale;
  if (scale < SCHEMA_MIN) return new Error(`cannot convert exponential to native histogram. Scale must be >= ${SCHEMA_MIN}, was ${scale}`);
  let scaleDown = 0;
  if (scale > SCHEMA_MAX) {
    scaleDown = scale - SCHEMA_MAX;
    scale = SCHEMA_MAX;
  }
  const pos = layout(p.positive.counts, p.positive.offset, scaleDown);
  const neg = layout(p.negative.counts, p.negative.offset, scaleDown);
  const stale = (p.flags & 1) !== 0;
  return {
    timeMs: p.timeMs,
    count: stale ? 0 : p.count,
    sum: stale ? NaN : p.sum ?? 0,
    stale,
    schema: scale,
    zeroThreshold: DEFAULT_ZERO_THRESHOLD,
    zeroCount: p.zeroCount,
    positiveSpans: pos.spans,
    positiveDeltas: pos.deltas,
    negativeSpans: neg.spans,
    negativeDeltas: neg.deltas,
    // UnknownCounterReset for cumulative points, GaugeType for delta ones.
    resetHint: delta ? 3 : 0,
  };
}
