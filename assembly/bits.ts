// Big-endian bit I/O over linear memory, most significant bit first, as
// Prometheus' bstream writes it. Every buffer handed to these functions has
// at least 8 readable/writable bytes past the last bit touched (callers
// allocate that slack), so one unaligned 64-bit load or store covers any
// field of up to 57 bits without a byte loop.

// WebAssembly has no byte swap instruction: bswap<u64> becomes a dozen
// shifts and masks. One SIMD byte shuffle (pshufb on x86) does it instead.
// @ts-ignore: decorator
@lazy const REVERSE8 = i8x16(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);

/** Reads 8 bytes at `ptr` as a big-endian u64. */
// @ts-ignore: decorator
@inline export function loadBE(ptr: usize): u64 {
  return i64x2.extract_lane(i8x16.swizzle(v128.load64_zero(ptr), REVERSE8), 0);
}

/** Stores `v` at `ptr` as 8 big-endian bytes. */
// @ts-ignore: decorator
@inline export function storeBE(ptr: usize, v: u64): void {
  v128.store64_lane(ptr, i8x16.swizzle(i64x2.splat(v), REVERSE8), 0);
}

/**
 * The next 64 bits of the stream from bit position `pos`, left aligned.
 * Only the first 57 bits are guaranteed complete (the load is byte aligned).
 */
// @ts-ignore: decorator
@inline export function window64(base: usize, pos: u32): u64 {
  return loadBE(base + <usize>(pos >>> 3)) << <u64>(pos & 7);
}

/** Reads `n` bits (1..57) at bit position `pos`, right aligned. */
// @ts-ignore: decorator
@inline export function readBits(base: usize, pos: u32, n: u32): u64 {
  return window64(base, pos) >>> <u64>(64 - n);
}

/**
 * Writes the low `n` bits (1..57) of `v` at bit position `pos`. Bits after
 * the field, up to the end of the 8-byte word, are cleared, so buffers need
 * no zeroing before use and the last byte of a chunk is zero padded.
 */
// @ts-ignore: decorator
@inline export function writeBits(base: usize, pos: u32, v: u64, n: u32): void {
  const ptr = base + <usize>(pos >>> 3);
  const off = <u64>(pos & 7);
  const keep = ~(u64.MAX_VALUE >>> off);
  const field = (v << <u64>(64 - n)) >>> off;
  storeBE(ptr, (loadBE(ptr) & keep) | field);
}

/** Writes all 64 bits of `v` at bit position `pos`. */
// @ts-ignore: decorator
@inline export function writeBits64(base: usize, pos: u32, v: u64): void {
  writeBits(base, pos, v >>> 32, 32);
  writeBits(base, pos + 32, v & 0xffffffff, 32);
}
