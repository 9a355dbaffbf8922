import type { ChunkLayout } from './check.js';
import { HIST_LAYOUT, HIST_SAMPLE, HIST_SPAN, STALE_NAN } from '../../wasm/layout.js';
import type { PackedHistogram } from './packed.js';
import type { FloatHistogram, Histogram, Span } from './types.js';

// Moving histograms in and out of module memory: the object API is the
// edge, so objects are read into and built from flat records here and
// nowhere in the module. Offsets are in 8-byte units of the views.

const TWO_32 = 2 ** 32;

/** A sample record's timestamp slot (HIST_SAMPLE), from the record's first slot. */
export const T_SLOT = HIST_SAMPLE.t >>> 3;
/** A sample record's count slot. */
export const COUNT_SLOT = HIST_SAMPLE.count >>> 3;
/** A sample record's zero count slot. */
export const ZERO_COUNT_SLOT = HIST_SAMPLE.zeroCount >>> 3;
/** A sample record's sum slot. */
export const SUM_SLOT = HIST_SAMPLE.sum >>> 3;
/** A sample record's first bucket slot; buckets are float64s, one slot each (HIST_SAMPLE.bucketBytes). */
export const BUCKETS_SLOT = HIST_SAMPLE.fixed >>> 3;

// A span of a layout record, in 32-bit words.
const SPAN_WORDS = HIST_SPAN.size >>> 2;
const SPAN_OFFSET = HIST_SPAN.offset >>> 2;
const SPAN_LENGTH = HIST_SPAN.length >>> 2;

/** Writes an int64 given as a number (exact within ±2^53) into two int32 slots. */
function putTimestamp(i32: Int32Array, at: number, t: number): void {
  const hi = Math.floor(t / TWO_32);
  i32[at] = (t - hi * TWO_32) | 0;
  i32[at + 1] = hi | 0;
}

/**
 * Writes one sample record (HIST_SAMPLE: its fixed part, then its buckets
 * unless it is a stale marker) at byte `ptr`. `t` is a number, or
 * with `tsWords` (an Int32Array over a BigInt64Array) the index of an int64 in it. The sum goes through a Float64Array, which
 * keeps its bits (a stale marker's NaN payload included).
 */
export function putSample(
  f64: Float64Array, i32: Int32Array, ptr: number, t: number, tsWords: Int32Array | undefined,
  h: Histogram | FloatHistogram, stale: boolean,
): void {
  const at = ptr >>> 3;
  if (tsWords === undefined) {
    putTimestamp(i32, (at + T_SLOT) * 2, t);
  } else {
    i32[(at + T_SLOT) * 2] = tsWords[t * 2]!;
    i32[(at + T_SLOT) * 2 + 1] = tsWords[t * 2 + 1]!;
  }
  f64[at + COUNT_SLOT] = h.count;
  f64[at + ZERO_COUNT_SLOT] = h.zeroCount;
  f64[at + SUM_SLOT] = h.sum;
  if (stale) return;
  f64.set(h.positiveBuckets, at + BUCKETS_SLOT);
  f64.set(h.negativeBuckets, at + BUCKETS_SLOT + h.positiveBuckets.length);
}

/** As putSample for a packed histogram, either kind (never a stale marker): positive buckets, then negative ones. */
export function putPacked(f64: Float64Array, i32: Int32Array, ptr: number, t: number, p: PackedHistogram): void {
  const at = ptr >>> 3;
  putTimestamp(i32, (at + T_SLOT) * 2, t);
  f64[at + COUNT_SLOT] = p.count;
  f64[at + ZERO_COUNT_SLOT] = p.zeroCount;
  f64[at + SUM_SLOT] = p.sum;
  const pos = p.pos;
  const neg = p.neg;
  const nPos = p.nPos;
  const buckets = at + BUCKETS_SLOT;
  for (let i = 0; i < nPos; i++) f64[buckets + i] = pos[i]!;
  for (let i = 0; i < p.nNeg; i++) f64[buckets + nPos + i] = neg[i]!;
}

/** Writes a layout record (HIST_LAYOUT) at byte `ptr`. */
export function putLayout(f64: Float64Array, i32: Int32Array, ptr: number, layout: ChunkLayout): void {
  i32[(ptr + HIST_LAYOUT.schema) >>> 2] = layout.schema;
  f64[(ptr + HIST_LAYOUT.zeroThreshold) >>> 3] = layout.zeroThreshold;
  let at = (ptr + HIST_LAYOUT.spans) >>> 2;
  for (const spans of [layout.positiveSpans, layout.negativeSpans]) {
    for (const s of spans) {
      i32[at + SPAN_OFFSET] = s.offset;
      i32[at + SPAN_LENGTH] = s.length | 0;
      at += SPAN_WORDS;
    }
  }
}

/** Bytes a layout record of `spans` spans takes in module memory. */
export function layoutBytes(spans: number): number {
  return HIST_LAYOUT.spans + spans * HIST_SPAN.size;
}

/** Worst-case chunk bytes of a layout of `spans` spans (zero threshold, schema, two span counts, spans). */
export function layoutChunkBytes(spans: number): number {
  return 36 + spans * 18;
}

/** Reads `n` spans (HIST_SPAN) at byte `ptr`. */
export function getSpans(i32: Int32Array, ptr: number, n: number): Span[] {
  const spans: Span[] = new Array(n);
  let at = ptr >>> 2;
  for (let i = 0; i < n; i++) {
    spans[i] = { offset: i32[at + SPAN_OFFSET]!, length: i32[at + SPAN_LENGTH]! >>> 0 };
    at += SPAN_WORDS;
  }
  return spans;
}

/** Whether the record at slot `at` is a stale marker's (its sum is STALE_NAN): the decoder wrote no buckets after it. */
export function isStaleRecord(i32: Int32Array, at: number): boolean {
  const sum = (at + SUM_SLOT) * 2;
  return i32[sum + 1] === STALE_NAN.hi && i32[sum] === STALE_NAN.lo;
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
