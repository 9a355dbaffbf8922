import { releasePages } from '../files/mmap.js';
import type { MemoryExports } from './exports.js';

/** Ranges listed per call: the largest free runs are few; 16k covers any heap seen (2 GiB in 4 KiB pages is 512k). */
const MAX_RANGES = 16_384;

/**
 * Gives the whole pages inside the module allocator's free blocks back to
 * the OS (madvise DONTNEED: they read as zeros when touched again, and the
 * allocator never reads them while they are free). WebAssembly memory
 * never shrinks, and its allocator keeps what it freed resident: the slots
 * and chunks of series that left the head, buffers that grew. Answers the
 * bytes released; 0 when the allocator's layout is not the one expected.
 */
export function releaseFreePages(wasm: MemoryExports): number {
  const out = wasm.alloc(MAX_RANGES * 8);
  try {
    const n = wasm.heapFreePages(out, MAX_RANGES);
    if (n <= 0) return 0;
    const buffer = wasm.memory.buffer;
    const pairs = new Uint32Array(buffer, out, n * 2);
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      const start = pairs[2 * i]!;
      const length = pairs[2 * i + 1]!;
      releasePages(Buffer.from(buffer, start, length));
      bytes += length;
    }
    return bytes;
  } finally {
    wasm.free(out);
  }
}
