/**
 * Int64 fields as JS numbers without BigInt, exact for |n| < 2^53 (about
 * 285,000 years of milliseconds either side of 1970).
 */

const TWO_32 = 4294967296;

/** Reads the little-endian int64 at byte `at` of `b`. */
export function readInt64(b: Uint8Array, at: number): number {
  const lo = (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)) + b[at + 3]! * 0x1000000;
  const hi = b[at + 4]! | (b[at + 5]! << 8) | (b[at + 6]! << 16) | (b[at + 7]! << 24);
  return hi * TWO_32 + lo;
}

/** Writes `n` as a little-endian int64 at byte `at` of `b`. */
export function writeInt64(b: Uint8Array, at: number, n: number): void {
  const hi = Math.floor(n / TWO_32);
  const lo = n - hi * TWO_32;
  b[at] = lo;
  b[at + 1] = lo >>> 8;
  b[at + 2] = lo >>> 16;
  b[at + 3] = lo >>> 24;
  b[at + 4] = hi;
  b[at + 5] = hi >> 8;
  b[at + 6] = hi >> 16;
  b[at + 7] = hi >> 24;
}

/** Reads the int64 at u32 index `i` of `u32` (little-endian halves). */
export function int64At(u32: Uint32Array, i32: Int32Array, i: number): number {
  return i32[i + 1]! * TWO_32 + u32[i]!;
}
