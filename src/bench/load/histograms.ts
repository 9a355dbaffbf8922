/**
 * Native histogram samples for the share of a load's series that carry
 * them (`--histogram-share`): request latencies as a Prometheus client
 * library with native histograms reports them, integer counter histograms
 * of schema 3 (bucket factor 2^(1/8), about 1.09: client_golang's
 * NativeHistogramBucketFactor 1.1), observations between about 40 ms and
 * 0.3 s, about a hundred a scrape, deterministic from a seed.
 *
 * Encoded with the generated prometheus.Histogram encoder: a histogram
 * sample is one object per sample here, which is fine because the whole
 * load is encoded before the clock starts (floats take the hand-written path).
 */
import { Histogram, Histogram_ResetHint } from '../../gen/prometheus/types.js';
import { mulberry32 } from './values.js';

/** Schema 3: bucket i holds (2^((i-1)/8), 2^(i/8)]. */
const SCHEMA = 3;
/** Buckets a histogram series fills, indexes OFFSET.. OFFSET+23: from (2^(-37/8), 2^(-36/8)], about 0.04 s, to 2^(-13/8), about 0.32 s. */
const BUCKETS = 24;
const OFFSET = -36;
/** Prometheus' default zero threshold (2^-128). */
const ZERO_THRESHOLD = 2 ** -128;
/** Relative weight of each bucket: a bell over the buckets, as latencies bunch around a median. */
const WEIGHTS = Float64Array.from({ length: BUCKETS }, (_, b) => Math.exp(-(((b - BUCKETS * 0.4) / (BUCKETS / 5)) ** 2)));
const WEIGHT_SUM = WEIGHTS.reduce((a, b) => a + b, 0);

/**
 * Which series carry histograms: `floor(count * share)` of them, spread
 * evenly over the series numbers (series i does when floor((i+1)*share)
 * passes a whole number), the same every run.
 */
export function histogramSlots(count: number, share: number): Uint8Array {
  const out = new Uint8Array(count);
  if (share <= 0) return out;
  for (let i = 0; i < count; i++) if (Math.floor((i + 1) * share) > Math.floor(i * share)) out[i] = 1;
  return out;
}

/** The state of every histogram series: absolute bucket counts, zero count, count and sum. */
export class HistogramStepper {
  private readonly buckets: Float64Array;
  private readonly zero: Float64Array;
  private readonly sum: Float64Array;
  private readonly random: () => number;
  /** slot of series i among the histogram series, or -1. */
  private readonly slotOf: Int32Array;

  constructor(slots: Uint8Array, seed = 7) {
    this.random = mulberry32(seed);
    this.slotOf = new Int32Array(slots.length).fill(-1);
    let n = 0;
    for (let i = 0; i < slots.length; i++) if (slots[i] === 1) this.slotOf[i] = n++;
    this.buckets = new Float64Array(n * BUCKETS);
    this.zero = new Float64Array(n);
    this.sum = new Float64Array(n);
  }

  /** Forgets series i's counts (a new series in its slot: churn). */
  reset(i: number): void {
    const s = this.slotOf[i]!;
    if (s < 0) return;
    this.buckets.fill(0, s * BUCKETS, (s + 1) * BUCKETS);
    this.zero[s] = 0;
    this.sum[s] = 0;
  }

  /** Observes one scrape's worth for series i and returns its encoded prometheus.Histogram at `timestamp`. */
  next(i: number, timestamp: number): Uint8Array {
    const s = this.slotOf[i]!;
    if (s < 0) throw new Error(`series ${i} carries no histogram`);
    const observations = 50 + Math.floor(this.random() * 100);
    const at = s * BUCKETS;
    let added = 0;
    for (let b = 0; b < BUCKETS; b++) {
      const k = Math.round((observations * WEIGHTS[b]! / WEIGHT_SUM) * (0.5 + this.random()));
      this.buckets[at + b] = this.buckets[at + b]! + k;
      added += k;
    }
    if (this.random() < 0.05) this.zero[s] = this.zero[s]! + 1;
    // Mean latency about 0.1 s.
    this.sum[s] = this.sum[s]! + added * (0.08 + 0.04 * this.random());
    let count = this.zero[s]!;
    const deltas: bigint[] = new Array(BUCKETS);
    let previous = 0;
    for (let b = 0; b < BUCKETS; b++) {
      const c = this.buckets[at + b]!;
      count += c;
      deltas[b] = BigInt(c - previous);
      previous = c;
    }
    return Histogram.encode({
      count: { $case: 'countInt', value: BigInt(count) },
      sum: this.sum[s]!,
      schema: SCHEMA,
      zeroThreshold: ZERO_THRESHOLD,
      zeroCount: { $case: 'zeroCountInt', value: BigInt(this.zero[s]!) },
      negativeSpans: [],
      negativeDeltas: [],
      negativeCounts: [],
      positiveSpans: [{ offset: OFFSET, length: BUCKETS }],
      positiveDeltas: deltas,
      positiveCounts: [],
      resetHint: Histogram_ResetHint.UNKNOWN,
      timestamp: BigInt(timestamp),
      customValues: [],
    }).finish();
  }
}
