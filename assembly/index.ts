// Entry point of build/strata.wasm: the XOR chunk codec and memory management
// for the buffers the host places in this module's memory.
export {
  MAX_SAMPLES, SLACK_BYTES, APPENDER_SIZE, ITERATOR_SIZE,
  appenderInit, appenderBytes, appenderCount, appendSamples,
  iterInit, iterBatch, iterSeek, iterT, iterIndex, iterErr, decodeChunk,
} from './xor';

/** Allocates `size` bytes of this module's memory, 16-byte aligned. */
export function alloc(size: usize): usize {
  return heap.alloc(size);
}

/** Frees a block from `alloc`. */
export function free(ptr: usize): void {
  heap.free(ptr);
}
