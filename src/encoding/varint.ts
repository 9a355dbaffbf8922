/**
 * Strata's varints: LEB128, as Go's encoding/binary and protobuf write them,
 * of JS numbers.
 *
 * - uvarint: an unsigned integer (Go's PutUvarint, protobuf's uint64).
 * - varint: a signed integer, zigzag-encoded (Go's PutVarint, protobuf's
 *   sint64). Exact over ±(2^53 - 1): the zigzag of a negative number past
 *   2^52 needs 54 bits, more than a double holds, so it is never formed.
 * - uvarint64: a 64-bit integer as protobuf's int64 writes it, the uvarint
 *   of its two's complement (negatives take 10 bytes), read back whole as
 *   a BigInt.
 *
 * Values are safe integers; arithmetic, not bit operators, carries them past
 * 32 bits. Writers trust their caller (sizes are reserved first, values
 * checked where they enter); readers never read at or past `end` and refuse
 * a varint that is cut short, longer than MAX_VARINT64_BYTES or, read as a
 * number, outside the safe integers.
 *
 * Reads come in three shapes over one decoder: VarintReader, a cursor for a
 * run of varints (what hot loops use); readUvarint / readVarint, one varint
 * into the caller's VarintRead; uvarintAt / varintAt, one varint whose end is
 * left in `varintEnd`.
 *
 * One reader lives elsewhere: the remote-write parser's WireReader reads
 * protobuf's int64 as two 32-bit halves in a loop of its own, the hottest
 * varint of all (as a call into a function of this module it took about
 * 15% longer per varint, measured in isolation).
 */

/** Bytes of the longest varint of a safe integer, unsigned or zigzag (54 bits in 7-bit groups). */
export const MAX_VARINT_BYTES = 8;

/** Bytes of the longest varint of a 64-bit integer (Go's binary.MaxVarintLen64). */
export const MAX_VARINT64_BYTES = 10;

const TWO_28 = 0x1000_0000;
const TWO_32 = 0x1_0000_0000;

// ------------------------------------------------------------ sizes

/**
 * Bytes `n` (a non-negative safe integer) takes as an uvarint. Comparisons,
 * not a loop of divisions: the Store API's Series encoder sizes every
 * chunk's times (about 2^40 ms, 6 bytes) twice per chunk.
 */
export function uvarintSize(n: number): number {
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

/** Bytes `n` (a safe integer) takes as a zigzag varint. */
export function varintSize(n: number): number {
  // zigzag(n) is 2m or 2m + 1 for m = n or -n - 1: as long as 2m, which a double holds.
  return uvarintSize(2 * (n < 0 ? -n - 1 : n));
}

/** Bytes `n` (a safe integer) takes as an uvarint64: negatives take 10. */
export function uvarint64Size(n: number): number {
  return n < 0 ? MAX_VARINT64_BYTES : uvarintSize(n);
}

// ------------------------------------------------------------ writers

/**
 * Writes `n` (a non-negative safe integer) as an uvarint at `at`; returns
 * the offset after it. Below 2^28 with 32-bit operations; above, the low 28
 * bits first, then the rest (exact: doubles hold every safe integer).
 */
export function putUvarint(b: Uint8Array, at: number, n: number): number {
  if (n >= TWO_28) {
    let lo = n % TWO_28;
    for (let i = 0; i < 4; i++) {
      b[at++] = (lo & 0x7f) | 0x80;
      lo >>>= 7;
    }
    n = (n - (n % TWO_28)) / TWO_28;
    if (n >= TWO_28) return putUvarint(b, at, n);
  }
  while (n >= 0x80) {
    b[at++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  b[at++] = n;
  return at;
}

/** `n` (a non-negative safe integer) as uvarint bytes, for a small message built as a list. */
export function uvarintBytes(n: number): number[] {
  const b = new Uint8Array(MAX_VARINT64_BYTES);
  return [...b.subarray(0, putUvarint(b, 0, n))];
}

/**
 * Writes `n` (a non-negative safe integer) as an uvarint of exactly `width`
 * bytes at `at`, padded with continuation bits (the caller checked that it
 * fits); returns the offset after it. For a count known only once what
 * follows it is written, or a field rewritten in place.
 */
export function putUvarintPadded(b: Uint8Array, at: number, n: number, width: number): number {
  const last = at + width - 1;
  for (; at < last; at++) {
    b[at] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  b[at] = n;
  return at + 1;
}

/** Writes `n` (a safe integer) as a zigzag varint at `at`; returns the offset after it. */
export function putVarint(b: Uint8Array, at: number, n: number): number {
  if (n >= 0) return putUvarint(b, at, n * 2);
  // zigzag(n) = 2m + 1 for m = -n - 1: its low 7 bits are 6 bits of m and
  // the sign, the rest is m / 64 as an uvarint.
  const m = -n - 1;
  const low = (m % 64) * 2 + 1;
  const rest = Math.floor(m / 64);
  if (rest === 0) {
    b[at] = low;
    return at + 1;
  }
  b[at] = low | 0x80;
  return putUvarint(b, at + 1, rest);
}

/** Writes `n` (a safe integer) as an uvarint64 (two's complement for negatives) at `at`; returns the offset after it. */
export function putUvarint64(b: Uint8Array, at: number, n: number): number {
  if (n >= 0) return putUvarint(b, at, n);
  const hi = Math.floor(n / TWO_32);
  let lo = (n - hi * TWO_32) >>> 0;
  let h = hi >>> 0;
  for (let i = 0; i < MAX_VARINT64_BYTES - 1; i++) {
    b[at++] = (lo & 0x7f) | 0x80;
    lo = ((lo >>> 7) | (h << 25)) >>> 0;
    h >>>= 7;
  }
  b[at++] = lo & 0x01;
  return at;
}

// ------------------------------------------------------------ readers

const NO_BYTES = new Uint8Array(0);

/**
 * A cursor over varints: reads at `at`, never at or past `end`, and moves
 * `at` past what it read. A read that fails (cut short by `end`, longer than
 * MAX_VARINT64_BYTES, outside the safe integers) leaves `at` at the varint's
 * start and clears `ok` until the next reset, so a loop can read a run of
 * varints and check `ok` once. One object reused, no result objects and no
 * module state read per varint: the shape of the hot loops (a block's
 * series entries, WAL records, histogram bodies).
 *
 * @example
 * const r = new VarintReader();
 * r.reset(bytes, 0, bytes.length);
 * const count = r.uvarint();
 * const first = r.varint();
 * if (!r.ok) throw new Error('malformed');
 */
export class VarintReader {
  /** The bytes read. */
  b: Uint8Array = NO_BYTES;
  /** Where the next read starts; after a read, where it ended. */
  at = 0;
  /** Reads stop before this offset. */
  end = 0;
  /** False once a read failed. */
  ok = true;

  /** Reads `b` from `at` up to `end` (exclusive) from now on; sets `ok`. */
  reset(b: Uint8Array, at: number, end: number): void {
    this.b = b;
    this.at = at;
    this.end = end;
    this.ok = true;
  }

  /** An uvarint; -1 (and `ok` false) when it fails. */
  uvarint(): number {
    const b = this.b;
    const end = this.end;
    let at = this.at;
    if (at >= end) {
      this.ok = false;
      return -1;
    }
    let byte = b[at++]!;
    if (byte < 0x80) {
      this.at = at;
      return byte;
    }
    let value = byte & 0x7f;
    let scale = 0x80;
    // A literal bound (MAX_VARINT64_BYTES): V8 reloads a module constant on every pass.
    for (let i = 1; i < 10 && at < end; i++) {
      byte = b[at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        if (value > Number.MAX_SAFE_INTEGER) break;
        this.at = at;
        return value;
      }
      scale *= 0x80;
    }
    // `at` stays at the varint's start.
    this.ok = false;
    return -1;
  }

  /** A zigzag varint; 0 (and `ok` false) when it fails. */
  varint(): number {
    const start = this.at;
    if (start >= this.end) return this.fail(start, 0);
    const first = this.b[start]!;
    this.at = start + 1;
    // The first byte holds the sign (bit 0) and the magnitude's low 6 bits;
    // the bytes after it are the rest of the zigzag value, an uvarint.
    let rest = 0;
    if (first >= 0x80) {
      rest = this.uvarint();
      if (rest < 0 || this.at - start > MAX_VARINT64_BYTES) return this.fail(start, 0);
    }
    const magnitude = ((first & 0x7f) >>> 1) + 64 * rest;
    const negative = (first & 1) !== 0;
    // -magnitude - 1 must stay a safe integer too.
    if (magnitude > Number.MAX_SAFE_INTEGER - (negative ? 1 : 0)) return this.fail(start, 0);
    return negative ? -magnitude - 1 : magnitude;
  }

  private fail(start: number, value: number): number {
    this.at = start;
    this.ok = false;
    return value;
  }
}

/** One varint's value and the offset after it; `next` is -1 when the read failed. */
export interface VarintRead {
  value: number;
  next: number;
}

/** The cursor of the one-off reads below. */
const single = new VarintReader();

/** Puts what `single` just read into `out`. */
function settle(value: number, out: VarintRead): VarintRead {
  out.value = single.ok ? value : 0;
  out.next = single.ok ? single.at : -1;
  return out;
}

/** Reads the uvarint at `at`, not past `end`, into `out` (`next` -1 when it fails, as VarintReader fails); returns `out`. */
export function readUvarint(b: Uint8Array, at: number, end: number, out: VarintRead): VarintRead {
  single.reset(b, at, end);
  return settle(single.uvarint(), out);
}

/** Reads the zigzag varint at `at`, not past `end`, into `out` (`next` -1 when it fails, as VarintReader fails); returns `out`. */
export function readVarint(b: Uint8Array, at: number, end: number, out: VarintRead): VarintRead {
  single.reset(b, at, end);
  return settle(single.varint(), out);
}

/** Where the varint read by the last uvarintAt or varintAt ended (its start when it failed). */
export let varintEnd = 0;
/** Whether the last uvarintAt or varintAt succeeded. */
export let varintOk = true;

/** The uvarint at `at`, not past `end`; -1 when it fails (as VarintReader fails). Sets varintEnd and varintOk. */
export function uvarintAt(b: Uint8Array, at: number, end: number): number {
  single.reset(b, at, end);
  return publish(single.uvarint());
}

/** The zigzag varint at `at`, not past `end`; 0 and varintOk false when it fails (as VarintReader fails). Sets varintEnd and varintOk. */
export function varintAt(b: Uint8Array, at: number, end: number): number {
  single.reset(b, at, end);
  return publish(single.varint());
}

/** Publishes where `single` stopped and whether it read `value`. */
function publish(value: number): number {
  varintEnd = single.at;
  varintOk = single.ok;
  return value;
}

/** One uvarint64's value and the offset after it; `next` is VARINT_CUT_SHORT or VARINT_OVERFLOW when the read failed. */
export interface Uvarint64Read {
  value: bigint;
  next: number;
}

/** readUvarint64: the varint runs past `end`. */
export const VARINT_CUT_SHORT = -1;
/** readUvarint64: the varint is longer than 64 bits. */
export const VARINT_OVERFLOW = -2;

/**
 * Reads the uvarint at `at`, not past `end`, into `out` as an unsigned
 * 64-bit BigInt, as Go's binary.Uvarint reads it: it fails with
 * VARINT_CUT_SHORT, or VARINT_OVERFLOW past 64 bits (a tenth byte above 1).
 * For what needs all 64 bits (Prometheus' open-ended tombstones, the XOR
 * codec's oracle); hot paths read numbers, and the protobuf parser reads
 * int64s as 32-bit halves (wire-reader.ts).
 */
export function readUvarint64(b: Uint8Array, at: number, end: number, out: Uvarint64Read): Uvarint64Read {
  let value = 0n;
  for (let i = 0; i < MAX_VARINT64_BYTES; i++) {
    if (at >= end) break;
    const byte = b[at++]!;
    if (i === MAX_VARINT64_BYTES - 1 && byte > 1) {
      out.next = VARINT_OVERFLOW;
      return out;
    }
    value |= BigInt(byte & 0x7f) << BigInt(7 * i);
    if (byte < 0x80) {
      out.value = value;
      out.next = at;
      return out;
    }
  }
  out.next = VARINT_CUT_SHORT;
  return out;
}
