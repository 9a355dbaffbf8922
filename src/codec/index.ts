/**
 * The XOR chunk codec (Prometheus chunk encoding 1).
 *
 * `WasmXorCodec` is the one to use; `TsXorCodec` is its oracle and
 * benchmark baseline. Both implement `XorCodec` and produce the same bytes
 * as Prometheus.
 */
export type { Samples, XorCodec } from './types.js';
export { ChunkDecodeError, ChunkEncodeError } from './errors.js';
export { WasmXorCodec, chunkCapacity, chunkSampleCount } from './wasm-codec.js';
export { XorIterator } from './wasm-iterator.js';
export { XorAppender } from './wasm-appender.js';
export { TsXorCodec } from './xor-ts.js';
export { MAX_SAMPLES } from './wasm-module.js';

import type { XorCodec } from './types.js';
import { WasmXorCodec } from './wasm-codec.js';
import { TsXorCodec } from './xor-ts.js';

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
