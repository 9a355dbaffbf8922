import type { ChunkLayout } from './check.js';
import { HIST } from '../../wasm/layout.js';
import type { PackedHistogram } from './packed.js';
import type { FloatHistogram, Histogram, Span } from './types.js';

// Moving histograms in and out of module memory: the object API is the
// edge, so objects are read into and built from flat records here and
// nowhere in the module. Offsets are in 8-byte units of the views.

const TWO_32 = 2 ** 32;

/** Writes an int64 given as a number (exact within ±2^53) into two int32 slots. */
function putTimestamp(i32: Int32Array, at: number, t: number): void {
  const hi = Math.floor(t / TWO_32);
  i32[at] = (t - hi * TWO_32) | 0;
  i32[at + 1] = hi | 0;
}

/**
 * Writes one sample record (HIST.SAMPLE_FIXED bytes, then `numBuckets`
 * buckets unless it is a stale marker) at byte `ptr`. `t` is a number, or
 * with `tsWords` (an Int32Array over a BigInt64Array) the index of an int64 in it. The sum goes through a Float64Array, which
 * keeps its bits (a stale marker's NaN payload included).
 */
export function putSample(
  f64: Float64Array, i32: Int32Array, ptr: number, t: number, tsWords: Int32Array | undefined,
  h: Histogram | FloatHistogram, stale: boolean,
): void {
  const at = ptr >>> 3;
  if (tsWords === undefined) {
    putTimestamp(i32, at * 2, t);
  } else {
    i32[at * 2] = tsWords[t * 2]!;
    i32[at * 2 + 1] = tsWords[t * 2 + 1]!;
  }
  f64[at + 1] = h.count;
  f64[at + 2] = h.zeroCount;
  f64[at + 3] = h.sum;
  if (stale) return;
  f64.set(h.positiveBuckets, at + 4);
  f64.set(h.negativeBuckets, at + 4 + h.positiveBuckets.length);
}

/** As putSample for a packed integer histogram (never a stale marker): positive buckets, then negative ones. */
export function putPacked(f64: Float64Array, i32: Int32Array, ptr: number, t: number, p: PackedHistogram): void {
  const at = ptr >>> 3;
  putTimestamp(i32, at * 2, t);
  f64[at + 1] = p.count;
  f64[at + 2] = p.zeroCount;
  f64[at + 3] = p.sum;
  const pos = p.pos;
  const neg = p.neg;
  const nPos = p.nPos;
  for (let i = 0; i < nPos; i++) f64[at + 4 + i] = pos[i]!;
  for (let i = 0; i < p.nNeg; i++) f64[at + 4 + nPos + i] = neg[i]!;
}

/** Writes a layout (HIST.LAYOUT_SPANS) at byte `ptr`. */
export function putLayout(f64: Float64Array, i32: Int32Array, ptr: number, layout: ChunkLayout): void {
  i32[ptr >>> 2] = layout.schema;
  f64[(ptr >>> 3) + 1] = layout.zeroThreshold;
  let at = (ptr + HIST.LAYOUT_SPANS) >>> 2;
  for (const spans of [layout.positiveSpans, layout.negativeSpans]) {
    for (const s of spans) {
      i32[at++] = s.offset;
      i32[at++] = s.length | 0;
    }
  }
}

/** Bytes a layout of `spans` spans takes in module memory. */
export function layoutBytes(spans: number): number {
  return HIST.LAYOUT_SPANS + spans * 8;
}

/** Worst-case chunk bytes of a layout of `spans` spans (zero threshold, schema, two span counts, spans). */
export function layoutChunkBytes(spans: number): number {
  return 36 + spans * 18;
}

/** Reads `n` spans (offset i32, length u32) at byte `ptr`. */
export function getSpans(i32: Int32Array, ptr: number, n: number): Span[] {
  const spans: Span[] = new Array(n);
  let at = ptr >>> 2;
  for (let i = 0; i < n; i++) {
    spans[i] = { offset: i32[at]!, length: i32[at + 1]! >>> 0 };
    at += 2;
  }
  return spans;
}

/**
 * A copy of `n` float64 slots from `at`, as a plain array (as the Histogram
 * types hold buckets). A NaN's payload may not survive a JS array: V8
 * canonicalizes NaNs stored in double arrays.
 */
export function getNumbers(f64: Float64Array, at: number, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(f64[at + i]!);
  return out;
}
