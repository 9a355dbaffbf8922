/**
 * Just enough of the protobuf wire format to write the Store API's large
 * answers without building message objects: sizes first, then bytes into
 * one buffer. Field tags are single bytes (field numbers below 16).
 */

const TWO_32 = 4294967296;

/** Bytes of `n` (a non-negative safe integer) as a varint. */
export function varintSize(n: number): number {
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size++;
  }
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

/** Writes a non-negative safe integer as a varint at `at`; returns the end. */
export function writeVarint(b: Uint8Array, at: number, n: number): number {
  while (n >= 128) {
    b[at++] = (n % 128) | 0x80;
    n = Math.floor(n / 128);
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
