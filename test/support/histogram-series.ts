/**
 * Native histogram series for read-side tests: valid integer and float
 * histograms in one bucket layout (counters that grow, a reset where
 * asked, a stale marker where asked), chunks made with the codec's
 * TypeScript oracle, and the test's own reading of chunks back into
 * samples with the same oracle (not the read path under test).
 */
import { TsFloatHistogramCodec, TsHistogramCodec } from '../../src/chunkenc/histogram/ts-codec.js';
import type { FloatHistogram, Histogram, Span } from '../../src/chunkenc/histogram/types.js';
import { threadCodec } from '../../src/chunkenc/index.js';
import { rng } from './series.js';

export const XOR = 1;
export const HISTOGRAM = 2;
export const FLOAT_HISTOGRAM = 3;
/** Prometheus' stale marker bits. */
export const STALE_BITS = 0x7ff0000000000002n;

/** A sample of any type, as the tests compare them. */
export type AnySample =
  | { t: number; kind: 'float'; bits: bigint }
  | { t: number; kind: 'histogram' | 'float-histogram'; h: Histogram | FloatHistogram };

/** A chunk as the block writer and readers take it. */
export interface TestChunk {
  minT: number;
  maxT: number;
  encoding: number;
  data: Uint8Array;
}

const POSITIVE: Span[] = [{ offset: -2, length: 3 }, { offset: 2, length: 2 }];
const NEGATIVE: Span[] = [{ offset: 1, length: 2 }];

/** Absolute counts to deltas (each against the bucket before, the first against 0). */
function deltas(abs: readonly number[]): number[] {
  return abs.map((x, i) => x - (i === 0 ? 0 : abs[i - 1]!));
}

export interface HistogramOptions {
  /** Float histograms (encoding 3) instead of integer ones. */
  float?: boolean;
  /** Index of a sample where the counters start again from small values (a counter reset). */
  resetAt?: number;
  /** Make the last sample a stale marker. */
  staleLast?: boolean;
  /** Schema of the layout (default 3). */
  schema?: number;
}

/**
 * `n` histograms at t0, t0 + step, ...: counters in one layout (5
 * positive, 2 negative buckets) that grow each sample.
 */
export function histogramSamples(n: number, t0: number, step: number, seed: number, opts: HistogramOptions = {}): { t: number[]; h: Array<Histogram | FloatHistogram> } {
  const next = rng(seed);
  const t: number[] = [];
  const h: Array<Histogram | FloatHistogram> = [];
  let pos = [1, 2, 3, 4, 5];
  let neg = [1, 1];
  let zero = 1;
  let sum = 10;
  const frac = opts.float ? 0.25 : 0;
  for (let i = 0; i < n; i++) {
    if (i === opts.resetAt) {
      pos = [0, 1, 0, 1, 0];
      neg = [0, 0];
      zero = 0;
      sum = 0.5;
    }
    pos = pos.map((x) => x + Math.floor(next() * 4) + frac);
    neg = neg.map((x) => x + Math.floor(next() * 2));
    zero += Math.floor(next() * 3);
    sum += next() * 100;
    const count = zero + pos.reduce((a, b) => a + b, 0) + neg.reduce((a, b) => a + b, 0);
    t.push(t0 + i * step);
    h.push({
      counterResetHint: 0,
      schema: opts.schema ?? 3,
      zeroThreshold: 0.001,
      zeroCount: zero,
      count,
      sum,
      positiveSpans: POSITIVE.map((s) => ({ ...s })),
      negativeSpans: NEGATIVE.map((s) => ({ ...s })),
      positiveBuckets: opts.float ? pos.slice() : deltas(pos),
      negativeBuckets: opts.float ? neg.slice() : deltas(neg),
    });
  }
  if (opts.staleLast && n > 0) {
    const sums = new Float64Array(BigUint64Array.of(STALE_BITS).buffer);
    const stale = h[n - 1]!;
    // From the typed array straight into the object field: the bits survive.
    stale.sum = sums[0]!;
  }
  return { t, h };
}

/** One chunk of `encoding` 2 or 3 holding the samples (the oracle's bytes). */
export function histogramChunk(encoding: number, t: readonly number[], h: ReadonlyArray<Histogram | FloatHistogram>): TestChunk {
  const ts = BigInt64Array.from(t.map((x) => BigInt(x)));
  const data = encoding === HISTOGRAM ? new TsHistogramCodec().encode(ts, h as Histogram[]) : new TsFloatHistogramCodec().encode(ts, h as FloatHistogram[]);
  return { minT: t[0]!, maxT: t[t.length - 1]!, encoding, data };
}

/** One XOR chunk of float samples. */
export function xorChunk(t: readonly number[], values: Float64Array): TestChunk {
  const data = threadCodec().encode(BigInt64Array.from(t.map((x) => BigInt(x))), values);
  return { minT: t[0]!, maxT: t[t.length - 1]!, encoding: XOR, data };
}

/** Float values for a series' float stretch (no NaN: compared by bits anyway). */
export function floatValues(n: number, seed: number): Float64Array {
  const next = rng(seed);
  return Float64Array.from({ length: n }, () => Math.round(next() * 1e6) / 8);
}

/** The test's own reading of a chunk: every sample, by the oracle codecs. */
export function chunkSamples(encoding: number, data: Uint8Array): AnySample[] {
  if (encoding === XOR) {
    const d = threadCodec().decode(data);
    const bits = new BigUint64Array(d.values.buffer, d.values.byteOffset, d.values.length);
    return Array.from(d.timestamps, (t, i) => ({ t: Number(t), kind: 'float' as const, bits: bits[i]! }));
  }
  const d = encoding === HISTOGRAM ? new TsHistogramCodec().decode(data) : new TsFloatHistogramCodec().decode(data);
  const kind = encoding === HISTOGRAM ? 'histogram' as const : 'float-histogram' as const;
  return Array.from(d.timestamps, (t, i) => ({ t: Number(t), kind, h: d.histograms[i]! }));
}

/** Samples of written chunks, as `chunkSamples` reads them. */
export function samplesOf(chunks: readonly TestChunk[]): AnySample[] {
  return chunks.flatMap((c) => chunkSamples(c.encoding, c.data));
}

const sumBits = new Float64Array(1);
const sumWords = new BigUint64Array(sumBits.buffer);

/**
 * A sample as a comparable value: histograms without their reset hint
 * (which follows from the chunk a sample lands in, not from the sample),
 * sums and float counts as bit patterns.
 */
export function comparable(s: AnySample): unknown {
  if (s.kind === 'float') return { t: s.t, float: s.bits.toString(16) };
  const { counterResetHint: _hint, sum, ...rest } = s.h;
  sumBits[0] = sum;
  return { t: s.t, kind: s.kind, ...rest, sum: sumWords[0]!.toString(16) };
}

/** Whether a histogram sample is a stale marker (its sum is the stale NaN, bit for bit). */
export function isStale(s: AnySample): boolean {
  if (s.kind === 'float') return s.bits === STALE_BITS;
  sumBits[0] = s.h.sum;
  return sumWords[0] === STALE_BITS;
}
