/**
 * The first time delta of an XOR chunk: after the 2-byte count, the first
 * time (zigzag varint) and the first value (64 bits) it is the uvarint
 * that starts on a byte boundary (docs/format/xor-chunk.md), so it reads
 * without decoding. Used with the appender's count of evenly spaced first
 * samples (SLOT.even): their times are first + k * this delta.
 */

/** The first time delta of the XOR chunk of `len` bytes at `at` in `b` (it holds two samples or more); -1 when the bytes do not hold one. */
export function xorFirstDelta(b: Uint8Array, at: number, len: number): number {
  const end = at + len;
  let p = at + 2;
  while (p < end && b[p]! >= 0x80) p++;
  p += 1 + 8;
  // A uvarint of up to 7 bytes (49 bits: deltas within ±2^53 ms need no more here).
  let d = 0;
  let scale = 1;
  for (let i = 0; i < 7 && p < end; i++, scale *= 128) {
    const x = b[p++]!;
    d += (x & 0x7f) * scale;
    if (x < 0x80) return d;
  }
  return -1;
}
