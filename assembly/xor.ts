// The XOR chunk of Prometheus (chunk encoding 1), byte for byte.
// Format: docs/format/xor-chunk.md. The appender and the decoder keep their
// registers in locals for the whole loop and spill them to a small state
// struct only at the end of a call, so one call encodes or decodes a batch
// without touching memory for anything but the samples themselves.
import { readBits, window64 } from './bits';

/** A chunk's 16-bit sample count caps it at this many samples. */
export const MAX_SAMPLES: u32 = 65535;
/** Worst case for one sample: a 10-byte uvarint plus a 77-bit XOR value (157 bits), rounded up. */
export const MAX_SAMPLE_BYTES: u32 = 20;
/** Slack after a chunk: one unaligned 64-bit load or 32-bit store at its last byte always fits. */
export const SLACK_BYTES: u32 = 8;
const HEADER_BITS: u32 = 16;
const NO_WINDOW: u32 = 0xff;

// Appender state layout (bytes). A head series' slot starts with it
// (head.ts): the fields the host reads are exported as SLOT_* (index.ts).
export const A_POS = 0; //       u32 bits written, header included
export const A_COUNT = 4; //     u32 samples appended
export const A_T = 8; //         i64 last timestamp
const A_TDELTA = 16; //          i64 last timestamp delta
const A_V = 24; //               u64 last value bits
const A_LEADING = 32; //         u8 leading zeros of the XOR window, NO_WINDOW before the first
const A_TRAILING = 33; //        u8 trailing zeros of the XOR window
export const A_STEP = 36; //     u32 the first time delta, 0 when it does not fit 32 bits (see A_EVEN)
export const A_PAD_BYTE = 40; // u32 1 when the chunk ends in Prometheus' spare zero byte
// How many of the first samples are evenly spaced (every delta-of-delta 0
// so far): their times are first + k * A_STEP, so whether they hold a time
// is arithmetic (the out-of-order append's duplicate check, issue 26).
export const A_EVEN = 44; //     u32
export const APPENDER_SIZE: u32 = 48;

// The appender's bit writer. Pending bits sit left aligned in wAcc (wNb of
// them, < 32 between calls to put) and leave in whole big-endian 32-bit
// words at wOut. Keeping them in a register instead of re-reading the
// buffer avoids a store-to-load forwarding stall on every field.
let wAcc: u64 = 0;
let wNb: u32 = 0;
let wOut: usize = 0;

/** Appends the low `n` (1..32) bits of `v`. */
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

/** Appends the low `n` (1..64) bits of `v`. */
// @ts-ignore: decorator
@inline function putWide(v: u64, n: u32): void {
  if (n > 32) {
    put(v >>> 32, n - 32);
    put(v, 32);
  } else {
    put(v, n);
  }
}

function putUvarint(x: u64): void {
  while (x >= 0x80) {
    put((x & 0x7f) | 0x80, 8);
    x >>>= 7;
  }
  put(x, 8);
}

/** Starts an empty chunk in `buf` (at least 2 + SLACK_BYTES bytes). */
export function appenderInit(state: usize, buf: usize): void {
  memory.fill(state, 0, APPENDER_SIZE);
  store<u32>(state + A_POS, HEADER_BITS);
  store<u8>(state + A_LEADING, NO_WINDOW);
  store<u32>(buf, 0);
}

/**
 * Bytes the chunk occupies now: its bits rounded up, plus the spare zero
 * byte Prometheus' bit stream leaves after a byte-wise write that ends on a
 * byte boundary (its writeByte always appends a fresh byte). Every chunk of
 * one sample has it; so does one whose last value's significant bits are a
 * multiple of 8 and end aligned.
 */
export function appenderBytes(state: usize): u32 {
  return ((load<u32>(state + A_POS) + 7) >>> 3) + load<u32>(state + A_PAD_BYTE);
}

/** Samples appended so far. */
export function appenderCount(state: usize): u32 {
  return load<u32>(state + A_COUNT);
}

/**
 * Appends up to `n` samples (int64 timestamps at `ts`, float64 bit patterns
 * at `vals`) to the chunk in `buf` of `cap` bytes. Stops early when the
 * chunk holds MAX_SAMPLES or the next sample might not fit in `cap`; returns
 * how many samples were appended. The count header is updated on return.
 */
export function appendSamples(state: usize, buf: usize, cap: u32, ts: usize, vals: usize, n: u32): u32 {
  const startPos = load<u32>(state + A_POS);
  let count = load<u32>(state + A_COUNT);
  let t = load<i64>(state + A_T);
  let tDelta = load<i64>(state + A_TDELTA);
  let v = load<u64>(state + A_V);
  let leading = <u32>load<u8>(state + A_LEADING);
  let trailing = <u32>load<u8>(state + A_TRAILING);
  let padByte = load<u32>(state + A_PAD_BYTE);
  let even = load<u32>(state + A_EVEN);
  // Resume the writer on the 32-bit word holding the last partial bits.
  wOut = buf + <usize>((startPos >>> 5) << 2);
  wNb = startPos & 31;
  wAcc = wNb == 0 ? 0 : (<u64>bswap<u32>(load<u32>(wOut)) << 32) & ~(u64.MAX_VALUE >>> <u64>wNb);
  const limit = buf + <usize>cap - MAX_SAMPLE_BYTES - SLACK_BYTES;
  let i: u32 = 0;
  for (; i < n; i++) {
    if (count >= MAX_SAMPLES || wOut > limit) break;
    const st = load<i64>(ts + (<usize>i << 3));
    const sv = load<u64>(vals + (<usize>i << 3));
    if (count == 0) {
      putUvarint(<u64>((st << 1) ^ (st >> 63)));
      put(sv >>> 32, 32);
      put(sv, 32);
      t = st;
      v = sv;
      count = 1;
      even = 1;
      padByte = 1;
      continue;
    }
    const d = st - t;
    if (count == 1) {
      putUvarint(<u64>d);
      even = 2;
      store<u32>(state + A_STEP, d > 0 && d <= <i64>u32.MAX_VALUE ? <u32>d : 0);
    } else {
      const dod = d - tDelta;
      // Buckets as Prometheus' bitRange(dod, n): -(2^(n-1)-1) <= dod <= 2^(n-1).
      if (dod == 0) {
        put(0, 1);
        if (even == count) even++;
      } else if (dod >= -8191 && dod <= 8192) {
        put((0b10 << 14) | (<u64>dod & 0x3fff), 16);
      } else if (dod >= -65535 && dod <= 65536) {
        put((0b110 << 17) | (<u64>dod & 0x1ffff), 20);
      } else if (dod >= -524287 && dod <= 524288) {
        put((0b1110 << 20) | (<u64>dod & 0xfffff), 24);
      } else {
        put(0b1111, 4);
        put(<u64>dod >>> 32, 32);
        put(<u64>dod, 32);
      }
    }
    tDelta = d;
    t = st;

    const delta = sv ^ v;
    v = sv;
    count++;
    padByte = 0;
    if (delta == 0) {
      put(0, 1);
      continue;
    }
    let lz = <u32>clz<u64>(delta);
    const tz = <u32>ctz<u64>(delta);
    // 5 bits hold the leading-zero count: clamp as Prometheus does.
    if (lz >= 32) lz = 31;
    let sig: u32;
    if (leading != NO_WINDOW && lz >= leading && tz >= trailing) {
      put(0b10, 2);
      sig = 64 - leading - trailing;
    } else {
      leading = lz;
      trailing = tz;
      sig = 64 - lz - tz;
      // 64 significant bits are written as 0 in the 6-bit field.
      put((<u64>0b11 << 11) | (<u64>lz << 6) | <u64>(sig & 63), 13);
    }
    putWide(delta >>> <u64>trailing, sig);
    // Go's bstream writes whole bytes with writeByte, which leaves a fresh byte.
    if ((sig & 7) == 0 && (wNb & 7) == 0) padByte = 1;
  }
  // Flush the partial word; its unused bits, and the spare byte, are zero.
  store<u32>(wOut, bswap<u32>(<u32>(wAcc >>> 32)));
  store<u32>(state + A_POS, <u32>((wOut - buf) << 3) + wNb);
  store<u32>(state + A_COUNT, count);
  store<i64>(state + A_T, t);
  store<i64>(state + A_TDELTA, tDelta);
  store<u64>(state + A_V, v);
  store<u8>(state + A_LEADING, <u8>leading);
  store<u8>(state + A_TRAILING, <u8>trailing);
  store<u32>(state + A_PAD_BYTE, padByte);
  store<u32>(state + A_EVEN, even);
  store<u16>(buf, bswap<u16>(<u16>count));
  return i;
}

// ---------------------------------------------------------------------------
// Decoding.

/** Decode outcomes; negative values are errors, exported as XOR_ERR_* (index.ts). */
export const ERR_TOO_SHORT: i32 = -1;
export const ERR_TRUNCATED: i32 = -2;
export const ERR_BAD_WINDOW: i32 = -3;
export const ERR_TRAILING: i32 = -4;
export const ERR_TOO_MANY: i32 = -5;
export const ERR_BAD_VARINT: i32 = -6;

// Iterator state layout (bytes).
const I_POS = 0; //      u32 next bit to read
const I_COUNT = 4; //    u32 samples in the chunk
const I_INDEX = 8; //    u32 samples read so far
const I_ERR = 12; //     i32 sticky error, 0 when none
const I_T = 16; //       i64 current timestamp
const I_TDELTA = 24; //  i64 current timestamp delta
const I_V = 32; //       u64 current value bits
const I_LEADING = 40; // u32
const I_TRAILING = 44; //u32
export const ITERATOR_SIZE: u32 = 48;

/**
 * Positions an iterator at the start of the chunk of `len` bytes at `buf`
 * (followed by SLACK_BYTES readable bytes). Returns the sample count or
 * ERR_TOO_SHORT.
 */
export function iterInit(it: usize, buf: usize, len: u32): i32 {
  memory.fill(it, 0, ITERATOR_SIZE);
  store<u32>(it + I_LEADING, NO_WINDOW);
  if (len < 2) {
    store<i32>(it + I_ERR, ERR_TOO_SHORT);
    return ERR_TOO_SHORT;
  }
  const count = <u32>bswap<u16>(load<u16>(buf));
  store<u32>(it + I_POS, HEADER_BITS);
  store<u32>(it + I_COUNT, count);
  return <i32>count;
}

/** Current sample of the iterator: timestamp. */
export function iterT(it: usize): i64 {
  return load<i64>(it + I_T);
}

/** Samples read so far; the current sample is index - 1. */
export function iterIndex(it: usize): u32 {
  return load<u32>(it + I_INDEX);
}

/** The iterator's sticky error, 0 when none. */
export function iterErr(it: usize): i32 {
  return load<i32>(it + I_ERR);
}

// Where readUvarint stopped, and why (0 when it did not fail).
let varintEnd: u32 = 0;
let varintErr: i32 = 0;

/** Reads a uvarint of at most 64 bits at bit `pos`; sets varintEnd and varintErr. */
function readUvarint(buf: usize, pos: u32, end: u32): u64 {
  let x: u64 = 0;
  let shift: u64 = 0;
  varintErr = 0;
  for (;;) {
    if (pos + 8 > end) { varintErr = ERR_TRUNCATED; break; }
    const b = readBits(buf, pos, 8);
    pos += 8;
    if (shift == 63 && b > 1) { varintErr = ERR_BAD_VARINT; break; }
    x |= (b & 0x7f) << shift;
    if (b < 0x80) break;
    shift += 7;
  }
  varintEnd = pos;
  return x;
}

/**
 * A chunk ends with its last sample's bits, zero padded to a byte, plus at
 * most one spare zero byte when those bits end on a byte boundary (see
 * appenderBytes).
 */
function endsWell(buf: usize, pos: u32, len: u32): bool {
  const used = (pos + 7) >>> 3;
  if (used == len) return true;
  return used + 1 == len && (pos & 7) == 0 && load<u8>(buf + used) == 0;
}

/**
 * Reads up to `max` samples into `tsOut`/`valOut` (when `store` is true).
 * With `seek`, stops after the first sample whose timestamp is >= `target`.
 * Returns the number of samples read, or a negative error (also kept in the
 * state). Never reads past `len` bytes of `buf` plus SLACK_BYTES, and each
 * loop iteration consumes at least one bit, so it always terminates.
 */
// @ts-ignore: decorator
@inline function run(
  it: usize, buf: usize, len: u32, tsOut: usize, valOut: usize,
  max: u32, target: i64, seek: bool, output: bool,
): i32 {
  let err = load<i32>(it + I_ERR);
  if (err != 0) return err;
  let pos = load<u32>(it + I_POS);
  const count = load<u32>(it + I_COUNT);
  let index = load<u32>(it + I_INDEX);
  let t = load<i64>(it + I_T);
  let tDelta = load<i64>(it + I_TDELTA);
  let v = load<u64>(it + I_V);
  let leading = load<u32>(it + I_LEADING);
  let trailing = load<u32>(it + I_TRAILING);
  const end: u32 = len << 3;
  let produced: u32 = 0;
  while (produced < max && index < count) {
    if (index == 0) {
      // Signed varint timestamp, then 64 raw value bits.
      const x = readUvarint(buf, pos, end);
      err = varintErr;
      if (err != 0) break;
      pos = varintEnd;
      t = <i64>(x >>> 1) ^ -<i64>(x & 1);
      if (pos + 64 > end) { err = ERR_TRUNCATED; break; }
      v = (readBits(buf, pos, 32) << 32) | readBits(buf, pos + 32, 32);
      pos += 64;
    } else {
      if (index == 1) {
        const x = readUvarint(buf, pos, end);
        err = varintErr;
        if (err != 0) break;
        pos = varintEnd;
        tDelta = <i64>x;
      }
      // One big-endian window serves the timestamp and, mostly, the value:
      // `w` holds the next `avail` bits of the stream, left aligned. Reading
      // fields out of a register beats reloading for each (fewer loads on
      // the serial chain from one field's position to the next).
      let w: u64;
      let avail: u32;
      if (index == 1) {
        w = window64(buf, pos);
        avail = 64 - (pos & 7);
      } else {
        // Delta-of-delta: up to four '1' bits select the bucket.
        if (pos + 1 > end) { err = ERR_TRUNCATED; break; }
        w = window64(buf, pos);
        avail = 64 - (pos & 7);
        const ones = <u32>clz<u64>(~w);
        if (ones == 0) {
          pos += 1;
          w <<= 1;
          avail -= 1;
        } else if (ones < 4) {
          // ones 1, 2, 3 -> 14, 17, 20 bits after a prefix of ones + 1 bits.
          const size: u32 = ones == 1 ? 14 : ones == 2 ? 17 : 20;
          const used = ones + 1 + size;
          if (pos + used > end) { err = ERR_TRUNCATED; break; }
          let bits = (w << <u64>(ones + 1)) >>> <u64>(64 - size);
          // Values above 2^(size-1) are negative (two's complement in `size` bits).
          if (bits > (<u64>1 << <u64>(size - 1))) bits -= <u64>1 << <u64>size;
          tDelta += <i64>bits;
          pos += used;
          w <<= <u64>used;
          avail -= used;
        } else {
          if (pos + 68 > end) { err = ERR_TRUNCATED; break; }
          tDelta += <i64>((readBits(buf, pos + 4, 32) << 32) | readBits(buf, pos + 36, 32));
          pos += 68;
          w = window64(buf, pos);
          avail = 64 - (pos & 7);
        }
      }
      t += tDelta;

      // Value: '0' same; '10' reuse the XOR window; '11' new window.
      // avail >= 33 here, enough for the 13 control bits.
      if (pos + 1 > end) { err = ERR_TRUNCATED; break; }
      if ((w >>> 63) != 0) {
        if (pos + 2 > end) { err = ERR_TRUNCATED; break; }
        if (((w >>> 62) & 1) != 0) {
          if (pos + 13 > end) { err = ERR_TRUNCATED; break; }
          leading = <u32>((w >>> 57) & 0x1f);
          let sig = <u32>((w >>> 51) & 0x3f);
          if (sig == 0) sig = 64;
          if (leading + sig > 64) { err = ERR_BAD_WINDOW; break; }
          trailing = 64 - leading - sig;
          pos += 13;
          w <<= 13;
          avail -= 13;
        } else {
          if (leading == NO_WINDOW) { err = ERR_BAD_WINDOW; break; }
          pos += 2;
          w <<= 2;
          avail -= 2;
        }
        const sig: u32 = 64 - leading - trailing;
        if (pos + sig > end) { err = ERR_TRUNCATED; break; }
        let bits: u64;
        if (sig <= avail && sig < 64) {
          bits = w >>> <u64>(64 - sig);
        } else if (sig <= 57) {
          bits = readBits(buf, pos, sig);
        } else {
          bits = (readBits(buf, pos, sig - 32) << 32) | readBits(buf, pos + sig - 32, 32);
        }
        v ^= bits << <u64>trailing;
        pos += sig;
      } else {
        pos += 1;
      }
    }
    if (output) {
      store<i64>(tsOut + (<usize>produced << 3), t);
      store<u64>(valOut + (<usize>produced << 3), v);
    }
    produced++;
    index++;
    if (seek && t >= target) break;
  }
  if (err == 0 && index == count && !endsWell(buf, pos, len)) err = ERR_TRAILING;
  store<u32>(it + I_POS, pos);
  store<u32>(it + I_INDEX, index);
  store<i32>(it + I_ERR, err);
  store<i64>(it + I_T, t);
  store<i64>(it + I_TDELTA, tDelta);
  store<u64>(it + I_V, v);
  store<u32>(it + I_LEADING, leading);
  store<u32>(it + I_TRAILING, trailing);
  return err != 0 ? err : <i32>produced;
}

/**
 * Decodes a whole chunk into `tsOut` and `valOut` (room for `max` samples
 * each). Returns the sample count or a negative error; `it` is scratch
 * state of ITERATOR_SIZE bytes whose index tells where an error happened.
 */
export function decodeChunk(it: usize, buf: usize, len: u32, tsOut: usize, valOut: usize, max: u32): i32 {
  const count = iterInit(it, buf, len);
  if (count < 0) return count;
  if (<u32>count > max) {
    store<i32>(it + I_ERR, ERR_TOO_MANY);
    return ERR_TOO_MANY;
  }
  return run(it, buf, len, tsOut, valOut, <u32>count, 0, false, true);
}

/**
 * Decodes the next samples, up to `max`, into `tsOut`/`valOut`: returns how
 * many (0 at the end of the chunk) or an error.
 */
export function iterBatch(it: usize, buf: usize, len: u32, tsOut: usize, valOut: usize, max: u32): i32 {
  return run(it, buf, len, tsOut, valOut, max, 0, false, true);
}

/**
 * Advances to the first sample at or after `target` (the current one if it
 * already is): 1 when there is one, 0 when the chunk ends first, or an error.
 * Like Prometheus' Seek, it never moves backwards.
 */
export function iterSeek(it: usize, buf: usize, len: u32, target: i64, tsOut: usize, valOut: usize): i32 {
  const index = load<u32>(it + I_INDEX);
  if (index > 0 && load<i64>(it + I_T) >= target && load<i32>(it + I_ERR) == 0) {
    store<i64>(tsOut, load<i64>(it + I_T));
    store<u64>(valOut, load<u64>(it + I_V));
    return 1;
  }
  const count = load<u32>(it + I_COUNT);
  const n = run(it, buf, len, tsOut, valOut, count, target, true, false);
  if (n <= 0) return n;
  if (load<i64>(it + I_T) < target) return 0;
  store<i64>(tsOut, load<i64>(it + I_T));
  store<u64>(valOut, load<u64>(it + I_V));
  return 1;
}
