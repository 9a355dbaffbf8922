/**
 * Just enough of the protobuf wire format to write the Store API's large
 * answers without building message objects: sizes first, then bytes into
 * one buffer. Field tags are single bytes (field numbers below 16).
 */

const TWO_32 = 4294967296;

/**
 * Bytes of `n` (a non-negative safe integer) as a varint. Comparisons, not
 * a loop of divisions: the Series encoder sizes every chunk's int64 times
 * (about 2^40 ms, 6 bytes) twice per chunk.
 */
export function varintSize(n: number): number {
  if (n < 0x80) return 1;
  if (n < 0x4000) return 2;
  if (n < 0x200000) return 3;
  if (n < 0x10000000) return 4;
  if (n < 0x800000000) return 5;
  if (n < 0x40000000000) return 6;
  if (n < 0x2000000000000) return 7;
  let size = 8;
  for (n = Math.floor(n / 0x100000000000000); n > 0; n = Math.floor(n / 128)) size++;
  return size;
}

/** Bytes of `n` (a safe integer) as an int64 varint: negatives take 10. */
export function int64Size(n: number): number {
  return n < 0 ? 10 : varintSize(n);
}

/** Bytes of a length-delimited field of `len` bytes, tag included. */
export function lenFieldSize(len: number): number {
  return 1 + varintSize(len) + len;
}

/**
 * Writes a non-negative safe integer as a varint at `at`; returns the end.
 * Below 2^28 with 32-bit operations; above, the low 28 bits first, then
 * the rest (exact: doubles hold every safe integer).
 */
export function writeVarint(b: Uint8Array, at: number, n: number): number {
  if (n >= 0x10000000) {
    let lo = n % 0x10000000;
    for (let i = 0; i < 4; i++) {
      b[at++] = (lo & 0x7f) | 0x80;
      lo >>>= 7;
    }
    n = (n - (n % 0x10000000)) / 0x10000000;
    if (n >= 0x10000000) return writeVarint(b, at, n);
  }
  while (n >= 0x80) {
    b[at++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  b[at++] = n;
  return at;
}

/** Writes a safe integer as an int64 varint (two's complement for negatives). */
export function writeInt64(b: Uint8Array, at: number, n: number): number {
  if (n >= 0) return writeVarint(b, at, n);
  const hi = Math.floor(n / TWO_32);
  let lo = (n - hi * TWO_32) >>> 0;
  let h = hi >>> 0;
  for (let i = 0; i < 9; i++) {
    b[at++] = (lo & 0x7f) | 0x80;
    lo = ((lo >>> 7) | (h << 25)) >>> 0;
    h >>>= 7;
  }
  b[at++] = lo & 0x01;
  return at;
}

/** Writes a tag byte: field number and wire type. */
export function writeTag(b: Uint8Array, at: number, field: number, wireType: number): number {
  b[at] = (field << 3) | wireType;
  return at + 1;
}

export const WIRE_VARINT = 0;
export const WIRE_LEN = 2;
