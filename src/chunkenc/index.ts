/**
 * The XOR chunk codec (Prometheus chunk encoding 1).
 *
 * `WasmXorCodec` is the one to use; `TsXorCodec` is its oracle and
 * benchmark baseline. Both implement `XorCodec` and produce the same bytes
 * as Prometheus.
 */
export type { Samples, XorCodec } from './types.js';
export {
  ENCODING_FLOAT_HISTOGRAM, ENCODING_HISTOGRAM, ENCODING_NAMES, ENCODING_NONE, ENCODING_XOR,
  encodingName, isHistogramEncoding, isKnownEncoding, remoteReadChunkEncoding, thanosChunkEncoding,
  type ChunkEncoding, type Encoding, type HistogramEncoding,
} from './encoding.js';
export { ChunkDecodeError, ChunkEncodeError } from './errors.js';
export { WasmXorCodec, chunkCapacity, chunkSampleCount } from './xor/wasm-codec.js';
export { XorIterator } from './xor/wasm-iterator.js';
export { XorAppender } from './xor/wasm-appender.js';
export { TsXorCodec } from './xor/ts-codec.js';
export { MAX_SAMPLES } from '../wasm/module.js';

import type { XorCodec } from './types.js';
import { WasmXorCodec } from './xor/wasm-codec.js';
import { TsXorCodec } from './xor/ts-codec.js';

let mainCodec: WasmXorCodec | undefined;

/**
 * This thread's WebAssembly codec, created on first use. Synchronous: for
 * small jobs on the main thread; hand large batches to the worker pool.
 */
export function threadCodec(): WasmXorCodec {
  mainCodec ??= new WasmXorCodec();
  return mainCodec;
}

/** Every implementation, for conformance suites. */
export const codecs: readonly XorCodec[] = [threadCodec(), new TsXorCodec()];

/**
 * Native histogram chunks (Prometheus chunk encodings 2 and 3): the codecs
 * (WebAssembly, and the TypeScript oracle), their contract, and the
 * per-series chunker that grows chunks as Prometheus 2.42's head does.
 * Format: docs/format/histogram-chunks.md.
 */
export {
  HEADER_GAUGE, HEADER_NOT_RESET, HEADER_RESET, HEADER_UNKNOWN,
  type CounterResetHeader, type DecodedHistogramChunk, type HistogramChunkAppender, type HistogramChunkCodec,
} from './histogram/codec.js';
export { WasmFloatHistogramCodec, WasmHistogramCodec } from './histogram/wasm-codec.js';
export { WasmFloatHistogramAppender, WasmHistogramAppender } from './histogram/wasm-appender.js';
export { TsFloatHistogramCodec, TsHistogramCodec } from './histogram/ts-codec.js';
export { TsFloatHistogramAppender, TsHistogramAppender } from './histogram/ts-appender.js';
export { histogramCodecSets, tsHistogramCodecs, wasmHistogramCodecs, type HistogramCodecSet } from './histogram/impl.js';
export {
  DEFAULT_CHUNK_RANGE, HistogramChunker, SAMPLES_PER_CHUNK, lastHistogramSample,
  type ClosedHistogramChunk, type HistogramAppendResult, type HistogramChunkerOptions, type OpenHistogramChunk,
} from './histogram/chunker.js';
