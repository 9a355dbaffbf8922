/**
 * Unsigned LEB128 varints for integers up to 2^53 - 1. Number arithmetic
 * rather than bit operators, which would cut at 32 bits.
 */

/** Longest varint of a safe integer: 53 bits in 7-bit groups. */
export const MAX_VARINT_BYTES = 8;

/** Bytes `value` takes as a varint. */
export function varintSize(value: number): number {
  let n = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 0x80);
    n++;
  }
  return n;
}

/** Writes `value` at `at`; returns the offset after it. */
export function writeVarint(buf: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    buf[at++] = (value % 0x80) | 0x80;
    value = Math.floor(value / 0x80);
  }
  buf[at++] = value;
  return at;
}

/** Result of readVarint; `next` is -1 when the bytes are not a valid varint. */
export interface VarintRead {
  value: number;
  next: number;
}

/**
 * Reads a varint at `at`, not past `end`. Rejects (next = -1) a varint that
 * runs past `end`, is longer than MAX_VARINT_BYTES or exceeds 2^53 - 1.
 * Writes into `out` so hot loops allocate nothing.
 */
export function readVarint(buf: Uint8Array, at: number, end: number, out: VarintRead): VarintRead {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < MAX_VARINT_BYTES && at < end; i++) {
    const b = buf[at++]!;
    value += (b & 0x7f) * scale;
    if (b < 0x80) {
      out.value = value;
      out.next = value <= Number.MAX_SAFE_INTEGER ? at : -1;
      return out;
    }
    scale *= 0x80;
  }
  out.value = 0;
  out.next = -1;
  return out;
}
