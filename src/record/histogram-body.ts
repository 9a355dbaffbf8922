/**
 * The histogram body: one native histogram sample, without its timestamp,
 * in a compact byte form that the histogram batch (histogram-batch.ts) carries from
 * the parser to the head and the WAL's HISTOGRAMS record (histogram-record.ts)
 * keeps, byte for byte the same: the head logs a sample by copying its body.
 * Format (docs/format/wal.md, "Histogram bodies"); little-endian, varints
 * LEB128:
 *
 *   flags u8        bit 0: float histogram; bits 1-2: counter reset hint
 *                   (0 unknown, 1 reset, 2 no reset, 3 gauge); others 0
 *   schema          zigzag varint
 *   zero threshold  f64 (its 64 bits)
 *   sum             f64 (its 64 bits: a stale marker's NaN payload kept)
 *   count           integer: uvarint; float: f64
 *   zero count      integer: uvarint; float: f64
 *   negative spans  uvarint n, then n x (offset zigzag varint, length uvarint)
 *   negative buckets uvarint n, then n x (integer: delta as zigzag varint;
 *                   float: absolute count f64)
 *   positive spans, positive buckets: as the negative ones
 */
import { PackedHistogram } from '../chunkenc/histogram/packed.js';
import type { FloatHistogram, Histogram, Span } from '../chunkenc/histogram/types.js';
import type { HistogramFields, SideFields } from '../chunkenc/histogram/fields.js';
import { MAX_VARINT_BYTES, VarintReader, putUvarint, putVarint, uvarintAt, varintAt, varintEnd, varintOk } from '../encoding/varint.js';

/** Flag bit of a float histogram. */
export const BODY_FLOAT = 1;

/** The most bytes the body of `h` can take (to reserve before writing it). */
export function maxBodyBytes(h: HistogramFields): number {
  const buckets = h.float ? h.neg.nCounts + h.pos.nCounts : h.neg.nDeltas + h.pos.nDeltas;
  return 1 + 5 + 32 + 4 * MAX_VARINT_BYTES + (h.neg.spans + h.pos.spans) * 10 + buckets * MAX_VARINT_BYTES;
}

/**
 * Writes the body of a validated histogram at `at` of `b` (with
 * maxBodyBytes(h) bytes of room); returns where it ends.
 */
export function writeBody(h: HistogramFields, b: Uint8Array, view: DataView, at: number): number {
  const float = h.float;
  b[at++] = (float ? BODY_FLOAT : 0) | (h.resetHint << 1);
  at = putVarint(b, at, h.schema);
  view.setInt32(at, h.thresholdLo, true);
  view.setInt32(at + 4, h.thresholdHi, true);
  view.setInt32(at + 8, h.sumLo, true);
  view.setInt32(at + 12, h.sumHi, true);
  at += 16;
  if (float) {
    view.setInt32(at, h.countLo, true);
    view.setInt32(at + 4, h.countHi, true);
    // zero_count_int in a float histogram reads as 0, as Prometheus' GetZeroCountFloat.
    view.setInt32(at + 8, h.zeroFloat ? h.zeroLo : 0, true);
    view.setInt32(at + 12, h.zeroFloat ? h.zeroHi : 0, true);
    at += 16;
  } else {
    at = putUvarint(b, at, h.countInt);
    at = putUvarint(b, at, h.zeroFloat ? 0 : h.zeroInt);
  }
  at = writeSide(h.neg, float, b, view, at);
  return writeSide(h.pos, float, b, view, at);
}

function writeSide(side: SideFields, float: boolean, b: Uint8Array, view: DataView, at: number): number {
  at = putUvarint(b, at, side.spans);
  for (let i = 0; i < side.spans; i++) {
    at = putVarint(b, at, side.spanOffsets[i]!);
    at = putUvarint(b, at, side.spanLengths[i]!);
  }
  if (float) {
    at = putUvarint(b, at, side.nCounts);
    const c = side.counts;
    for (let i = 0; i < side.nCounts; i++) {
      view.setInt32(at, c[2 * i]!, true);
      view.setInt32(at + 4, c[2 * i + 1]!, true);
      at += 8;
    }
  } else {
    at = putUvarint(b, at, side.nDeltas);
    for (let i = 0; i < side.nDeltas; i++) at = putVarint(b, at, side.deltas[i]!);
  }
  return at;
}

/** Whether the body at `at` is a float histogram's. */
export function bodyIsFloat(b: Uint8Array, at: number): boolean {
  return (b[at]! & BODY_FLOAT) !== 0;
}

/** A body that does not decode: the WAL record or batch holding it is damaged. */
export class MalformedBodyError extends Error {
  override name = 'MalformedBodyError';
}

/**
 * The histogram whose body is [at, end) of `b` (an integer or a float one,
 * as bodyIsFloat says; buckets as deltas or absolute counts accordingly).
 *
 * @throws MalformedBodyError when the bytes are not a whole body.
 */
export function decodeBody(b: Uint8Array, at: number, end: number): Histogram | FloatHistogram {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (at >= end) throw malformed('empty');
  const flags = b[at++]!;
  if (flags > 7) throw malformed(`unknown flags ${flags}`);
  const float = (flags & BODY_FLOAT) !== 0;
  const schema = varintAt(b, at, end);
  if (!varintOk) throw malformed('schema');
  at = varintEnd;
  if (at + 16 > end) throw malformed('cut short');
  const zeroThreshold = view.getFloat64(at, true);
  const sum = view.getFloat64(at + 8, true);
  at += 16;
  let count: number;
  let zeroCount: number;
  if (float) {
    if (at + 16 > end) throw malformed('cut short');
    count = view.getFloat64(at, true);
    zeroCount = view.getFloat64(at + 8, true);
    at += 16;
  } else {
    count = uvarintAt(b, at, end);
    if (count < 0) throw malformed('count');
    zeroCount = uvarintAt(b, varintEnd, end);
    if (zeroCount < 0) throw malformed('zero count');
    at = varintEnd;
  }
  const negativeSpans: Span[] = [];
  const negativeBuckets: number[] = [];
  at = readSide(b, view, at, end, float, negativeSpans, negativeBuckets);
  const positiveSpans: Span[] = [];
  const positiveBuckets: number[] = [];
  at = readSide(b, view, at, end, float, positiveSpans, positiveBuckets);
  if (at !== end) throw malformed(`${end - at} bytes left over`);
  return {
    counterResetHint: ((flags >>> 1) & 3) as Histogram['counterResetHint'],
    schema, zeroThreshold, zeroCount, count, sum, positiveSpans, negativeSpans, positiveBuckets, negativeBuckets,
  };
}

function readSide(b: Uint8Array, view: DataView, at: number, end: number, float: boolean, spans: Span[], buckets: number[]): number {
  const nSpans = uvarintAt(b, at, end);
  if (nSpans < 0 || nSpans > end - varintEnd) throw malformed('span count');
  at = varintEnd;
  for (let i = 0; i < nSpans; i++) {
    const offset = varintAt(b, at, end);
    if (!varintOk) throw malformed('span offset');
    const length = uvarintAt(b, varintEnd, end);
    if (length < 0) throw malformed('span length');
    at = varintEnd;
    spans.push({ offset, length });
  }
  const n = uvarintAt(b, at, end);
  if (n < 0 || n > end - varintEnd) throw malformed('bucket count');
  at = varintEnd;
  if (float) {
    if (at + n * 8 > end) throw malformed('cut short');
    for (let i = 0; i < n; i++, at += 8) buckets.push(view.getFloat64(at, true));
  } else {
    for (let i = 0; i < n; i++) {
      buckets.push(varintAt(b, at, end));
      if (!varintOk) throw malformed('bucket delta');
      at = varintEnd;
    }
  }
  return at;
}

function malformed(what: string): MalformedBodyError {
  return new MalformedBodyError(`malformed histogram body: ${what}`);
}

/**
 * Fills `f` from a histogram object (for builders and tests; the parser
 * fills it from the wire). Integers must be exact; `float` picks the kind.
 */
export function fieldsOf(h: Histogram | FloatHistogram, float: boolean, t: number, f: HistogramFields): void {
  f.reset();
  const words = new Int32Array(2);
  const d = new Float64Array(words.buffer);
  const bits = (x: number): [number, number] => {
    d[0] = x;
    return [words[0]!, words[1]!];
  };
  f.float = float;
  f.schema = h.schema;
  f.resetHint = h.counterResetHint;
  [f.thresholdLo, f.thresholdHi] = bits(h.zeroThreshold);
  [f.sumLo, f.sumHi] = bits(h.sum);
  const hi = Math.floor(t / 4294967296);
  f.tLo = (t - hi * 4294967296) | 0;
  f.tHi = hi;
  if (float) {
    [f.countLo, f.countHi] = bits(h.count);
    f.zeroFloat = true;
    [f.zeroLo, f.zeroHi] = bits(h.zeroCount);
  } else {
    f.countInt = h.count;
    f.zeroInt = h.zeroCount;
  }
  for (const s of h.negativeSpans) f.neg.addSpan(s.offset, s.length);
  for (const s of h.positiveSpans) f.pos.addSpan(s.offset, s.length);
  for (const [side, buckets] of [[f.neg, h.negativeBuckets], [f.pos, h.positiveBuckets]] as const) {
    for (const x of buckets) {
      if (float) side.addCount(...bits(x));
      else side.addDelta(x);
    }
  }
}

const f8 = new Float64Array(1);
const b8 = new Uint8Array(f8.buffer);

/** The float64 at `at` of `b` (little-endian, as the body holds it; the host is little-endian, as the module's memory). */
function readF64(b: Uint8Array, at: number): number {
  for (let i = 0; i < 8; i++) b8[i] = b[at + i]!;
  return f8[0]!;
}

/**
 * The head's fast path (HistogramChunker.appendPacked): reads the body at
 * [at, end) of `b` into `p` when it is a histogram (integer or float) with
 * hint 0 or 2 and a sum that is not a NaN (nor, for a float one, a count,
 * zero count or bucket that is: their bits are kept only by the object
 * path), and the bytes are a whole body; returns false otherwise (`p` is
 * then scratch), and the caller takes the object path (decodeBody), which
 * gives the same sample and every error. Allocates nothing unless `p`
 * must grow.
 */
export function readPacked(b: Uint8Array, at: number, end: number, p: PackedHistogram): boolean {
  if (at >= end) return false;
  const flags = b[at]!;
  // Hint 0 (unknown) or 2 (not a reset), either kind: resets and gauges take the object path.
  if ((flags & ~BODY_FLOAT) !== 0 && (flags & ~BODY_FLOAT) !== 4) return false;
  const float = (flags & BODY_FLOAT) !== 0;
  p.float = float;
  p.hint = (flags >>> 1) & 3;
  const r = reader;
  r.reset(b, at + 1, end);
  p.schema = r.varint();
  if (!r.ok || r.at + 16 > end) return false;
  p.zeroThreshold = readF64(b, r.at);
  const sum = readF64(b, r.at + 8);
  if (sum !== sum) return false;
  p.sum = sum;
  r.at += 16;
  if (float) {
    if (r.at + 16 > end) return false;
    p.count = readF64(b, r.at);
    p.zeroCount = readF64(b, r.at + 8);
    if (p.count !== p.count || p.zeroCount !== p.zeroCount) return false;
    r.at += 16;
  } else {
    p.count = r.uvarint();
    p.zeroCount = r.uvarint();
    if (!r.ok) return false;
  }
  // Negative side, then positive, as the body holds them.
  for (let side = 0; side < 2; side++) {
    const nSpans = r.uvarint();
    if (!r.ok || nSpans > end - r.at) return false;
    let spans = side === 0 ? p.negSpans : p.posSpans;
    if (2 * nSpans > spans.length) {
      spans = PackedHistogram.grow(spans, 2 * nSpans);
      if (side === 0) p.negSpans = spans;
      else p.posSpans = spans;
    }
    for (let i = 0; i < nSpans; i++) {
      spans[2 * i] = r.varint();
      spans[2 * i + 1] = r.uvarint();
    }
    const n = r.uvarint();
    if (!r.ok || n > end - r.at) return false;
    let buckets = side === 0 ? p.neg : p.pos;
    if (n > buckets.length) {
      buckets = PackedHistogram.grow(buckets, n);
      if (side === 0) p.neg = buckets;
      else p.pos = buckets;
    }
    if (float) {
      if (r.at + 8 * n > end) return false;
      for (let i = 0; i < n; i++) {
        const x = readF64(b, r.at + 8 * i);
        if (x !== x) return false;
        buckets[i] = x;
      }
      r.at += 8 * n;
    } else {
      for (let i = 0; i < n; i++) buckets[i] = r.varint();
      if (!r.ok) return false;
    }
    if (side === 0) {
      p.nNegSpans = nSpans;
      p.nNeg = n;
    } else {
      p.nPosSpans = nSpans;
      p.nPos = n;
    }
  }
  return r.at === end;
}

const reader = new VarintReader();
