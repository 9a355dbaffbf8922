import { ChunkEncodeError } from '../errors.js';
import { countSpans, sameBuckets } from './spans.js';
import type { FloatHistogram, Histogram, Span } from './types.js';
import { STALE_NAN } from '../../wasm/layout.js';

// The encoders' input contract (see HistogramChunkCodec.encode), checked in
// one place for both implementations so they refuse the same inputs.

/** A chunk's sample count is a 16-bit field. */
export const MAX_HISTOGRAM_SAMPLES = 65535;

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/**
 * value.IsStaleNaN: exactly Prometheus' stale marker bits, 0x7ff0000000000002.
 * Its words come from the module's layout: the WebAssembly codecs take a
 * sample as a stale marker by the same bits.
 */
export function isStaleNaN(v: number): boolean {
  if (v === v) return false; // not a NaN at all: the common case
  f64[0] = v;
  return u32[1] === STALE_NAN.hi && u32[0] === STALE_NAN.lo;
}

/** The layout a chunk's first sample fixed, as the appender keeps it. */
export interface ChunkLayout {
  schema: number;
  zeroThreshold: number;
  positiveSpans: readonly Span[];
  negativeSpans: readonly Span[];
}

/** The layout written for a first sample: a stale marker's is empty. */
export function layoutOf(h: Histogram | FloatHistogram): ChunkLayout {
  if (isStaleNaN(h.sum)) return { schema: 0, zeroThreshold: 0, positiveSpans: [], negativeSpans: [] };
  return {
    schema: h.schema,
    zeroThreshold: h.zeroThreshold,
    positiveSpans: h.positiveSpans.map((s) => ({ offset: s.offset, length: s.length })),
    negativeSpans: h.negativeSpans.map((s) => ({ offset: s.offset, length: s.length })),
  };
}

/** `index` undefined: a sample on its own (the chunker's check), not one of a chunk. */
function refuse(index: number | undefined, why: string): ChunkEncodeError {
  return new ChunkEncodeError(index === undefined ? `histogram sample ${why}` : `histogram chunk: sample ${index} ${why}`);
}

function checkSpans(spans: readonly Span[], buckets: readonly number[], side: string, index: number | undefined): void {
  for (const s of spans) {
    if (!Number.isInteger(s.offset) || s.offset < -(2 ** 31) || s.offset >= 2 ** 31) throw refuse(index, `has a ${side} span offset that is not an int32`);
    if (!Number.isInteger(s.length) || s.length < 0 || s.length >= 2 ** 32) throw refuse(index, `has a ${side} span length that is not a uint32`);
  }
  const n = countSpans(spans);
  if (n !== buckets.length) throw refuse(index, `has ${buckets.length} ${side} buckets but its spans describe ${n}`);
}

function checkInteger(v: number, what: string, index: number | undefined, unsigned: boolean): void {
  if (!Number.isSafeInteger(v) || (unsigned && v < 0)) {
    throw refuse(index, `has ${what} ${v}: not ${unsigned ? 'a non-negative' : 'an'} integer within ±2^53`);
  }
}

/**
 * Checks a histogram on its own: spans that agree with the bucket arrays,
 * an int32 schema and, with `checkIntegers`, counts and bucket deltas that
 * are safe integers (counts non-negative). Stale markers always pass.
 * Throws a ChunkEncodeError naming sample `index` (if given) and the fault.
 */
export function checkHistogram(h: Histogram | FloatHistogram, checkIntegers: boolean, index?: number): void {
  if (isStaleNaN(h.sum)) return; // Prometheus writes a stale marker's sum alone
  checkSpans(h.positiveSpans, h.positiveBuckets, 'positive', index);
  checkSpans(h.negativeSpans, h.negativeBuckets, 'negative', index);
  if (!Number.isInteger(h.schema) || h.schema < -(2 ** 31) || h.schema >= 2 ** 31) throw refuse(index, `has schema ${h.schema}: not an int32`);
  if (checkIntegers) {
    checkInteger(h.count, 'count', index, true);
    checkInteger(h.zeroCount, 'zero count', index, true);
    for (const b of h.positiveBuckets) checkInteger(b, 'a positive bucket delta', index, false);
    for (const b of h.negativeBuckets) checkInteger(b, 'a negative bucket delta', index, false);
  }
}

/**
 * Checks one more sample for a chunk: `layout` is the chunk's (undefined
 * for its first sample), `afterStale` whether the chunk's last sample is a
 * stale marker. With `checkIntegers` (integer histograms, where the
 * WebAssembly encoder does not check them itself) counts and bucket deltas
 * must be safe integers, counts non-negative. Throws a ChunkEncodeError
 * naming sample `index` and what is wrong.
 */
export function checkSample(
  h: Histogram | FloatHistogram, index: number, layout: ChunkLayout | undefined, afterStale: boolean, checkIntegers: boolean,
): void {
  if (index >= MAX_HISTOGRAM_SAMPLES) throw refuse(index, `does not fit: a chunk holds at most ${MAX_HISTOGRAM_SAMPLES} samples`);
  if (isStaleNaN(h.sum)) return;
  if (afterStale) throw refuse(index, 'follows a stale marker: Prometheus starts a new chunk for it');
  checkHistogram(h, checkIntegers, index);
  if (layout === undefined) return;
  if (h.schema !== layout.schema || !(h.zeroThreshold === layout.zeroThreshold || Object.is(h.zeroThreshold, layout.zeroThreshold))) {
    throw refuse(index, `has schema ${h.schema} and zero threshold ${h.zeroThreshold}, the chunk ${layout.schema} and ${layout.zeroThreshold}: recode or cut a new chunk`);
  }
  if (!sameBuckets(h.positiveSpans, layout.positiveSpans) || !sameBuckets(h.negativeSpans, layout.negativeSpans)) {
    throw refuse(index, 'has other buckets than the chunk\'s layout: recode or cut a new chunk');
  }
}
