/**
 * An append's series as the bytes of a remote write 1.0 request
 * (prometheus.WriteRequest), so that the library's writes take the very
 * path of remote write: parsed and validated in the pool, tenant label
 * merged, write limits, WAL and head (src/ingest/writer.ts). One
 * path means one set of rules and messages; the price is this encoding
 * (about 20 bytes a sample, written straight from the caller's arrays).
 *
 * Field numbers (prometheus/prompb): WriteRequest {timeseries = 1};
 * TimeSeries {labels = 1, samples = 2, histograms = 4 (write-histograms.ts)};
 * Label {name = 1, value = 2}; Sample {value = 1 (double), timestamp = 2
 * (int64)}.
 */
import { lenFieldSize, WIRE_LEN, writeTag } from '../encoding/proto-writer.js';
import { putUvarint, putUvarint64, uvarint64Size } from '../encoding/varint.js';
import { InvalidArgumentError } from './errors.js';
import { labelPairs } from './labels.js';
import type { SeriesInput } from './types.js';
import { planHistograms, writeHistograms, type PlannedHistograms } from './write-histograms.js';

/** Tag bytes of Sample's fields: value (fixed64), timestamp (varint). */
const SAMPLE_VALUE_TAG = (1 << 3) | 1;
const SAMPLE_TIMESTAMP_TAG = (2 << 3) | 0;
const TWO_32 = 4294967296;

const encoder = new TextEncoder();

/** One series, measured: what the second pass writes. */
interface Planned {
  /** [name bytes, value bytes, ...] in name order. */
  labels: Uint8Array[];
  /** Timestamps as numbers (read once, checked). */
  timestamps: Float64Array;
  values: ArrayLike<number>;
  /** Its native histograms, if any. */
  histograms: PlannedHistograms | undefined;
  /** Bytes of the TimeSeries message. */
  size: number;
}

/**
 * The WriteRequest bytes of `series` (one or many), in an ArrayBuffer of
 * their own (the pool takes it without a copy). Throws InvalidArgumentError
 * for shapes the wire cannot carry: not a label set, timestamps and values
 * of different lengths, a timestamp that is not a whole number of
 * milliseconds, a histogram field of the wrong type or out of the wire's
 * range. Label rules (empty, repeated names) and Prometheus' histogram
 * checks are the parser's, as for any remote write.
 */
export function encodeWriteRequest(series: SeriesInput | Iterable<SeriesInput>): Uint8Array<ArrayBuffer> {
  const list = isSeries(series) ? [series] : [...(series as Iterable<SeriesInput>)];
  const planned: Planned[] = [];
  let total = 0;
  list.forEach((s, i) => {
    const p = plan(s, i);
    planned.push(p);
    total += lenFieldSize(p.size);
  });
  const out = new Uint8Array(new ArrayBuffer(total));
  const view = new DataView(out.buffer);
  let at = 0;
  for (const p of planned) {
    at = writeTag(out, at, 1, WIRE_LEN);
    at = putUvarint(out, at, p.size);
    for (let k = 0; k < p.labels.length; k += 2) {
      const name = p.labels[k]!;
      const value = p.labels[k + 1]!;
      at = writeTag(out, at, 1, WIRE_LEN);
      at = putUvarint(out, at, lenFieldSize(name.length) + lenFieldSize(value.length));
      at = writeBytes(out, writeTag(out, at, 1, WIRE_LEN), name);
      at = writeBytes(out, writeTag(out, at, 2, WIRE_LEN), value);
    }
    at = writeSamples(out, view, at, p);
    if (p.histograms !== undefined) at = writeHistograms(out, view, at, p.histograms);
  }
  return out;
}

function isSeries(x: unknown): x is SeriesInput {
  return typeof x === 'object' && x !== null && 'labels' in x;
}

function plan(s: SeriesInput, i: number): Planned {
  if (typeof s !== 'object' || s === null) throw new InvalidArgumentError(`series ${i}: expected { labels, timestamps, values } or { labels, histograms }`);
  const where = `series ${i}`;
  const labels: Uint8Array[] = [];
  let size = 0;
  for (const [name, value] of labelPairs(s.labels, `${where} labels`)) {
    const n = encoder.encode(name);
    const v = encoder.encode(value);
    labels.push(n, v);
    size += lenFieldSize(lenFieldSize(n.length) + lenFieldSize(v.length));
  }
  // A series of histograms only may leave out the floats.
  const floatless = s.timestamps === undefined && s.values === undefined && s.histograms !== undefined;
  const timestamps = floatless ? new Float64Array(0) : readTimestamps(s.timestamps!, where);
  const values = floatless ? timestamps : s.values!;
  if (values === null || typeof values !== 'object' || typeof values.length !== 'number') throw new InvalidArgumentError(`${where}: values must be an array of numbers`);
  if (values.length !== timestamps.length) throw new InvalidArgumentError(`${where}: ${timestamps.length} timestamps but ${values.length} values`);
  if (!(values instanceof Float64Array)) {
    for (let k = 0; k < values.length; k++) {
      if (typeof values[k] !== 'number') throw new InvalidArgumentError(`${where}: value ${k} is not a number`);
    }
  }
  for (let k = 0; k < timestamps.length; k++) size += lenFieldSize(1 + 8 + 1 + uvarint64Size(timestamps[k]!));
  const histograms = s.histograms === undefined ? undefined : planHistograms(s.histograms, where);
  if (histograms !== undefined) size += histograms.size;
  return { labels, timestamps, values, histograms, size };
}

/**
 * Timestamps as numbers, checked to be whole milliseconds. A
 * BigInt64Array is read through 32-bit halves (little-endian, as every
 * platform Node runs Strata on): reading its elements would make a BigInt
 * per sample.
 */
function readTimestamps(ts: NonNullable<SeriesInput['timestamps']>, where: string): Float64Array {
  if (ts instanceof BigInt64Array) {
    const lo = new Uint32Array(ts.buffer, ts.byteOffset, ts.length * 2);
    const hi = new Int32Array(ts.buffer, ts.byteOffset, ts.length * 2);
    const out = new Float64Array(ts.length);
    for (let k = 0; k < ts.length; k++) {
      const t = hi[2 * k + 1]! * TWO_32 + lo[2 * k]!;
      if (!Number.isSafeInteger(t)) throw new InvalidArgumentError(`${where}: timestamp ${k} is beyond ±2^53 ms`);
      out[k] = t;
    }
    return out;
  }
  if (ts === null || typeof ts !== 'object' || typeof ts.length !== 'number') throw new InvalidArgumentError(`${where}: timestamps must be an array of milliseconds`);
  const out = new Float64Array(ts.length);
  for (let k = 0; k < ts.length; k++) {
    const t = ts[k];
    if (typeof t !== 'number' || !Number.isSafeInteger(t)) throw new InvalidArgumentError(`${where}: timestamp ${k} (${String(t)}) is not a whole number of milliseconds`);
    out[k] = t;
  }
  return out;
}

function writeBytes(out: Uint8Array, at: number, bytes: Uint8Array): number {
  at = putUvarint(out, at, bytes.length);
  out.set(bytes, at);
  return at + bytes.length;
}

/**
 * The Sample messages of one series. A Float64Array's value bits are
 * copied byte by byte (NaN payloads, such as the stale marker, survive;
 * a number read from it might not keep its payload on every engine).
 */
function writeSamples(out: Uint8Array, view: DataView, at: number, p: Planned): number {
  const { timestamps, values } = p;
  const bits = values instanceof Float64Array ? new Uint8Array(values.buffer, values.byteOffset, values.length * 8) : undefined;
  for (let k = 0; k < timestamps.length; k++) {
    const t = timestamps[k]!;
    at = writeTag(out, at, 2, WIRE_LEN);
    at = putUvarint(out, at, 1 + 8 + 1 + uvarint64Size(t));
    out[at++] = SAMPLE_VALUE_TAG;
    if (bits !== undefined) {
      // The double's bytes in memory are little-endian, as the wire wants them.
      for (let b = 0; b < 8; b++) out[at + b] = bits[k * 8 + b]!;
    } else {
      view.setFloat64(at, values[k]!, true);
    }
    at += 8;
    out[at++] = SAMPLE_TIMESTAMP_TAG;
    at = putUvarint64(out, at, t);
  }
  return at;
}
