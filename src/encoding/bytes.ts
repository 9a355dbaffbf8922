/**
 * Byte ranges and the arrays that hold them: Go's order of ranges, the copy
 * the remote-write parser makes of label bytes, zero-filled ranges (the
 * preallocated tails of segment files), and how growable buffers grow.
 */

/** Byte-wise comparison of [aAt, aAt + aLen) of `a` with [bAt, bAt + bLen) of `b`, as Go compares strings: <0, 0 or >0. */
export function compareBytes(a: Uint8Array, aAt: number, aLen: number, b: Uint8Array, bAt: number, bLen: number): number {
  const n = aLen < bLen ? aLen : bLen;
  for (let k = 0; k < n; k++) {
    const d = a[aAt + k]! - b[bAt + k]!;
    if (d !== 0) return d;
  }
  return aLen - bLen;
}

/**
 * Copies `len` bytes from `src` at `from` to `dst` at `to` and tells
 * whether any of them is not ASCII (a byte with the high bit set), so that
 * UTF-8 needs validating only then. Label names and values are mostly a
 * few to a few dozen ASCII bytes: whole 32-bit words go through the
 * DataViews (TurboFan inlines those into plain unaligned loads and stores),
 * and a byte loop does the last 0-3.
 */
export function copyBytes(
  src: Uint8Array, srcView: DataView, from: number, len: number,
  dst: Uint8Array, dstView: DataView, to: number,
): boolean {
  let high = 0;
  let k = 0;
  for (; k + 4 <= len; k += 4) {
    const w = srcView.getInt32(from + k, true);
    high |= w;
    dstView.setInt32(to + k, w, true);
  }
  for (; k < len; k++) {
    const b = src[from + k]!;
    high |= b;
    dst[to + k] = b;
  }
  return (high & 0x80808080) !== 0;
}

/**
 * `array` when it holds `need` elements; else a new array of its type, of
 * `need` elements or twice its length if that is more (appends cost O(1)
 * amortized), holding its first `used` elements.
 */
export function grown<T extends Uint8Array | Uint32Array>(array: T, used: number, need: number): T {
  if (need <= array.length) return array;
  const next = new (array.constructor as new (length: number) => T)(Math.max(need, array.length * 2));
  next.set(array.subarray(0, used));
  return next;
}

const ZEROS = Buffer.alloc(64 * 1024);

/** Whether bytes [from, to) of `buf` are all zero (memcmp in 64 KiB steps). */
export function isZero(buf: Buffer, from: number, to: number): boolean {
  for (let at = from; at < to; at += ZEROS.length) {
    const n = Math.min(ZEROS.length, to - at);
    if (buf.compare(ZEROS, 0, n, at, at + n) !== 0) return false;
  }
  return true;
}

/** End of the last non-zero byte in [from, to): `from` when all are zero. */
export function nonZeroEnd(buf: Buffer, from: number, to: number): number {
  let at = to;
  while (at > from) {
    const n = Math.min(ZEROS.length, at - from);
    if (buf.compare(ZEROS, 0, n, at - n, at) !== 0) {
      while (buf[at - 1] === 0) at--;
      return at;
    }
    at -= n;
  }
  return from;
}
