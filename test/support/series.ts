// Sample generators shared by tests and benchmarks. Deterministic: every
// generator takes a seeded random source.

/** mulberry32: a small seeded PRNG returning floats in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const STALE_NAN_BITS = 0x7ff0000000000002n;

/** A float64 with the given bit pattern, inside a Float64Array so the bits survive. */
export function fromBits(bits: bigint[]): Float64Array {
  return new Float64Array(new BigUint64Array(bits).buffer);
}

export function bitsOf(values: Float64Array): BigUint64Array {
  return new BigUint64Array(values.buffer, values.byteOffset, values.length);
}

export type Pattern = 'counter' | 'gauge' | 'constant';

/** `n` samples every 15 s from `start`, shaped like real scrapes. */
export function scrapeSeries(pattern: Pattern, n: number, seed = 1, start = 1_700_000_000_000n) {
  const next = rng(seed);
  const timestamps = new BigInt64Array(n);
  const values = new Float64Array(n);
  let t = start;
  let v = pattern === 'constant' ? 42 : 1000 * next();
  for (let i = 0; i < n; i++) {
    // Real scrapes jitter by a few ms around the interval.
    t += 15_000n + BigInt(Math.floor(next() * 5) - 2);
    if (pattern === 'counter') v += Math.floor(next() * 100);
    else if (pattern === 'gauge') v += (next() - 0.5) * 10;
    timestamps[i] = t;
    values[i] = v;
  }
  return { timestamps, values };
}

/** Random series meant to reach every branch: odd gaps, odd values, special floats. */
export function wildSeries(next: () => number, n: number) {
  const timestamps = new BigInt64Array(n);
  const values = new Float64Array(n);
  const bits = bitsOf(values);
  const gaps = [0, 1, 15_000, 8192, 8193, 65536, 65537, 524288, 524289, 1e9, -5];
  let t = BigInt(Math.floor((next() - 0.5) * 2 ** 45));
  let v = 0;
  for (let i = 0; i < n; i++) {
    const r = next();
    t += r < 0.6 ? 15_000n : BigInt(gaps[Math.floor(next() * gaps.length)]! + Math.floor((next() - 0.5) * 20));
    timestamps[i] = t;
    const k = next();
    if (k < 0.3) v = v; // equal
    else if (k < 0.55) v += next() < 0.5 ? 1 : 0.001;
    else if (k < 0.75) v = (next() - 0.5) * 10 ** Math.floor(next() * 40 - 20);
    else if (k < 0.85) v = Math.floor(next() * 1e6);
    values[i] = v;
    if (k >= 0.85) {
      const special = [STALE_NAN_BITS, 0x7ff8000000000001n, 0x7ff0000000000000n, 0xfff0000000000000n, 0x8000000000000000n, 0n, 1n];
      bits[i] = special[Math.floor(next() * special.length)]!;
    }
  }
  return { timestamps, values };
}

/** Asserts two typed arrays hold the same bytes, naming the first difference. */
export function sameBytes(actual: ArrayBufferView, expected: ArrayBufferView, what = 'bytes'): void {
  const a = Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength);
  const b = Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength);
  if (a.equals(b)) return;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  throw new Error(`${what} differ at byte ${i} of ${a.length} (expected ${b.length}): got ${a[i]?.toString(16)}, want ${b[i]?.toString(16)}`);
}
