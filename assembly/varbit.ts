// Bit fields of Prometheus' histogram chunks (tsdb/chunkenc varbit.go,
// xor.go's xorWrite/xorRead), over linear memory, most significant bit
// first. One writer and one reader, kept in module globals so the hot
// loops in histogram.ts run on registers; every function here is inlined.
// Format: docs/format/histogram-chunks.md.
import { readBits, window64 } from './bits';

/**
 * Prometheus' stale marker 0x7ff0000000000002, a NaN whose sum field ends a
 * histogram sample's data, as the host sees it: its high and low 32 bits.
 */
export const STALE_NAN_HI: u32 = 0x7ff00000;
export const STALE_NAN_LO: u32 = 0x00000002;
export const STALE_NAN: u64 = (<u64>STALE_NAN_HI << 32) | <u64>STALE_NAN_LO;
/** No XOR window yet: the next non-zero XOR opens one. */
export const NO_WINDOW: u32 = 0xff;

// An XOR-coded field in memory: its last bits, then leading and trailing
// zeros of its window. The decoder and the float appender keep one per
// bucket; the sum, count and zero count have one in the state struct.
export const XF_BITS: usize = 0;
export const XF_LEADING: usize = 8;
export const XF_TRAILING: usize = 12;

// ---------------------------------------------------------------------------
// Writer. Pending bits sit left aligned in wAcc (wNb of them, < 32 between
// calls) and leave as whole big-endian 32-bit words at wOut, as in xor.ts.

let wAcc: u64 = 0;
let wNb: u32 = 0;
let wOut: usize = 0;
let wBase: usize = 0;
/** Whether the last field ended with a whole byte (Go's writeByte): see wPad. */
let wByteWise: bool = false;

/** Resumes writing the chunk at `buf` at bit `pos`; bits after `pos` are overwritten. */
// @ts-ignore: decorator
@inline export function wBegin(buf: usize, pos: u32): void {
  wBase = buf;
  wOut = buf + <usize>((pos >>> 5) << 2);
  wNb = pos & 31;
  wAcc = wNb == 0 ? 0 : (<u64>bswap<u32>(load<u32>(wOut)) << 32) & ~(u64.MAX_VALUE >>> <u64>wNb);
  wByteWise = false;
}

/** Stores the pending partial word (its unused bits zero) and returns the bit position. */
// @ts-ignore: decorator
@inline export function wEnd(): u32 {
  store<u32>(wOut, bswap<u32>(<u32>(wAcc >>> 32)));
  return <u32>((wOut - wBase) << 3) + wNb;
}

/** Bytes between the chunk start and the next word to write: a bound on the bytes used. */
// @ts-ignore: decorator
@inline export function wOffset(): usize {
  return wOut - wBase;
}

/**
 * 1 when Go's stream would carry a spare zero byte now: its last write was
 * byte-wise (bstream.writeByte appends a fresh byte) and ended aligned.
 */
// @ts-ignore: decorator
@inline export function wPad(): u32 {
  return wByteWise && (wNb & 7) == 0 ? 1 : 0;
}

/** Appends the low `n` (1..32) bits of `v`; never byte-wise (see putBits). */
// @ts-ignore: decorator
@inline function put(v: u64, n: u32): void {
  wAcc |= (v << <u64>(64 - n)) >>> <u64>wNb;
  wNb += n;
  if (wNb >= 32) {
    store<u32>(wOut, bswap<u32>(<u32>(wAcc >>> 32)));
    wOut += 4;
    wAcc <<= 32;
    wNb -= 32;
  }
}

/** A field of `n` (1..64) bits, as Go's writeBits: byte-wise when `n` is a multiple of 8. */
// @ts-ignore: decorator
@inline export function putBits(v: u64, n: u32): void {
  if (n > 32) {
    put(v >>> 32, n - 32);
    put(v, 32);
  } else {
    put(v, n);
  }
  wByteWise = (n & 7) == 0;
}

/**
 * putVarbitInt: a prefix of up to eight 1 bits picks the payload width.
 * Ranges as Go's bitRange(v, n): -(2^(n-1) - 1) <= v <= 2^(n-1). Prefix and
 * payload of the short widths go out as one field: only 56 and 64-bit
 * payloads end byte-wise.
 */
// @ts-ignore: decorator
@inline export function putVarbitInt(v: i64): void {
  const u = <u64>v;
  if (v == 0) {
    put(0, 1);
  } else if (v >= -3 && v <= 4) {
    put((0b10 << 3) | (u & 0x7), 5);
  } else if (v >= -31 && v <= 32) {
    put((0b110 << 6) | (u & 0x3f), 9);
  } else if (v >= -255 && v <= 256) {
    put((0b1110 << 9) | (u & 0x1ff), 13);
  } else if (v >= -2047 && v <= 2048) {
    put((0b11110 << 12) | (u & 0xfff), 17);
  } else if (v >= -131071 && v <= 131072) {
    put((0b111110 << 18) | (u & 0x3ffff), 24);
  } else if (v >= -16777215 && v <= 16777216) {
    put((0b1111110 << 25) | (u & 0x1ffffff), 32);
  } else if (v >= -36028797018963967 && v <= 36028797018963968) {
    put(0b11111110, 8);
    put(u >>> 32, 24);
    put(u, 32);
    wByteWise = true;
    return;
  } else {
    put(0b11111111, 8);
    put(u >>> 32, 32);
    put(u, 32);
    wByteWise = true;
    return;
  }
  wByteWise = false;
}

/** putVarbitUint: the widths of putVarbitInt, unsigned ranges. */
// @ts-ignore: decorator
@inline export function putVarbitUint(u: u64): void {
  if (u == 0) {
    put(0, 1);
  } else if (u < 8) {
    put((0b10 << 3) | u, 5);
  } else if (u < 64) {
    put((0b110 << 6) | u, 9);
  } else if (u < 512) {
    put((0b1110 << 9) | u, 13);
  } else if (u < 4096) {
    put((0b11110 << 12) | u, 17);
  } else if (u < 262144) {
    put((0b111110 << 18) | u, 24);
  } else if (u < 33554432) {
    put((0b1111110 << 25) | u, 32);
  } else if (u < 72057594037927936) {
    put(0b11111110, 8);
    put(u >>> 32, 24);
    put(u, 32);
    wByteWise = true;
    return;
  } else {
    put(0b11111111, 8);
    put(u >>> 32, 32);
    put(u, 32);
    wByteWise = true;
    return;
  }
  wByteWise = false;
}

/** xorWrite: `bits` against the XOR field at `f`, whose bits and window it updates. */
// @ts-ignore: decorator
@inline export function putXor(f: usize, bits: u64): void {
  const delta = bits ^ load<u64>(f + XF_BITS);
  store<u64>(f + XF_BITS, bits);
  if (delta == 0) {
    put(0, 1);
    wByteWise = false;
    return;
  }
  let lz = <u32>clz<u64>(delta);
  const tz = <u32>ctz<u64>(delta);
  if (lz >= 32) lz = 31; // five bits hold it
  const leading = load<u32>(f + XF_LEADING);
  const trailing = load<u32>(f + XF_TRAILING);
  let sig: u32;
  let shift: u32;
  if (leading != NO_WINDOW && lz >= leading && tz >= trailing) {
    put(0b10, 2);
    sig = 64 - leading - trailing;
    shift = trailing;
  } else {
    store<u32>(f + XF_LEADING, lz);
    store<u32>(f + XF_TRAILING, tz);
    sig = 64 - lz - tz;
    shift = tz;
    // 64 significant bits are written as 0 in the six-bit field.
    put((<u64>0b11 << 11) | (<u64>lz << 6) | <u64>(sig & 63), 13);
  }
  putBits(delta >>> <u64>shift, sig);
}

// ---------------------------------------------------------------------------
// Reader. Every read checks the chunk's end first; a failed read sets rErr
// (sticky) and returns 0, so callers test rErr once per field group.

export const ERR_TRUNCATED: i32 = -2;
export const ERR_BAD_WINDOW: i32 = -3;

let rBuf: usize = 0;
let rPos: u32 = 0;
let rEnd: u32 = 0;
export let rErr: i32 = 0;

/** Keeps the first error and ends the stream, so later reads fail fast without replacing it. */
// @ts-ignore: decorator
@inline function setErr(err: i32): void {
  if (rErr == 0) rErr = err;
  rPos = rEnd;
}

/** Reads the chunk at `buf` (with 8 readable bytes of slack after it) from bit `pos` to bit `end`. */
// @ts-ignore: decorator
@inline export function rBegin(buf: usize, pos: u32, end: u32): void {
  rBuf = buf;
  rPos = pos;
  rEnd = end;
  rErr = 0;
}

// @ts-ignore: decorator
@inline export function rAt(): u32 {
  return rPos;
}

// @ts-ignore: decorator
@inline export function rLeft(): u32 {
  return rEnd - rPos;
}

/** `n` (1..64) bits, right aligned. */
// @ts-ignore: decorator
@inline export function getBits(n: u32): u64 {
  if (n > rEnd - rPos) {
    setErr(ERR_TRUNCATED);
    return 0;
  }
  let v: u64;
  if (n <= 57) {
    v = readBits(rBuf, rPos, n);
  } else {
    v = (readBits(rBuf, rPos, n - 32) << 32) | readBits(rBuf, rPos + n - 32, 32);
  }
  rPos += n;
  return v;
}

/** Payload widths by the number of leading 1 bits of a varbit prefix. */
// @ts-ignore: decorator
@lazy const WIDTHS: StaticArray<u32> = [0, 3, 6, 9, 12, 18, 25, 56, 64];

/** Reads a varbit prefix; returns the payload width (0: the value is 0). */
// @ts-ignore: decorator
@inline function getWidth(): u32 {
  const left = rEnd - rPos;
  if (left == 0) {
    setErr(ERR_TRUNCATED);
    return 0;
  }
  let ones = <u32>clz<u64>(~window64(rBuf, rPos));
  if (ones > 8) ones = 8;
  const prefix = ones < 8 ? ones + 1 : 8;
  // Bits past the end may read as ones: then the prefix runs past it too.
  if (prefix > left) {
    setErr(ERR_TRUNCATED);
    return 0;
  }
  rPos += prefix;
  return unchecked(WIDTHS[ones]);
}

// @ts-ignore: decorator
@inline export function getVarbitInt(): i64 {
  const width = getWidth();
  if (width == 0) return 0;
  const bits = getBits(width);
  if (width == 64) return <i64>bits;
  // Values above 2^(width-1) are negative, as Go reads them.
  if (bits > (<u64>1 << <u64>(width - 1))) return <i64>(bits - (<u64>1 << <u64>width));
  return <i64>bits;
}

// @ts-ignore: decorator
@inline export function getVarbitUint(): u64 {
  const width = getWidth();
  return width == 0 ? 0 : getBits(width);
}

/**
 * xorRead into the field at `f`. A window Prometheus cannot write (leading +
 * significant bits > 64) sets ERR_BAD_WINDOW. A '10' before any '11' reuses
 * the window the field starts with; decoders start with (0, 0), as Go's.
 */
// @ts-ignore: decorator
@inline export function getXor(f: usize): void {
  if (rPos >= rEnd) {
    setErr(ERR_TRUNCATED);
    return;
  }
  const w = window64(rBuf, rPos);
  if ((w >>> 63) == 0) {
    rPos += 1;
    return;
  }
  if (rEnd - rPos < 2) {
    setErr(ERR_TRUNCATED);
    return;
  }
  if (((w >>> 62) & 1) != 0) {
    if (rEnd - rPos < 13) {
      setErr(ERR_TRUNCATED);
      return;
    }
    const leading = <u32>((w >>> 57) & 0x1f);
    let sig = <u32>((w >>> 51) & 0x3f);
    if (sig == 0) sig = 64;
    if (leading + sig > 64) {
      setErr(ERR_BAD_WINDOW);
      return;
    }
    store<u32>(f + XF_LEADING, leading);
    store<u32>(f + XF_TRAILING, 64 - leading - sig);
    rPos += 13;
  } else {
    rPos += 2;
  }
  const trailing = load<u32>(f + XF_TRAILING);
  const bits = getBits(64 - load<u32>(f + XF_LEADING) - trailing);
  store<u64>(f + XF_BITS, load<u64>(f + XF_BITS) ^ (bits << <u64>trailing));
}
