import { ENCODING_HISTOGRAM, type HistogramEncoding } from '../encoding.js';
import { isStaleNaN, type ChunkLayout } from './check.js';
import { HEADER_GAUGE, type CounterResetHeader } from './codec.js';
import {
  counterResetInAnyBucket, expandSpansBothWays, expandSpansForward, type Insert,
} from './spans.js';
import type { FloatHistogram, Histogram, Span } from './types.js';

// Whether a histogram can go into the chunk the last one went into:
// Prometheus 2.42's HistogramAppender.Appendable / AppendableGauge (and the
// float twins, which differ only in holding absolute bucket counts).

/** What Prometheus' appender of a chunk knows when the next sample comes. */
export interface AppenderState {
  encoding: HistogramEncoding;
  /** The chunk's counter-reset header. */
  header: CounterResetHeader;
  /** Samples in the chunk (at least 1). */
  count: number;
  /** The chunk's layout, as its first sample set it. */
  layout: ChunkLayout;
  /** The last sample appended (after any recoding), whose counts and buckets the next is compared with. */
  last: LastSample;
}

/**
 * What Appendable compares of the last sample (bucket arrays as the sample
 * holds them): the chunker's own copy, updated in place on its fast path.
 */
export interface LastSample extends Pick<Histogram | FloatHistogram, 'count' | 'zeroCount' | 'sum'> {
  positiveBuckets: number[];
  negativeBuckets: number[];
}

export interface Appendability {
  ok: boolean;
  counterReset: boolean;
  positiveInserts: Insert[];
  negativeInserts: Insert[];
}

const NONE: Appendability = Object.freeze({ ok: false, counterReset: false, positiveInserts: [], negativeInserts: [] });
const OK: Appendability = Object.freeze({ ok: true, counterReset: false, positiveInserts: [], negativeInserts: [] });
const RESET: Appendability = Object.freeze({ ok: false, counterReset: true, positiveInserts: [], negativeInserts: [] });

/**
 * Appendable: not ok on a gauge chunk, after a stale marker (unless `h` is
 * one), on a new schema or zero threshold; a counter reset when the count,
 * the zero count or any bucket dropped or a bucket disappeared; otherwise
 * ok, with the inserts that widen the chunk's layout to `h`'s.
 */
export function appendable(a: AppenderState, h: Histogram | FloatHistogram): Appendability {
  if (a.count > 0 && a.header === HEADER_GAUGE) return NONE;
  if (isStaleNaN(h.sum)) return OK;
  if (isStaleNaN(a.last.sum)) return NONE;
  if (h.count < a.last.count) return RESET;
  if (h.schema !== a.layout.schema || h.zeroThreshold !== a.layout.zeroThreshold) return NONE;
  if (h.zeroCount < a.last.zeroCount) return RESET;
  const deltas = a.encoding === ENCODING_HISTOGRAM;
  // The common case, a scrape with the chunk's very spans: no inserts, buckets compared pairwise.
  if (sameSpans(a.layout.positiveSpans, h.positiveSpans) && sameSpans(a.layout.negativeSpans, h.negativeSpans)) {
    if (dropped(a.last.positiveBuckets, h.positiveBuckets, deltas) || dropped(a.last.negativeBuckets, h.negativeBuckets, deltas)) return RESET;
    return OK;
  }
  const positiveInserts = expandSpansForward(a.layout.positiveSpans, h.positiveSpans);
  if (positiveInserts === undefined) return RESET;
  const negativeInserts = expandSpansForward(a.layout.negativeSpans, h.negativeSpans);
  if (negativeInserts === undefined) return RESET;
  if (counterResetInAnyBucket(a.last.positiveBuckets, h.positiveBuckets, a.layout.positiveSpans, h.positiveSpans, deltas)
    || counterResetInAnyBucket(a.last.negativeBuckets, h.negativeBuckets, a.layout.negativeSpans, h.negativeSpans, deltas)) {
    return RESET;
  }
  return { ok: true, counterReset: false, positiveInserts, negativeInserts };
}

function sameSpans(a: readonly Span[], b: readonly Span[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.offset !== b[i]!.offset || a[i]!.length !== b[i]!.length) return false;
  return true;
}

/** Whether any bucket of the same layout dropped (counterResetInAnyBucket for equal spans); `deltas`: counts as deltas, accumulated. */
export function dropped(old: readonly number[], now: ArrayLike<number>, deltas: boolean): boolean {
  let o = 0;
  let n = 0;
  for (let i = 0; i < old.length; i++) {
    o = deltas ? o + old[i]! : old[i]!;
    n = deltas ? n + now[i]! : now[i]!;
    if (n < o) return true;
  }
  return false;
}

export interface GaugeAppendability {
  ok: boolean;
  positiveInserts: Insert[];
  negativeInserts: Insert[];
  /** Inserts that widen `h` to the union of both layouts. */
  positiveBackward: Insert[];
  negativeBackward: Insert[];
  positiveMerged: Span[];
  negativeMerged: Span[];
}

const GAUGE_NONE: GaugeAppendability = Object.freeze({
  ok: false, positiveInserts: [], negativeInserts: [], positiveBackward: [], negativeBackward: [], positiveMerged: [], negativeMerged: [],
});

/**
 * AppendableGauge: not ok on a chunk that is not a gauge chunk, after a
 * stale marker (unless `h` is one), on a new schema or zero threshold;
 * otherwise ok, with the inserts that widen the chunk and `h` to the union
 * of their buckets. Buckets may come and go: a gauge has no resets.
 */
export function appendableGauge(a: AppenderState, h: Histogram | FloatHistogram): GaugeAppendability {
  if (a.count > 0 && a.header !== HEADER_GAUGE) return GAUGE_NONE;
  if (isStaleNaN(h.sum)) return { ...GAUGE_NONE, ok: true };
  if (isStaleNaN(a.last.sum)) return GAUGE_NONE;
  if (h.schema !== a.layout.schema || h.zeroThreshold !== a.layout.zeroThreshold) return GAUGE_NONE;
  const p = expandSpansBothWays(a.layout.positiveSpans, h.positiveSpans);
  const n = expandSpansBothWays(a.layout.negativeSpans, h.negativeSpans);
  return {
    ok: true,
    positiveInserts: p.forward,
    negativeInserts: n.forward,
    positiveBackward: p.backward,
    negativeBackward: n.backward,
    positiveMerged: p.merged,
    negativeMerged: n.merged,
  };
}
