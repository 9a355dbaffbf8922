/**
 * prometheus.Histogram messages (prompb/types.proto) for remote read's
 * SAMPLES answers, written as Prometheus' HistogramToHistogramProto and
 * FloatHistogramToHistogramProto fill them: an integer histogram carries
 * count_int (1), zero_count_int (6) and bucket deltas (9, 12, sint64); a
 * float histogram count_float (2), zero_count_float (7) and absolute counts
 * (10, 13, double). Both: sum (3), schema (4, sint32), zero_threshold (5),
 * negative_spans (8) and positive_spans (11) as BucketSpan {offset = 1
 * (sint32), length = 2 (uint32)}, reset_hint (14), timestamp (15).
 *
 * Repeated scalars are packed (proto3's default, as Go writes them). Fields
 * at their zero value are left out, as gogoproto does, except the oneof
 * members (always written, so the reader learns which kind it is) and a sum
 * or threshold whose bits are not all zero (-0 and NaN payloads survive:
 * the stale marker of a histogram lives in its sum).
 */
import type { FloatHistogram, Histogram, Span } from '../chunkenc/histogram/types.js';
import { WIRE_LEN, WIRE_VARINT, lenFieldSize, writeTag } from '../encoding/proto-writer.js';
import { putUvarint, putUvarint64, putVarint, uvarint64Size, uvarintSize, varintSize } from '../encoding/varint.js';
import { HISTOGRAM_FIELD as F, SPAN_FIELD } from '../chunkenc/histogram/proto-fields.js';

const WIRE_FIXED64 = 1;

/** Scratch for float64 bits. */
const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);
const f64Words = new Uint32Array(f64.buffer);

function zeroBits(x: number): boolean {
  f64[0] = x;
  return f64Words[0] === 0 && f64Words[1] === 0;
}

function spanSize(s: Span): number {
  return (s.offset === 0 ? 0 : 1 + varintSize(s.offset)) + (s.length === 0 ? 0 : 1 + uvarintSize(s.length));
}

function spansSize(spans: readonly Span[]): number {
  let n = 0;
  for (const s of spans) n += lenFieldSize(spanSize(s));
  return n;
}

function deltasBytes(deltas: readonly number[]): number {
  let n = 0;
  for (const d of deltas) n += varintSize(d);
  return n;
}

/** Bytes of the Histogram message (without its own tag and length). */
export function histogramMessageSize(h: Histogram | FloatHistogram, float: boolean, t: number): number {
  let n = 0;
  n += float ? 9 : 1 + uvarintSize(h.count);
  if (!zeroBits(h.sum)) n += 9;
  if (h.schema !== 0) n += 1 + varintSize(h.schema);
  if (!zeroBits(h.zeroThreshold)) n += 9;
  n += float ? 9 : 1 + uvarintSize(h.zeroCount);
  n += spansSize(h.negativeSpans);
  if (h.negativeBuckets.length > 0) n += lenFieldSize(float ? 8 * h.negativeBuckets.length : deltasBytes(h.negativeBuckets));
  n += spansSize(h.positiveSpans);
  if (h.positiveBuckets.length > 0) n += lenFieldSize(float ? 8 * h.positiveBuckets.length : deltasBytes(h.positiveBuckets));
  if (h.counterResetHint !== 0) n += 2;
  if (t !== 0) n += 1 + uvarint64Size(t);
  return n;
}

function writeDouble(b: Uint8Array, at: number, x: number): number {
  f64[0] = x;
  // Little-endian, as fixed64 wants (and as every platform Node runs on holds a Float64Array).
  for (let k = 0; k < 8; k++) b[at + k] = f64Bytes[k]!;
  return at + 8;
}

function writeSpans(b: Uint8Array, at: number, field: number, spans: readonly Span[]): number {
  for (const s of spans) {
    at = writeTag(b, at, field, WIRE_LEN);
    at = putUvarint(b, at, spanSize(s));
    if (s.offset !== 0) {
      at = writeTag(b, at, SPAN_FIELD.offset, WIRE_VARINT);
      at = putVarint(b, at, s.offset);
    }
    if (s.length !== 0) {
      at = writeTag(b, at, SPAN_FIELD.length, WIRE_VARINT);
      at = putUvarint(b, at, s.length);
    }
  }
  return at;
}

function writeBuckets(b: Uint8Array, at: number, field: number, buckets: readonly number[], float: boolean): number {
  if (buckets.length === 0) return at;
  at = writeTag(b, at, field, WIRE_LEN);
  if (float) {
    at = putUvarint(b, at, 8 * buckets.length);
    for (const x of buckets) at = writeDouble(b, at, x);
  } else {
    at = putUvarint(b, at, deltasBytes(buckets));
    for (const d of buckets) at = putVarint(b, at, d);
  }
  return at;
}

/**
 * Writes the Histogram message's fields (size from histogramMessageSize)
 * at `at`; returns the end. `float`: h is a FloatHistogram (absolute
 * float counts), else an integer Histogram (bucket deltas).
 */
export function writeHistogramMessage(b: Uint8Array, at: number, h: Histogram | FloatHistogram, float: boolean, t: number): number {
  if (float) {
    at = writeTag(b, at, F.countFloat, WIRE_FIXED64);
    at = writeDouble(b, at, h.count);
  } else {
    at = writeTag(b, at, F.countInt, WIRE_VARINT);
    at = putUvarint(b, at, h.count);
  }
  if (!zeroBits(h.sum)) {
    at = writeTag(b, at, F.sum, WIRE_FIXED64);
    at = writeDouble(b, at, h.sum);
  }
  if (h.schema !== 0) {
    at = writeTag(b, at, F.schema, WIRE_VARINT);
    at = putVarint(b, at, h.schema);
  }
  if (!zeroBits(h.zeroThreshold)) {
    at = writeTag(b, at, F.zeroThreshold, WIRE_FIXED64);
    at = writeDouble(b, at, h.zeroThreshold);
  }
  if (float) {
    at = writeTag(b, at, F.zeroCountFloat, WIRE_FIXED64);
    at = writeDouble(b, at, h.zeroCount);
  } else {
    at = writeTag(b, at, F.zeroCountInt, WIRE_VARINT);
    at = putUvarint(b, at, h.zeroCount);
  }
  at = writeSpans(b, at, F.negativeSpans, h.negativeSpans);
  at = writeBuckets(b, at, float ? F.negativeCounts : F.negativeDeltas, h.negativeBuckets, float);
  at = writeSpans(b, at, F.positiveSpans, h.positiveSpans);
  at = writeBuckets(b, at, float ? F.positiveCounts : F.positiveDeltas, h.positiveBuckets, float);
  if (h.counterResetHint !== 0) {
    at = writeTag(b, at, F.resetHint, WIRE_VARINT);
    b[at++] = h.counterResetHint;
  }
  if (t !== 0) {
    at = writeTag(b, at, F.timestamp, WIRE_VARINT);
    at = putUvarint64(b, at, t);
  }
  return at;
}

/** One Histogram message as bytes (without its field tag and length). */
export function encodeHistogramMessage(h: Histogram | FloatHistogram, float: boolean, t: number): Uint8Array {
  const out = new Uint8Array(histogramMessageSize(h, float, t));
  const end = writeHistogramMessage(out, 0, h, float, t);
  if (end !== out.length) throw new Error(`prometheus.Histogram: wrote ${end} bytes of ${out.length}`);
  return out;
}
