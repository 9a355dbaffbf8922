/**
 * Big-endian integers, as Prometheus' block files hold them: 32-bit ones
 * with bit operators, 64-bit ones as two 32-bit halves of a JS number, exact
 * up to 2^53 - 1.
 */
import { checkUnsigned } from './safe-integer.js';

const TWO_32 = 0x1_0000_0000;

/** Writes a big-endian uint32 at `at`. */
export function putBE32(buf: Uint8Array, at: number, value: number): void {
  buf[at] = (value >>> 24) & 0xff;
  buf[at + 1] = (value >>> 16) & 0xff;
  buf[at + 2] = (value >>> 8) & 0xff;
  buf[at + 3] = value & 0xff;
}

/** Reads a big-endian uint32 at `at` (caller checks bounds). */
export function readBE32(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}

/** Writes `value` (0 ≤ value ≤ 2^53 - 1) as a big-endian uint64 at `at`; a RangeError for any other value. */
export function putBE64(buf: Uint8Array, at: number, value: number): void {
  checkUnsigned(value, 'uint64');
  putBE32(buf, at, Math.floor(value / TWO_32));
  putBE32(buf, at + 4, value % TWO_32);
}
