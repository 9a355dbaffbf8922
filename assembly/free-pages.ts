// Whole pages inside the allocator's free blocks, so that the host can give
// them back to the OS (madvise DONTNEED zero-fills them on the next touch).
// WebAssembly memory never shrinks, and the head's allocator keeps what it
// freed: chunk buffers that grew and were cut, batches of past requests.
//
// This walks AssemblyScript's TLSF (std/assembly/rt/tlsf.ts, 0.28): the
// root after __heap_base, the free list heads of each first/second level,
// and each free block's mmInfo (size | FREE | LEFTFREE), prev, next and,
// at its end, a back reference. A page is listed only when it lies between
// a free block's `next` field and its back reference, so no field the
// allocator reads is in it. Any inconsistency (a listed block not marked
// free, a back reference that does not point back) stops the walk with
// nothing listed: the allocator's layout is not the one this expects.

const PAGE: usize = 4096;
const AL_MASK: usize = 15;
const SL_BITS: usize = 4;
const SL_SIZE: usize = 16;
const FL_BITS: usize = 23; // 31 - (SL_BITS + AL_BITS)
const SL_START: usize = 4;
const SL_END: usize = SL_START + (FL_BITS << 2);
const HL_START: usize = (SL_END + AL_MASK) & ~AL_MASK;
const FREE: usize = 1;
const TAGS_MASK: usize = 3;
const BLOCK_OVERHEAD: usize = 4;
/** Bytes of a free block's fields after its start: mmInfo, prev, next. */
const FREE_FIELDS: usize = 12;

/**
 * Writes [start, length] u32 pairs of whole free pages to `out` (room for
 * `cap` pairs) and answers the number of pairs, or -1 if the allocator's
 * layout is not as expected (nothing should then be released).
 */
export function heapFreePages(out: usize, cap: u32): i32 {
  const root = (__heap_base + AL_MASK) & ~AL_MASK;
  let n: u32 = 0;
  for (let fl: usize = 0; fl < FL_BITS; fl++) {
    for (let sl: usize = 0; sl < SL_SIZE; sl++) {
      let block = load<usize>(root + (((fl << SL_BITS) + sl) << 2), HL_START);
      let guard = 0;
      while (block != 0) {
        const info = load<usize>(block);
        if ((info & FREE) == 0) return -1;
        const size = info & ~TAGS_MASK;
        const endOfBlock = block + BLOCK_OVERHEAD + size;
        if (load<usize>(endOfBlock - 4) != block) return -1;
        const from = (block + FREE_FIELDS + PAGE - 1) & ~(PAGE - 1);
        const to = (endOfBlock - 4) & ~(PAGE - 1);
        if (to > from && n < cap) {
          store<u32>(out + (<usize>n << 3), <u32>from);
          store<u32>(out + (<usize>n << 3) + 4, <u32>(to - from));
          n++;
        }
        block = load<usize>(block + 8);
        if (++guard > 0x1000000) return -1;
      }
    }
  }
  return <i32>n;
}
