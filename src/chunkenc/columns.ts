/**
 * Samples as plain columns for code that sorts, merges and splits them
 * (the out-of-order head, merges of overlapping chunks): timestamps as
 * numbers (exact within ±2^53 ms) and value bits as two u32 words per
 * sample, low word first. Values never pass through a JS number, so NaN
 * payloads such as the stale marker survive (WIRE.md, "Stale markers").
 * Calls go to this thread's codec synchronously, through scratch arrays
 * reused from call to call.
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

/** Encodes samples [from, to) of the columns as one XOR chunk (new bytes; no other allocation). */
export function encodeColumns(t: Float64Array, v: Uint32Array, from: number, to: number): Uint8Array {
  const n = to - from;
  const s = codecScratch(n);
  const words = s.tsWords;
  for (let i = 0; i < n; i++) {
    const x = t[from + i]!;
    const hi = Math.floor(x / TWO_32);
    words[2 * i] = x - hi * TWO_32;
    words[2 * i + 1] = hi;
  }
  s.valWords.set(v.subarray(2 * from, 2 * to));
  return threadCodec().encode(s.ts.subarray(0, n), s.vals.subarray(0, n));
}

/**
 * Decodes an XOR chunk into `into` (grown as needed) and returns it: no
 * allocation once `into` is large enough, for loops that decode many
 * chunks and keep none of them (a decode's new arrays cost more than the
 * decoding itself: 1 µs to decode 120 samples, 2 µs to allocate for them).
 */
export function decodeColumnsInto(chunk: Uint8Array, into: ColumnsBuffer): SampleColumns {
  const n = chunk.length < 2 ? 0 : (chunk[0]! << 8) | chunk[1]!;
  const s = codecScratch(n);
  const got = threadCodec().decodeInto(chunk, s.ts, s.vals);
  const out = into.ensure(got);
  const words = s.tsWords;
  const t = out.t;
  for (let i = 0; i < got; i++) t[i] = words[2 * i + 1]! * TWO_32 + (words[2 * i]! >>> 0);
  out.v.set(s.valWords.subarray(0, 2 * got));
  out.n = got;
  return out;
}

/** Columns that grow and are used again: scratch for decodes and merges. */
export class ColumnsBuffer implements SampleColumns {
  t = new Float64Array(0);
  v = new Uint32Array(0);
  n = 0;

  /** Room for `n` samples (the samples held may be lost), `n` reset to 0. */
  ensure(n: number): this {
    if (this.t.length < n) {
      const cap = Math.max(n, 2 * this.t.length, 64);
      this.t = new Float64Array(cap);
      this.v = new Uint32Array(2 * cap);
    }
    this.n = 0;
    return this;
  }
}

/** The codec's input and output as typed arrays of this thread, reused (calls are synchronous). */
interface CodecScratch {
  ts: BigInt64Array;
  vals: Float64Array;
  tsWords: Int32Array;
  valWords: Uint32Array;
}
let scratch: CodecScratch | undefined;

function codecScratch(n: number): CodecScratch {
  if (scratch === undefined || scratch.ts.length < n) {
    const cap = Math.max(n, 2 * (scratch?.ts.length ?? 0), 128);
    const ts = new BigInt64Array(cap);
    const vals = new Float64Array(cap);
    scratch = { ts, vals, tsWords: new Int32Array(ts.buffer), valWords: new Uint32Array(vals.buffer) };
  }
  return scratch;
}

/** Index of the first sample at or after `t` among the first `n` (sorted) timestamps, from index `from` on. */
export function lowerBound(ts: Float64Array, n: number, t: number, from = 0): number {
  let lo = from;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Sorted columns `a` merged with samples [from, to) of sorted columns `b`
 * into new columns (or `into`, reused); a time in both keeps `a`'s sample. A tight loop over
 * typed arrays (a sort with a comparator, or a k-way pick, measured 2-4x
 * slower).
 */
export function mergeSorted(a: SampleColumns, b: SampleColumns, from = 0, to = b.n, into?: ColumnsBuffer): SampleColumns {
  const cap = a.n + to - from;
  const out = into?.ensure(cap);
  const t = out?.t ?? new Float64Array(cap);
  const v = out?.v ?? new Uint32Array(2 * cap);
  const at = a.t;
  const av = a.v;
  const bt = b.t;
  const bv = b.v;
  let i = 0;
  let j = from;
  let n = 0;
  while (i < a.n || j < to) {
    if (j >= to || (i < a.n && at[i]! <= bt[j]!)) {
      if (j < to && at[i] === bt[j]) j++;
      t[n] = at[i]!;
      v[2 * n] = av[2 * i]!;
      v[2 * n + 1] = av[2 * i + 1]!;
      i++;
    } else {
      t[n] = bt[j]!;
      v[2 * n] = bv[2 * j]!;
      v[2 * n + 1] = bv[2 * j + 1]!;
      j++;
    }
    n++;
  }
  if (out === undefined) return { t, v, n };
  out.n = n;
  return out;
}
