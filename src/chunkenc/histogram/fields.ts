/**
 * One native histogram sample as read from the wire, in reusable typed
 * arrays (no object per sample, span or bucket), and Prometheus' checks of
 * it. The remote-write parser fills a HistogramFields per histogram message
 * it meets, validates it and writes its body (histogram-body.ts) into the batch.
 *
 * Float fields are kept as their 64 bits, two int32 words (low first), so
 * that NaN payloads (a stale marker's sum) reach the body untouched; their
 * values are read only to be checked.
 */

/** Bucket runs and counts of one side (negative or positive) of a histogram. */
export class SideFields {
  spanOffsets = new Int32Array(8);
  spanLengths = new Uint32Array(8);
  spans = 0;
  /** Integer histograms: bucket counts as deltas (each against the one before, the first against 0), exact integers. */
  deltas = new Float64Array(32);
  nDeltas = 0;
  /** Float histograms: absolute bucket counts as 64-bit words, two int32 per bucket, low first. */
  counts = new Int32Array(64);
  nCounts = 0;

  reset(): void {
    this.spans = 0;
    this.nDeltas = 0;
    this.nCounts = 0;
  }

  addSpan(offset: number, length: number): void {
    if (this.spans === this.spanOffsets.length) {
      const o = new Int32Array(this.spans * 2);
      o.set(this.spanOffsets);
      const l = new Uint32Array(this.spans * 2);
      l.set(this.spanLengths);
      this.spanOffsets = o;
      this.spanLengths = l;
    }
    this.spanOffsets[this.spans] = offset;
    this.spanLengths[this.spans] = length;
    this.spans++;
  }

  addDelta(d: number): void {
    if (this.nDeltas === this.deltas.length) {
      const next = new Float64Array(this.nDeltas * 2);
      next.set(this.deltas);
      this.deltas = next;
    }
    this.deltas[this.nDeltas++] = d;
  }

  addCount(lo: number, hi: number): void {
    if (this.nCounts * 2 === this.counts.length) {
      const next = new Int32Array(this.counts.length * 2);
      next.set(this.counts);
      this.counts = next;
    }
    this.counts[2 * this.nCounts] = lo;
    this.counts[2 * this.nCounts + 1] = hi;
    this.nCounts++;
  }

  /** Buckets this side holds for its kind. */
  buckets(float: boolean): number {
    return float ? this.nCounts : this.nDeltas;
  }
}

/**
 * The fields of a prometheus.Histogram message. Which kind it is follows
 * the `count` oneof, as Prometheus' IsFloatHistogram reads it: count_float
 * set makes a float histogram (counts, zero_count_float), otherwise it is
 * an integer one (deltas, zero_count_int); the other kind's fields are
 * ignored, as Prometheus' conversions ignore them.
 */
export class HistogramFields {
  float = false;
  /** count_int, exact (values of 2^53 and more set `problem`). */
  countInt = 0;
  countLo = 0;
  countHi = 0;
  /** Whether the zero_count oneof holds zero_count_float. */
  zeroFloat = false;
  zeroInt = 0;
  zeroLo = 0;
  zeroHi = 0;
  sumLo = 0;
  sumHi = 0;
  thresholdLo = 0;
  thresholdHi = 0;
  schema = 0;
  /** 0 unknown, 1 reset, 2 no reset, 3 gauge. */
  resetHint = 0;
  /** Timestamp (ms) as two int32 words, low first. */
  tLo = 0;
  tHi = 0;
  readonly neg = new SideFields();
  readonly pos = new SideFields();
  /** A value this store cannot hold exactly (an integer of 2^53 or more), found while reading. */
  problem: string | undefined;

  reset(): void {
    this.float = false;
    this.countInt = 0;
    this.countLo = 0;
    this.countHi = 0;
    this.zeroFloat = false;
    this.zeroInt = 0;
    this.zeroLo = 0;
    this.zeroHi = 0;
    this.sumLo = 0;
    this.sumHi = 0;
    this.thresholdLo = 0;
    this.thresholdHi = 0;
    this.schema = 0;
    this.resetHint = 0;
    this.tLo = 0;
    this.tHi = 0;
    this.neg.reset();
    this.pos.reset();
    this.problem = undefined;
  }

  /** The timestamp as a number (exact: validate() refuses times beyond ±MAX_HISTOGRAM_TIME). */
  get t(): number {
    return this.tHi * 4294967296 + (this.tLo >>> 0);
  }
}

/** Exponential schemas Prometheus defines (histogram.ExponentialSchemaMin/Max). */
export const SCHEMA_MIN = -4;
export const SCHEMA_MAX = 8;
/**
 * A histogram's timestamp must lie closer to 1970 than this (ms, about
 * 142,000 years): the chunk files hold times exactly within ±2^52, and the
 * WAL record's time deltas stay within 2^53.
 */
export const MAX_HISTOGRAM_TIME = 2 ** 52;

// Prometheus 2.42's storage errors, whose words clients know.
const SPANS_MISMATCH = 'histogram spans specify different number of buckets than provided';
const NEGATIVE_OFFSET = 'histogram has a span whose offset is negative';
const NEGATIVE_COUNT = 'histogram has a bucket whose observation count is negative';
const COUNT_TOO_SMALL = "histogram's observation count should be at least the number of observations found in the buckets";

const words = new Int32Array(2);
const asFloat = new Float64Array(words.buffer);

/** The double whose bits are these words (its value only: for checks, never stored). */
function doubleOf(lo: number, hi: number): number {
  words[0] = lo;
  words[1] = hi;
  return asFloat[0]!;
}

/** Go's %f: six decimals (Infinity and NaN as Go prints them). */
function goF(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  return x.toFixed(6);
}

/**
 * What is wrong with the histogram, in Prometheus' words, or undefined
 * when it may be stored. The checks of Prometheus 2.42's ValidateHistogram
 * and ValidateFloatHistogram (tsdb/head_append.go), in their order: spans
 * of the negative then the positive side (no negative offset after the
 * first span, lengths adding up to the bucket count), bucket counts of
 * each side (none negative; deltas summed for integer histograms), then
 * the count at least the buckets' total (NaN passes, as in Go). Before
 * them, what 2.42 leaves out and later Prometheus versions check: the
 * schema within -4..8 and a zero threshold that is a number >= 0; and what
 * this store cannot hold: integers of 2^53 or more, times beyond ±2^52 ms.
 */
export function validateHistogram(h: HistogramFields): string | undefined {
  if (h.problem !== undefined) return h.problem;
  const t = h.t;
  if (!(Math.abs(t) < MAX_HISTOGRAM_TIME)) return `timestamp ${t} lies 2^52 ms or more from 1970, which this store does not hold`;
  if (h.schema < SCHEMA_MIN || h.schema > SCHEMA_MAX) {
    return `histogram has an invalid schema ${h.schema}, which must be between ${SCHEMA_MIN} and ${SCHEMA_MAX}`;
  }
  const threshold = doubleOf(h.thresholdLo, h.thresholdHi);
  if (!(threshold >= 0)) return `histogram has an invalid zero threshold ${threshold}, which must be a number >= 0`;
  const float = h.float;
  const spans = checkSpans(h.neg, float, 'negative') ?? checkSpans(h.pos, float, 'positive');
  if (spans !== undefined) return spans;
  if (!float) {
    const n = checkIntBuckets(h.neg, 'negative');
    if (typeof n === 'string') return n;
    const p = checkIntBuckets(h.pos, 'positive');
    if (typeof p === 'string') return p;
    if (n + p > Number.MAX_SAFE_INTEGER) return `the buckets hold ${n + p} observations, more than 2^53, which this store does not hold exactly`;
    if (n + p > h.countInt) return `${n + p} observations found in buckets, but the Count field is ${h.countInt}: ${COUNT_TOO_SMALL}`;
    return undefined;
  }
  const n = checkFloatBuckets(h.neg, 'negative');
  if (typeof n === 'string') return n;
  const p = checkFloatBuckets(h.pos, 'positive');
  if (typeof p === 'string') return p;
  const count = doubleOf(h.countLo, h.countHi);
  if (n + p > count) return `${goF(n + p)} observations found in buckets, but the Count field is ${goF(count)}: ${COUNT_TOO_SMALL}`;
  return undefined;
}

function checkSpans(side: SideFields, float: boolean, name: string): string | undefined {
  let total = 0;
  for (let i = 0; i < side.spans; i++) {
    const offset = side.spanOffsets[i]!;
    if (i > 0 && offset < 0) return `${name} side: span number ${i + 1} with offset ${offset}: ${NEGATIVE_OFFSET}`;
    total += side.spanLengths[i]!;
  }
  const have = side.buckets(float);
  if (total !== have) return `${name} side: spans need ${total} buckets, have ${have} buckets: ${SPANS_MISMATCH}`;
  return undefined;
}

/** The total of an integer side's buckets, or what is wrong with them. */
function checkIntBuckets(side: SideFields, name: string): number | string {
  let last = 0;
  let total = 0;
  for (let i = 0; i < side.nDeltas; i++) {
    const c = last + side.deltas[i]!;
    if (c < 0) return `${name} side: bucket number ${i + 1} has observation count of ${c}: ${NEGATIVE_COUNT}`;
    if (c > Number.MAX_SAFE_INTEGER) return `${name} side: bucket number ${i + 1} has an observation count above 2^53, which this store does not hold exactly`;
    last = c;
    total += c;
  }
  return total;
}

/** The total of a float side's buckets, or what is wrong with them. */
function checkFloatBuckets(side: SideFields, name: string): number | string {
  let total = 0;
  for (let i = 0; i < side.nCounts; i++) {
    const c = doubleOf(side.counts[2 * i]!, side.counts[2 * i + 1]!);
    if (c < 0) return `${name} side: bucket number ${i + 1} has observation count of ${c}: ${NEGATIVE_COUNT}`;
    total += c;
  }
  return total;
}
