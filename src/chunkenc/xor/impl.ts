/** The XOR codec implementations: the one in use on this thread, and all of them for conformance suites. */
import type { XorCodec } from './codec.js';
import { TsXorCodec } from './ts-codec.js';
import { WasmXorCodec } from './wasm-codec.js';

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
