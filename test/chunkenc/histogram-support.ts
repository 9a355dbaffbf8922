// Histogram series for the histogram codec tests and benchmark: hand-made
// shapes from Prometheus' own chunkenc tests, and seeded random series that
// reach every branch of the format. Deterministic: every generator takes a
// seeded random source (rng from test/support/series.ts).
import type { FloatHistogram, Histogram, Span } from '../../src/chunkenc/histogram/types.js';

export const STALE_NAN = new Float64Array(new BigUint64Array([0x7ff0000000000002n]).buffer)[0]!;

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

export function bitsOf(v: number): bigint {
  f64[0] = v;
  return u64[0]!;
}

export function floatOf(bits: bigint): number {
  u64[0] = bits;
  return f64[0]!;
}

/** An integer histogram; buckets are given as absolute counts and stored as deltas. */
export function ih(opts: {
  count: number; sum: number; zeroCount?: number; schema?: number; zeroThreshold?: number; hint?: 0 | 1 | 2 | 3;
  positiveSpans?: readonly Span[]; negativeSpans?: readonly Span[]; positive?: readonly number[]; negative?: readonly number[];
}): Histogram {
  return {
    counterResetHint: opts.hint ?? 0,
    schema: opts.schema ?? 0,
    zeroThreshold: opts.zeroThreshold ?? 2 ** -128,
    zeroCount: opts.zeroCount ?? 0,
    count: opts.count,
    sum: opts.sum,
    positiveSpans: opts.positiveSpans ?? [],
    negativeSpans: opts.negativeSpans ?? [],
    positiveBuckets: toDeltas(opts.positive ?? []),
    negativeBuckets: toDeltas(opts.negative ?? []),
  };
}

/** A float histogram with absolute buckets. */
export function fh(opts: Parameters<typeof ih>[0]): FloatHistogram {
  const h = ih(opts);
  return { ...h, positiveBuckets: opts.positive ?? [], negativeBuckets: opts.negative ?? [] };
}

export function toDeltas(abs: readonly number[]): number[] {
  let prev = 0;
  return abs.map((v) => {
    const d = v - prev;
    prev = v;
    return d;
  });
}

export function toFloat(h: Histogram): FloatHistogram {
  let acc = 0;
  const abs = (ds: readonly number[]): number[] => {
    acc = 0;
    return ds.map((d) => (acc += d));
  };
  return { ...h, positiveBuckets: abs(h.positiveBuckets), negativeBuckets: abs(h.negativeBuckets) };
}

/** A stale marker as a sender writes it (other fields arbitrary). */
export function stale(): Histogram {
  return ih({ count: 0, sum: STALE_NAN });
}

function countSpans(spans: Span[]): number {
  return spans.reduce((n, s) => n + s.length, 0);
}

/** Magnitudes that cross every varbit width (3, 6, 9, 12, 18, 25, 56 bits). */
const EDGES = [0, 1, -1, 3, 4, -3, -4, 5, 31, 32, -31, -32, 33, 255, 256, -255, -256, 257, 2047, 2048, -2048, 2049,
  131071, 131072, -131072, 131073, 16777215, 16777216, -16777216, 16777217, 2 ** 40, -(2 ** 40), 2 ** 52, -(2 ** 52)];

const THRESHOLDS = [0, 2 ** -128, 0.001, 2 ** 10, 2 ** 11, 2 ** -243, 2 ** -244, 1e-9, 0.5, 3];
const GAPS = [15_000, 15_000, 15_000, 1, 0, 30_000, 8193, -5, 2 ** 40, -(2 ** 40)];

function pick<T>(next: () => number, xs: readonly T[]): T {
  return xs[Math.floor(next() * xs.length)]!;
}

function randomSpans(next: () => number): Span[] {
  const n = Math.floor(next() * 4);
  const spans: Span[] = [];
  for (let i = 0; i < n; i++) {
    // Zero-length spans are legal; offsets after the first are non-negative.
    const length = next() < 0.1 ? 0 : 1 + Math.floor(next() * 6);
    const offset = i === 0 ? Math.floor(next() * 20) - 10 : Math.floor(next() * 4);
    spans.push({ offset, length });
  }
  return spans;
}

/** A random series of one layout: what one chunk holds. Timestamps as int64. */
export function randomSeries(next: () => number, n: number, float: false): { timestamps: BigInt64Array; histograms: Histogram[] };
export function randomSeries(next: () => number, n: number, float: true): { timestamps: BigInt64Array; histograms: FloatHistogram[] };
export function randomSeries(next: () => number, n: number, float: boolean): { timestamps: BigInt64Array; histograms: Histogram[] | FloatHistogram[] } {
  const schema = Math.floor(next() * 13) - 4;
  const zeroThreshold = pick(next, THRESHOLDS);
  const positiveSpans = randomSpans(next);
  const negativeSpans = randomSpans(next);
  const np = countSpans(positiveSpans);
  const nn = countSpans(negativeSpans);
  const wild = next() < 0.3;
  const timestamps = new BigInt64Array(n);
  let t = BigInt(Math.floor((next() - 0.5) * 2 ** 44));
  const out: (Histogram | FloatHistogram)[] = [];
  let pos = Array.from({ length: np }, () => Math.floor(next() * 10));
  let neg = Array.from({ length: nn }, () => Math.floor(next() * 10));
  let zc = Math.floor(next() * 5);
  let sum = next() * 1000;
  const staleFrom = next() < 0.15 ? Math.floor(next() * n) : n;
  for (let i = 0; i < n; i++) {
    t += BigInt(pick(next, wild ? GAPS : GAPS.slice(0, 4)));
    timestamps[i] = t;
    if (i >= staleFrom) {
      out.push(float ? toFloat(stale()) : stale());
      continue;
    }
    const step = (v: number): number => {
      if (wild && next() < 0.3) return Math.abs(pick(next, EDGES));
      return v + Math.floor(next() * 4);
    };
    pos = pos.map(step);
    neg = neg.map(step);
    zc = step(zc);
    sum = next() < 0.1 ? sum : sum + next() * 100;
    const count = zc + pos.reduce((a, b) => a + b, 0) + neg.reduce((a, b) => a + b, 0);
    const h = ih({
      count: Math.min(count, Number.MAX_SAFE_INTEGER), sum, zeroCount: zc, schema, zeroThreshold,
      positiveSpans: positiveSpans.map((s) => ({ ...s })), negativeSpans: negativeSpans.map((s) => ({ ...s })),
      positive: pos, negative: neg,
    });
    if (!float) {
      out.push(h);
    } else {
      const f = toFloat(h);
      if (wild && next() < 0.2) f.sum = pick(next, [Infinity, -Infinity, -0, 5e-324, floatOf(0x7ff8000000000001n), 1e308]);
      if (wild && next() < 0.2) f.count = f.count + 0.5;
      out.push(f);
    }
  }
  return { timestamps, histograms: out as Histogram[] };
}

/** A realistic scrape series: `buckets` populated buckets in one span of schema 3, counters rising every 15 s. */
export function scrapeHistograms(n: number, buckets: number, seed: () => number, start = 1_700_000_000_000n) {
  const timestamps = new BigInt64Array(n);
  const abs = Array.from({ length: buckets }, () => Math.floor(seed() * 50));
  const histograms: Histogram[] = [];
  let t = start;
  let sum = 0;
  let zc = 0;
  for (let i = 0; i < n; i++) {
    t += 15_000n + BigInt(Math.floor(seed() * 5) - 2);
    timestamps[i] = t;
    for (let k = 0; k < buckets; k++) abs[k]! += Math.floor(seed() * 8);
    zc += Math.floor(seed() * 2);
    sum += seed() * 400;
    const count = zc + abs.reduce((a, b) => a + b, 0);
    histograms.push(ih({
      count, sum, zeroCount: zc, schema: 3,
      positiveSpans: [{ offset: -Math.floor(buckets / 2), length: buckets - Math.floor(buckets / 4) }, { offset: 2, length: Math.floor(buckets / 4) }],
      positive: abs,
    }));
  }
  return { timestamps, histograms };
}

/** What Prometheus returns for `h` after a chunk round trip: a stale marker loses everything but its sum. */
export function asDecoded<H extends Histogram | FloatHistogram>(h: H, hint: 0 | 1 | 2 | 3): H {
  if (bitsOf(h.sum) === 0x7ff0000000000002n) {
    return { counterResetHint: 0, schema: 0, zeroThreshold: 0, zeroCount: 0, count: 0, sum: h.sum, positiveSpans: [], negativeSpans: [], positiveBuckets: [], negativeBuckets: [] } as unknown as H;
  }
  // The zero threshold is stored as 0 for -0.
  return { ...h, counterResetHint: hint, zeroThreshold: h.zeroThreshold === 0 ? 0 : h.zeroThreshold };
}

/** One step of a series as the head sees it: a timestamp (ms) and an integer or float histogram. */
export interface HeadStep {
  t: number;
  float: boolean;
  h: Histogram | FloatHistogram;
}

function spansOf(indices: number[], split: boolean): Span[] {
  const spans: Span[] = [];
  let last = 0;
  for (const idx of indices) {
    const gap = spans.length === 0 ? idx : idx - last - 1;
    if (spans.length > 0 && gap === 0 && !(split && idx % 3 === 0)) spans[spans.length - 1]!.length++;
    else spans.push({ offset: gap, length: 1 });
    last = idx;
  }
  return spans;
}

/**
 * A series as a head sees it over time, made to reach every rule of the
 * chunker: steady counters (cuts by sample count and by chunk range), new
 * buckets (recode), lost buckets and dropped counts (resets), a schema or
 * zero threshold change, explicit reset and gauge hints (gauge buckets come
 * and go), stale markers, switches between integer and float histograms,
 * repeated and older timestamps, a faster scrape interval. `eventful` (0..1]
 * scales how often anything but a steady scrape happens. Deterministic for
 * a given `next`.
 */
export function headSeries(next: () => number, n: number, eventful = 1): HeadStep[] {
  const steps: HeadStep[] = [];
  let t = Math.floor(next() * 2 ** 40);
  let float = next() < 0.3;
  let schema = Math.floor(next() * 5);
  let zeroThreshold = 2 ** -128;
  let pos = new Map<number, number>();
  let neg = new Map<number, number>();
  for (let i = 0; i < 1 + Math.floor(next() * 6); i++) pos.set(Math.floor(next() * 12) - 4, Math.floor(next() * 5));
  if (next() < 0.4) neg.set(Math.floor(next() * 5), Math.floor(next() * 5));
  let zc = 0;
  let sum = 0;
  let gauge = false;
  let staleRun = 0;
  let interval = 15_000;
  for (let i = 0; i < n; i++) {
    const r = next() / eventful;
    // Time: mostly scrapes; sometimes a jump over a chunk range boundary, a repeat, an older sample, a new interval.
    if (r < 0.02) t += 3_600_000 + Math.floor(next() * 7_200_000);
    else if (r < 0.03) t -= Math.floor(next() * 30_000);
    else if (r < 0.04) t += 0;
    else if (r < 0.05) interval = interval === 15_000 ? 1_000 : 15_000;
    else t += interval + Math.floor(next() * 3);
    const e = next() / eventful;
    if (e < 0.04) { // new buckets
      for (let k = 0; k < 1 + Math.floor(next() * 3); k++) pos.set(Math.floor(next() * 16) - 6, 0);
    } else if (e < 0.06 && pos.size > 1) { // a bucket goes
      pos.delete([...pos.keys()][Math.floor(next() * pos.size)]!);
    } else if (e < 0.08) { // counter reset: everything drops
      pos = new Map([...pos].map(([k, v]) => [k, Math.floor(v / 3)]));
      neg = new Map([...neg].map(([k, v]) => [k, Math.floor(v / 3)]));
      zc = 0;
    } else if (e < 0.09) {
      schema = Math.max(-4, schema - 1);
    } else if (e < 0.095) {
      zeroThreshold = zeroThreshold === 0 ? 2 ** -128 : 0;
    } else if (e < 0.11) {
      float = !float;
    } else if (e < 0.13) {
      gauge = !gauge;
    } else if (e < 0.15) {
      staleRun = 1 + Math.floor(next() * 3);
    } else if (e < 0.16 && pos.size > 0) { // one bucket drops
      const k = [...pos.keys()][Math.floor(next() * pos.size)]!;
      pos.set(k, Math.floor(pos.get(k)! / 2));
    }
    for (const m of [pos, neg]) for (const [k, v] of m) m.set(k, gauge ? Math.max(0, v + Math.floor(next() * 7) - 3) : v + Math.floor(next() * 4));
    if (gauge && next() < 0.3 && pos.size > 1) pos.delete([...pos.keys()][Math.floor(next() * pos.size)]!);
    zc += Math.floor(next() * 2);
    sum += next() * 100;
    let hint: 0 | 1 | 2 | 3 = gauge ? 3 : 0;
    if (!gauge && next() < 0.02) hint = 1;
    else if (!gauge && next() < 0.05) hint = 2;
    let h: Histogram;
    if (staleRun > 0) {
      staleRun--;
      h = { ...stale(), counterResetHint: 0 };
    } else {
      const pk = [...pos.keys()].sort((a, b) => a - b);
      const nk = [...neg.keys()].sort((a, b) => a - b);
      const split = next() < 0.2;
      h = ih({
        count: zc + pk.reduce((a, k) => a + pos.get(k)!, 0) + nk.reduce((a, k) => a + neg.get(k)!, 0),
        sum, zeroCount: zc, schema, zeroThreshold, hint,
        positiveSpans: spansOf(pk, split), negativeSpans: spansOf(nk, split),
        positive: pk.map((k) => pos.get(k)!), negative: nk.map((k) => neg.get(k)!),
      });
    }
    steps.push({ t, float, h: float ? toFloat(h) : h });
  }
  return steps;
}
