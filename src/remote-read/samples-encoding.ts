/**
 * The encoding of remote read's SAMPLES answers: one prometheus.ReadResponse
 * {results = 1 (QueryResult {timeseries = 1 (TimeSeries {labels = 1,
 * samples = 2 (Sample {value = 1, timestamp = 2}), histograms = 4
 * (Histogram, histogram-message.ts)})})}, one result per query in order.
 * As Prometheus' ToQueryResult: a series' float samples (its XOR chunks) in
 * `samples`, its native histogram samples (HISTOGRAM and FLOAT_HISTOGRAM
 * chunks) in `histograms`, each list in time order.
 *
 * Split by thread: the event loop selects and copies the chunks' bytes into
 * a {@link SamplesPlan} (planSamples in src/http/prometheus/read-samples.ts);
 * a pool worker decodes the chunks, encodes the message
 * ({@link encodeReadResponse}) and compresses it (samples-task.ts). Pure
 * encoding: nothing here knows HTTP or the pool.
 *
 * Values travel as raw 64-bit patterns from the chunk to the answer: the
 * decoder writes them into a Float64Array and the encoder copies their
 * eight bytes, so no value ever becomes a JS number, and NaN payloads such
 * as Prometheus' stale marker (0x7ff0000000000002) survive bit for bit.
 */
import { ENCODING_FLOAT_HISTOGRAM, ENCODING_XOR, chunkSampleCount } from '../chunkenc/index.js';
import type { FloatHistogram, Histogram } from '../chunkenc/histogram/types.js';
import { viewChunkBatch } from '../pool/batches.js';
import { lenFieldSize, WIRE_LEN, writeTag } from '../encoding/proto-writer.js';
import { putUvarint, putUvarint64, uvarint64Size } from '../encoding/varint.js';
import { encodeHistogramMessage } from './histogram-message.js';

/**
 * A SAMPLES answer to encode, laid out to cross to a worker: typed arrays
 * only, each on a buffer of its own (moved, not copied).
 */
export interface SamplesPlan {
  /** Every chunk of every series back to back (packChunkBatch's layout). */
  chunks: ArrayBuffer;
  /** Prometheus' encoding of each chunk (1 XOR, 2 histogram, 3 float histogram). */
  encodings: Uint8Array;
  /** The encoded labels fields of every series, back to back. */
  labels: Uint8Array;
  /** series + 1 offsets into `labels`. */
  labelOffsets: Uint32Array;
  /** series + 1 entries: series i has chunks [seriesChunks[i], seriesChunks[i + 1]). */
  seriesChunks: Uint32Array;
  /** queries + 1 entries: query q has series [querySeries[q], querySeries[q + 1]). */
  querySeries: Uint32Array;
  /** Two per query: the first and last ms of its range, inclusive (may be infinite). */
  ranges: Float64Array;
}

/** The buffers of a plan, to move to a worker. */
export function planBuffers(plan: SamplesPlan): ArrayBuffer[] {
  return [plan.chunks, plan.encodings.buffer, plan.labels.buffer, plan.labelOffsets.buffer, plan.seriesChunks.buffer, plan.querySeries.buffer, plan.ranges.buffer] as ArrayBuffer[];
}

/** What the encoder needs of the codec (WasmXorCodec in the worker). */
export interface ChunkDecoder {
  /** Decodes the XOR `chunk` into the arrays from index 0; returns the sample count. */
  decodeInto(chunk: Uint8Array, timestamps: BigInt64Array, values: Float64Array): number;
}

/** Decoded native histogram samples of one chunk, in time order. */
export interface DecodedHistograms {
  t: ArrayLike<number>;
  h: ReadonlyArray<Histogram | FloatHistogram>;
}

/** What the encoder needs to read histogram chunks (decodeHistogramChunk of src/chunkenc/chunk-samples.ts). */
export type HistogramDecoder = (encoding: number, chunk: Uint8Array) => DecodedHistograms;

// Tags: ReadResponse.results, QueryResult.timeseries and TimeSeries.samples
// are length-delimited fields; Sample.value is fixed64 (field 1, wire type
// 1), Sample.timestamp a varint (field 2, wire type 0).
const RESULTS = 1;
const TIMESERIES = 1;
const SAMPLES = 2;
const HISTOGRAMS = 4;
const SAMPLE_VALUE_TAG = 0x09;
const SAMPLE_TIMESTAMP_TAG = 0x10;
const TWO_32 = 4294967296;

/** Bytes of one Sample field in a TimeSeries: tag, length (one byte: a Sample is at most 20), value, timestamp. */
const sampleFieldSize = (t: number): number => 2 + 9 + 1 + uvarint64Size(t);

/**
 * Encodes the ReadResponse of `plan`: every chunk decoded, the samples of
 * each series within its query's range, series without any left out.
 * Histogram chunks need `histograms`. CPU-bound: run it in a worker.
 */
export function encodeReadResponse(plan: SamplesPlan, codec: ChunkDecoder, histograms?: HistogramDecoder): Uint8Array {
  const batch = viewChunkBatch(plan.chunks);
  const chunkCount = batch.offsets.length - 1;
  const encodings = plan.encodings;
  const chunkAt = (i: number): Uint8Array => batch.data.subarray(batch.offsets[i]!, batch.offsets[i + 1]!);
  // Decode the XOR chunks once; both passes below read the columns. A
  // histogram chunk holds no float sample here.
  const starts = new Uint32Array(chunkCount + 1);
  for (let i = 0; i < chunkCount; i++) starts[i + 1] = starts[i]! + (encodings[i] === ENCODING_XOR ? chunkSampleCount(chunkAt(i)) : 0);
  const total = starts[chunkCount]!;
  const timestamps = new BigInt64Array(total);
  const values = new Float64Array(total);
  for (let i = 0; i < chunkCount; i++) {
    const at = starts[i]!;
    const n = encodings[i] === ENCODING_XOR ? codec.decodeInto(chunkAt(i), timestamps.subarray(at), values.subarray(at)) : 0;
    starts[i + 1] = at + n; // the header's count, unless the chunk says otherwise
  }
  // Timestamps as two 32-bit halves (little-endian): numbers without BigInts.
  const lo = new Uint32Array(timestamps.buffer);
  const hi = new Int32Array(timestamps.buffer);
  const valueBytes = new Uint8Array(values.buffer);
  const timeAt = (i: number): number => hi[i * 2 + 1]! * TWO_32 + lo[i * 2]!;

  const { querySeries, seriesChunks, labelOffsets, ranges } = plan;
  const queries = querySeries.length - 1;
  const series = seriesChunks.length - 1;
  // Pass 1: sizes. samplesBytes[s] = bytes of series s's Sample and
  // Histogram fields in range; its Histogram messages are encoded here
  // (few next to float samples, and each of a size only known by encoding).
  const samplesBytes = new Float64Array(series);
  const resultBytes = new Float64Array(queries);
  const histogramsOf = new Map<number, Uint8Array[]>();
  let size = 0;
  for (let q = 0; q < queries; q++) {
    const start = ranges[q * 2]!;
    const end = ranges[q * 2 + 1]!;
    let result = 0;
    for (let s = querySeries[q]!; s < querySeries[q + 1]!; s++) {
      let bytes = 0;
      let messages: Uint8Array[] | undefined;
      for (let c = seriesChunks[s]!; c < seriesChunks[s + 1]!; c++) {
        if (encodings[c] !== ENCODING_XOR) {
          if (histograms === undefined) throw new Error(`chunk of encoding ${encodings[c]} and no histogram decoder`);
          const d = histograms(encodings[c]!, chunkAt(c));
          const float = encodings[c] === ENCODING_FLOAT_HISTOGRAM;
          for (let i = 0; i < d.t.length; i++) {
            const t = d.t[i]!;
            if (t < start) continue;
            if (t > end) break;
            const m = encodeHistogramMessage(d.h[i]!, float, t);
            (messages ??= []).push(m);
            bytes += lenFieldSize(m.length);
          }
          continue;
        }
        for (let i = starts[c]!; i < starts[c + 1]!; i++) {
          const t = timeAt(i);
          if (t < start) continue;
          if (t > end) break;
          bytes += sampleFieldSize(t);
        }
      }
      samplesBytes[s] = bytes;
      if (messages !== undefined) histogramsOf.set(s, messages);
      if (bytes > 0) result += lenFieldSize(labelOffsets[s + 1]! - labelOffsets[s]! + bytes);
    }
    resultBytes[q] = result;
    size += lenFieldSize(result);
  }
  // Pass 2: bytes.
  const out = new Uint8Array(size);
  let at = 0;
  for (let q = 0; q < queries; q++) {
    const start = ranges[q * 2]!;
    const end = ranges[q * 2 + 1]!;
    at = writeTag(out, at, RESULTS, WIRE_LEN);
    at = putUvarint(out, at, resultBytes[q]!);
    for (let s = querySeries[q]!; s < querySeries[q + 1]!; s++) {
      if (samplesBytes[s] === 0) continue;
      const labelsFrom = labelOffsets[s]!;
      const labelsTo = labelOffsets[s + 1]!;
      at = writeTag(out, at, TIMESERIES, WIRE_LEN);
      at = putUvarint(out, at, labelsTo - labelsFrom + samplesBytes[s]!);
      out.set(plan.labels.subarray(labelsFrom, labelsTo), at);
      at += labelsTo - labelsFrom;
      for (let c = seriesChunks[s]!; c < seriesChunks[s + 1]!; c++) {
        // Histogram chunks have no entries in the columns: starts[c] === starts[c + 1].
        for (let i = starts[c]!; i < starts[c + 1]!; i++) {
          const t = timeAt(i);
          if (t < start) continue;
          if (t > end) break;
          at = writeTag(out, at, SAMPLES, WIRE_LEN);
          out[at++] = 10 + uvarint64Size(t);
          out[at++] = SAMPLE_VALUE_TAG;
          // The value's eight bytes as decoded (little-endian, as fixed64 wants).
          const v = i * 8;
          for (let k = 0; k < 8; k++) out[at + k] = valueBytes[v + k]!;
          at += 8;
          out[at++] = SAMPLE_TIMESTAMP_TAG;
          at = putUvarint64(out, at, t);
        }
      }
      // Histograms after every sample: field 4 follows field 2, as Go writes them.
      for (const m of histogramsOf.get(s) ?? []) {
        at = writeTag(out, at, HISTOGRAMS, WIRE_LEN);
        at = putUvarint(out, at, m.length);
        out.set(m, at);
        at += m.length;
      }
    }
  }
  if (at !== size) throw new Error(`ReadResponse: wrote ${at} bytes of ${size}`);
  return out;
}
