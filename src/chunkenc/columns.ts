/**
 * Samples as plain columns for code that sorts, merges and splits them
 * (the out-of-order head, merges of overlapping chunks): timestamps as
 * numbers (exact within ±2^53 ms) and value bits as two u32 words per
 * sample, low word first. Values never pass through a JS number, so NaN
 * payloads such as the stale marker survive (WIRE.md, "Stale markers").
 */
import { threadCodec } from './xor/impl.js';

const TWO_32 = 4294967296;

/** Samples of one series as columns; what decodeColumns returns is the caller's. */
export interface SampleColumns {
  /** Timestamps in ms. */
  t: Float64Array;
  /** Value bits: words 2i (low) and 2i + 1 (high) belong to t[i]. */
  v: Uint32Array;
  /** Samples held (the arrays may be longer). */
  n: number;
}

/** Decodes an XOR chunk into columns (new arrays, owned by the caller). */
export function decodeColumns(chunk: Uint8Array): SampleColumns {
  const d = threadCodec().decode(chunk);
  const n = d.timestamps.length;
  const words = new Int32Array(d.timestamps.buffer, d.timestamps.byteOffset, n * 2);
  const t = new Float64Array(n);
  for (let i = 0; i < n; i++) t[i] = words[2 * i + 1]! * TWO_32 + (words[2 * i]! >>> 0);
  return { t, v: new Uint32Array(d.values.buffer, d.values.byteOffset, n * 2), n };
}

/** Encodes samples [from, to) of the columns as one XOR chunk. */
export function encodeColumns(t: Float64Array, v: Uint32Array, from: number, to: number): Uint8Array {
  const n = to - from;
  const ts = new BigInt64Array(n);
  const words = new Int32Array(ts.buffer);
  for (let i = 0; i < n; i++) {
    const x = t[from + i]!;
    const hi = Math.floor(x / TWO_32);
    words[2 * i] = x - hi * TWO_32;
    words[2 * i + 1] = hi;
  }
  const values = new Float64Array(n);
  new Uint32Array(values.buffer).set(v.subarray(2 * from, 2 * to));
  return threadCodec().encode(ts, values);
}

/** Index of the first sample at or after `t` among the first `n` (sorted) timestamps. */
export function lowerBound(ts: Float64Array, n: number, t: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
