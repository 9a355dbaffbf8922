/**
 * Chunk encodings, as Prometheus' tsdb/chunkenc: the whole public surface
 * of src/chunkenc.
 *
 * - The contract every codec, appender and iterator keeps (chunk.ts), the
 *   encoding numbers and their wire mappings (encoding.ts), the errors
 *   (errors.ts).
 * - XOR chunks, Prometheus encoding 1 (xor/): `WasmXorCodec` is the one to
 *   use (`threadCodec()`), `TsXorCodec` its oracle and benchmark baseline;
 *   `XorAppender` and `XorIterator` grow and read one chunk.
 * - Native histogram chunks, encodings 2 and 3 (histogram/): the codecs
 *   (WebAssembly, and the TypeScript oracle), their appenders, and the
 *   per-series chunker that grows chunks as Prometheus 2.42's head does;
 *   the sample types the whole engine and the library share.
 * - Across encodings: overlapping chunks merged (merge-chunks.ts),
 *   histogram chunks to samples and back (chunk-samples.ts), XOR chunks as
 *   sortable columns (columns.ts), batches encoded and decoded in the
 *   worker pool (pool-tasks.ts).
 *
 * Formats: docs/format/xor-chunk.md, docs/format/histogram-chunks.md. Not
 * exported: the bit stream of the TypeScript oracles (bstream.ts) and each
 * family's internals.
 */

// The contract, the encodings, the errors.
export type { ChunkAppender, ChunkCodec, ChunkIterator, DecodedChunk } from './chunk.js';
export {
  ENCODING_FLOAT_HISTOGRAM, ENCODING_HISTOGRAM, ENCODING_NAMES, ENCODING_NONE, ENCODING_XOR,
  encodingName, isHistogramEncoding, isKnownEncoding, remoteReadChunkEncoding, thanosChunkEncoding,
  type ChunkEncoding, type Encoding, type HistogramEncoding,
} from './encoding.js';
export { ChunkDecodeError, ChunkEncodeError, type ChunkDecodeReason } from './errors.js';

// XOR chunks.
export type { Samples, XorCodec } from './xor/codec.js';
export { codecs, threadCodec } from './xor/impl.js';
export { WasmXorCodec, chunkCapacity, chunkSampleCount } from './xor/wasm-codec.js';
export { XorAppender } from './xor/wasm-appender.js';
export { XorIterator } from './xor/wasm-iterator.js';
export { TsXorCodec } from './xor/ts-codec.js';
export { MAX_SAMPLES } from '../wasm/layout.js';

// Native histogram chunks.
export {
  RESET_GAUGE, RESET_NO, RESET_UNKNOWN, RESET_YES,
  type CounterResetHint, type FloatHistogram, type Histogram, type HistogramShape, type Span,
} from './histogram/types.js';
export {
  HEADER_GAUGE, HEADER_NOT_RESET, HEADER_RESET, HEADER_UNKNOWN,
  type CounterResetHeader, type DecodedHistogramChunk, type HistogramChunkAppender, type HistogramChunkCodec,
} from './histogram/codec.js';
export { histogramCodecSets, tsHistogramCodecs, wasmHistogramCodecs, type HistogramCodecSet } from './histogram/impl.js';
export { WasmFloatHistogramCodec, WasmHistogramCodec } from './histogram/wasm-codec.js';
export { WasmFloatHistogramAppender, WasmHistogramAppender } from './histogram/wasm-appender.js';
export { TsFloatHistogramCodec, TsHistogramCodec } from './histogram/ts-codec.js';
export { TsFloatHistogramAppender, TsHistogramAppender } from './histogram/ts-appender.js';
export {
  DEFAULT_CHUNK_RANGE, HistogramChunker, SAMPLES_PER_CHUNK, lastHistogramSample,
  type ClosedHistogramChunk, type HistogramAppendResult, type HistogramChunkerOptions, type OpenHistogramChunk,
} from './histogram/chunker.js';
export { PackedHistogram } from './histogram/packed.js';
export { sameHistogram } from './histogram/equal.js';
// Read from the wire by the write path and written by remote read: prometheus.Histogram's fields.
export { HistogramFields, SideFields, validateHistogram } from './histogram/fields.js';
export { HISTOGRAM_FIELD, SPAN_FIELD } from './histogram/proto-fields.js';

// Across encodings.
export { overlapping, withoutOverlaps, mergeRun, encodeChunks, type MergeableChunk, type MergedChunk } from './merge-chunks.js';
export {
  ENCODED_CHUNK_SAMPLES, decodeHistogramChunk, encodeHistogramChunks,
  type AnyHistogram, type EncodedHistogramChunk, type HistogramChunkSamples,
} from './chunk-samples.js';
export { decodeColumns, encodeColumns, lowerBound, type SampleColumns } from './columns.js';
export { decodeInPool, decodeTask, encodeInPool, encodeTask } from './pool-tasks.js';
