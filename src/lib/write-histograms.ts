/**
 * A series' native histograms as remote write 1.0's prometheus.Histogram
 * messages (TimeSeries field 4), for write-request.ts: measured first,
 * then written into the request's buffer. Only what the wire cannot carry
 * is checked here (types, whole numbers, ranges of the wire's integers);
 * Prometheus' checks (schema, spans against buckets, counts) are the
 * parser's, as for any remote write, refusing the one histogram.
 *
 * Field numbers (prometheus/prompb/types.proto, src/chunkenc/histogram/proto-fields.ts):
 * count_int = 1 (uint64) | count_float = 2 (double), sum = 3 (double),
 * schema = 4 (sint32), zero_threshold = 5 (double), zero_count_int = 6
 * (uint64) | zero_count_float = 7 (double), negative_spans = 8,
 * negative_deltas = 9 (packed sint64), negative_counts = 10 (packed
 * double), positive_spans = 11, positive_deltas = 12, positive_counts =
 * 13, reset_hint = 14 (enum), timestamp = 15 (int64); BucketSpan
 * {offset = 1 (sint32), length = 2 (uint32)}.
 */
import { HISTOGRAM_FIELD as F, SPAN_FIELD } from '../chunkenc/histogram/proto-fields.js';
import { lenFieldSize, WIRE_LEN, WIRE_VARINT, writeTag } from '../encoding/proto-writer.js';
import { putUvarint, putUvarint64, putVarint, uvarint64Size, uvarintSize, varintSize } from '../encoding/varint.js';
import { InvalidArgumentError } from './errors.js';
import type { FloatHistogram, Histogram, HistogramSample, Span } from './histogram-types.js';

/** TimeSeries.histograms. */
const TIMESERIES_HISTOGRAMS = 4;
const WIRE_FIXED64 = 1;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const UINT32_MAX = 2 ** 32 - 1;

/** A series' histograms, checked and measured. */
export interface PlannedHistograms {
  samples: readonly HistogramSample[];
  /** Bytes of each Histogram message. */
  sizes: number[];
  /** Bytes of all TimeSeries.histograms fields, tags and lengths included. */
  size: number;
}

/**
 * Checks and measures `input` (SeriesInput.histograms of the series named
 * `where`). Throws InvalidArgumentError naming the histogram and field for
 * a shape the wire cannot carry.
 */
export function planHistograms(input: unknown, where: string): PlannedHistograms {
  if (input === null || typeof input !== 'object' || !(Symbol.iterator in input)) {
    throw new InvalidArgumentError(`${where}: histograms must be an array of { timestamp, float, histogram }`);
  }
  const samples = Array.isArray(input) ? (input as HistogramSample[]) : [...(input as Iterable<HistogramSample>)];
  const sizes: number[] = [];
  let size = 0;
  samples.forEach((s, k) => {
    const n = measure(s, `${where}: histogram ${k}`);
    sizes.push(n);
    size += lenFieldSize(n);
  });
  return { samples, sizes, size };
}

/** Writes the planned histograms at `at` (the buffer measured for them); returns the end. */
export function writeHistograms(out: Uint8Array, view: DataView, at: number, p: PlannedHistograms): number {
  for (let k = 0; k < p.samples.length; k++) {
    const { timestamp, float, histogram: h } = p.samples[k]!;
    at = writeTag(out, at, TIMESERIES_HISTOGRAMS, WIRE_LEN);
    at = putUvarint(out, at, p.sizes[k]!);
    // Both members of each oneof are written explicitly, zero or not: their presence says the kind.
    if (float) at = writeDouble(view, writeTag(out, at, F.countFloat, WIRE_FIXED64), h.count);
    else at = putUvarint(out, writeTag(out, at, F.countInt, WIRE_VARINT), h.count);
    at = writeDouble(view, writeTag(out, at, F.sum, WIRE_FIXED64), h.sum);
    at = putVarint(out, writeTag(out, at, F.schema, WIRE_VARINT), h.schema);
    at = writeDouble(view, writeTag(out, at, F.zeroThreshold, WIRE_FIXED64), h.zeroThreshold);
    if (float) at = writeDouble(view, writeTag(out, at, F.zeroCountFloat, WIRE_FIXED64), h.zeroCount);
    else at = putUvarint(out, writeTag(out, at, F.zeroCountInt, WIRE_VARINT), h.zeroCount);
    at = writeSide(out, view, at, h.negativeSpans, h.negativeBuckets, float, F.negativeSpans, float ? F.negativeCounts : F.negativeDeltas);
    at = writeSide(out, view, at, h.positiveSpans, h.positiveBuckets, float, F.positiveSpans, float ? F.positiveCounts : F.positiveDeltas);
    at = putUvarint(out, writeTag(out, at, F.resetHint, WIRE_VARINT), h.counterResetHint);
    at = putUvarint64(out, writeTag(out, at, F.timestamp, WIRE_VARINT), timestamp);
  }
  return at;
}

/** Checks one sample and returns the bytes of its Histogram message. */
function measure(s: HistogramSample, where: string): number {
  if (s === null || typeof s !== 'object') throw new InvalidArgumentError(`${where}: expected { timestamp, float, histogram }`);
  const float: unknown = s.float;
  if (float !== true && float !== false) {
    throw new InvalidArgumentError(`${where}: float must be true (a FloatHistogram, absolute bucket counts) or false (a Histogram, bucket deltas)`);
  }
  const t: unknown = s.timestamp;
  if (typeof t !== 'number' || !Number.isSafeInteger(t)) throw new InvalidArgumentError(`${where}: timestamp (${String(t)}) is not a whole number of milliseconds`);
  const h = s.histogram as Partial<Histogram | FloatHistogram> | null;
  if (h === null || typeof h !== 'object') throw new InvalidArgumentError(`${where} at ${t}: histogram must be an object`);
  const at = `${where} at ${t}`;
  const hint: unknown = h.counterResetHint;
  if (hint !== 0 && hint !== 1 && hint !== 2 && hint !== 3) throw new InvalidArgumentError(`${at}: counterResetHint must be 0, 1, 2 or 3`);
  const schema = wholeIn(h.schema, INT32_MIN, INT32_MAX, `${at}: schema`);
  number(h.sum, `${at}: sum`);
  number(h.zeroThreshold, `${at}: zeroThreshold`);
  let size = 9 + (1 + varintSize(schema)) + 9 + 2 + (1 + uvarint64Size(t));
  if (float) {
    number(h.count, `${at}: count`);
    number(h.zeroCount, `${at}: zeroCount`);
    size += 9 + 9;
  } else {
    size += 1 + uvarintSize(wholeIn(h.count, 0, Number.MAX_SAFE_INTEGER, `${at}: count`));
    size += 1 + uvarintSize(wholeIn(h.zeroCount, 0, Number.MAX_SAFE_INTEGER, `${at}: zeroCount`));
  }
  size += measureSide(h.negativeSpans, h.negativeBuckets, float, `${at}: negative`);
  size += measureSide(h.positiveSpans, h.positiveBuckets, float, `${at}: positive`);
  return size;
}

/** Bytes of one side's spans and buckets (fields absent when empty). */
function measureSide(spans: unknown, buckets: unknown, float: boolean, where: string): number {
  if (!Array.isArray(spans)) throw new InvalidArgumentError(`${where}Spans must be an array of { offset, length }`);
  if (!Array.isArray(buckets)) throw new InvalidArgumentError(`${where}Buckets must be an array of numbers`);
  let size = 0;
  spans.forEach((span: Partial<Span> | null, k) => {
    if (span === null || typeof span !== 'object') throw new InvalidArgumentError(`${where}Spans[${k}] must be { offset, length }`);
    const offset = wholeIn(span.offset, INT32_MIN, INT32_MAX, `${where}Spans[${k}].offset`);
    const length = wholeIn(span.length, 0, UINT32_MAX, `${where}Spans[${k}].length`);
    size += lenFieldSize(spanSize(offset, length));
  });
  if (buckets.length === 0) return size;
  if (float) {
    for (let k = 0; k < buckets.length; k++) number(buckets[k], `${where}Buckets[${k}]`);
    return size + lenFieldSize(8 * buckets.length);
  }
  let packed = 0;
  for (let k = 0; k < buckets.length; k++) {
    packed += varintSize(wholeIn(buckets[k], -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, `${where}Buckets[${k}]`));
  }
  return size + lenFieldSize(packed);
}

function writeSide(
  out: Uint8Array, view: DataView, at: number, spans: readonly Span[], buckets: readonly number[], float: boolean, spanField: number, bucketField: number,
): number {
  for (const { offset, length } of spans) {
    at = writeTag(out, at, spanField, WIRE_LEN);
    at = putUvarint(out, at, spanSize(offset, length));
    at = putVarint(out, writeTag(out, at, SPAN_FIELD.offset, WIRE_VARINT), offset);
    at = putUvarint(out, writeTag(out, at, SPAN_FIELD.length, WIRE_VARINT), length);
  }
  if (buckets.length === 0) return at;
  at = writeTag(out, at, bucketField, WIRE_LEN);
  if (float) {
    at = putUvarint(out, at, 8 * buckets.length);
    for (const c of buckets) at = writeDouble(view, at, c);
    return at;
  }
  let packed = 0;
  for (const d of buckets) packed += varintSize(d);
  at = putUvarint(out, at, packed);
  for (const d of buckets) at = putVarint(out, at, d);
  return at;
}

function spanSize(offset: number, length: number): number {
  return 1 + varintSize(offset) + 1 + uvarintSize(length);
}

/** Writes a double's bits little-endian, as the wire wants them (NaN payloads, such as the stale marker, kept). */
function writeDouble(view: DataView, at: number, v: number): number {
  view.setFloat64(at, v, true);
  return at + 8;
}

function number(v: unknown, what: string): number {
  if (typeof v !== 'number') throw new InvalidArgumentError(`${what} must be a number`);
  return v;
}

function wholeIn(v: unknown, min: number, max: number, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new InvalidArgumentError(`${what} (${String(v)}) must be a whole number from ${min} to ${max}`);
  }
  return v;
}
