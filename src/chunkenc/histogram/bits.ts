import { BitReader, BitWriter } from '../bstream.js';

// Bit-level fields of the histogram chunks, for the TypeScript oracle:
// Prometheus' varbit integers (tsdb/chunkenc/varbit.go), the Gorilla XOR of
// a float64 (xor.go's xorWrite/xorRead) and the zero threshold byte
// (histogram_meta.go). 64-bit quantities are BigInts here: the oracle is
// meant to be obviously right, not fast. Readers throw `Short` when the
// stream ends; callers turn it into a ChunkDecodeError.

const MASK32 = 0xffffffffn;

/** Raised by the readers below when a field runs past the end of the chunk. */
export class Short extends Error {}

/**
 * A bit writer that also knows whether its last write ended with a whole
 * byte (Prometheus' bstream.writeByte): if that write also ended on a byte
 * boundary, Go's stream carries a spare zero byte after it.
 */
export class FieldWriter {
  readonly w = new BitWriter();
  private byteWise = false;

  /** Starts the stream after `headerBits` zero bits (not a byte-wise write). */
  constructor(headerBits: number) {
    this.w.write(0, headerBits);
  }

  /** Writes the low `n` (1..64) bits of `v`; `n` a multiple of 8 is a byte-wise write. */
  bits(v: bigint, n: number): void {
    const u = BigInt.asUintN(n, v);
    if (n > 32) {
      this.w.write(Number(u >> 32n), n - 32);
      this.w.write(Number(u & MASK32), 32);
    } else {
      this.w.write(Number(u), n);
    }
    this.byteWise = n % 8 === 0;
  }

  /** Bits written so far. */
  get pos(): number {
    return this.w.pos;
  }

  /** Bytes the stream holds now, Go's spare byte included. */
  length(): number {
    return ((this.w.pos + 7) >>> 3) + (this.byteWise && (this.w.pos & 7) === 0 ? 1 : 0);
  }
}

/** Reads `n` (1..64) bits as an unsigned BigInt; throws Short past the end. */
export function readBits(r: BitReader, n: number): bigint {
  if (r.left() < n) throw new Short();
  if (n > 32) {
    const hi = BigInt(r.read(n - 32));
    return (hi << 32n) | BigInt(r.read(32));
  }
  return BigInt(r.read(n));
}

/** Payload widths of the varbit buckets, by the number of leading 1 bits of the prefix. */
const VARBIT_WIDTHS = [0, 3, 6, 9, 12, 18, 25, 56, 64] as const;

/** Go's bitRange(x, n): -(2^(n-1) - 1) <= x <= 2^(n-1). */
function inRange(x: bigint, n: number): boolean {
  const half = 1n << BigInt(n - 1);
  return -(half - 1n) <= x && x <= half;
}

/** putVarbitInt: `v` is an int64. */
export function putVarbitInt(f: FieldWriter, v: bigint): void {
  if (v === 0n) return f.bits(0n, 1);
  for (let ones = 1; ones < 8; ones++) {
    const width = VARBIT_WIDTHS[ones]!;
    if (inRange(v, width)) {
      f.bits(((1n << BigInt(ones)) - 1n) << 1n, ones + 1);
      return f.bits(v, width);
    }
  }
  f.bits(0xffn, 8);
  f.bits(v, 64);
}

/** putVarbitUint: `v` is a uint64. */
export function putVarbitUint(f: FieldWriter, v: bigint): void {
  if (v === 0n) return f.bits(0n, 1);
  for (let ones = 1; ones < 8; ones++) {
    const width = VARBIT_WIDTHS[ones]!;
    if (v < 1n << BigInt(width)) {
      f.bits(((1n << BigInt(ones)) - 1n) << 1n, ones + 1);
      return f.bits(v, width);
    }
  }
  f.bits(0xffn, 8);
  f.bits(v, 64);
}

/** Reads a varbit prefix (up to eight 1 bits, ended by a 0 unless there are eight) and returns the payload width. */
function varbitWidth(r: BitReader): number {
  let ones = 0;
  while (ones < 8) {
    if (r.left() < 1) throw new Short();
    if (r.read(1) === 0) break;
    ones++;
  }
  return VARBIT_WIDTHS[ones]!;
}

/** readVarbitInt: an int64. */
export function readVarbitInt(r: BitReader): bigint {
  const width = varbitWidth(r);
  if (width === 0) return 0n;
  const bits = readBits(r, width);
  if (width === 64) return BigInt.asIntN(64, bits);
  // Values above 2^(width-1) are negative, as Go reads them.
  return bits > 1n << BigInt(width - 1) ? bits - (1n << BigInt(width)) : bits;
}

/** readVarbitUint: a uint64. */
export function readVarbitUint(r: BitReader): bigint {
  const width = varbitWidth(r);
  return width === 0 ? 0n : readBits(r, width);
}

/** One Gorilla-XOR coded float64 field: its last bits and XOR window (0xff: none yet). */
export interface XorField {
  bits: bigint;
  leading: number;
  trailing: number;
}

/** An XOR field's leading zeros before its first window. */
export const NO_WINDOW = 0xff;

function clz64(x: bigint): number {
  const hi = Number(x >> 32n);
  return hi !== 0 ? Math.clz32(hi) : 32 + Math.clz32(Number(x & MASK32));
}

function ctz64(x: bigint): number {
  const lo = Number(x & MASK32);
  if (lo !== 0) return 31 - Math.clz32(lo & -lo);
  const hi = Number(x >> 32n);
  return 32 + 31 - Math.clz32(hi & -hi);
}

/** xorWrite: writes `bits` against the field's previous bits and updates the field. */
export function putXor(f: FieldWriter, field: XorField, bits: bigint): void {
  const delta = bits ^ field.bits;
  field.bits = bits;
  if (delta === 0n) return f.bits(0n, 1);
  let lz = clz64(delta);
  const tz = ctz64(delta);
  if (lz >= 32) lz = 31; // five bits hold it
  if (field.leading !== NO_WINDOW && lz >= field.leading && tz >= field.trailing) {
    f.bits(0b10n, 2);
    return f.bits(delta >> BigInt(field.trailing), 64 - field.leading - field.trailing);
  }
  field.leading = lz;
  field.trailing = tz;
  const sig = 64 - lz - tz;
  // 64 significant bits are written as 0 in the six-bit field.
  f.bits((0b11n << 11n) | (BigInt(lz) << 6n) | BigInt(sig & 63), 13);
  f.bits(delta >> BigInt(tz), sig);
}

/**
 * xorRead. Returns false for a window Prometheus cannot write (leading +
 * significant bits > 64). A reused window before any was opened is the
 * window (0, 0), as Go's reader starts with it.
 */
export function readXor(r: BitReader, field: XorField): boolean {
  if (r.left() < 1) throw new Short();
  if (r.read(1) === 0) return true;
  if (r.left() < 1) throw new Short();
  if (r.read(1) === 1) {
    if (r.left() < 11) throw new Short();
    const leading = r.read(5);
    let sig = r.read(6);
    if (sig === 0) sig = 64;
    if (leading + sig > 64) return false;
    field.leading = leading;
    field.trailing = 64 - leading - sig;
  }
  const sig = 64 - field.leading - field.trailing;
  field.bits ^= readBits(r, sig) << BigInt(field.trailing);
  return true;
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** The bit pattern of a float64. */
export function bitsOfFloat(v: number): bigint {
  f64[0] = v;
  return u64[0]!;
}

/** The float64 with bit pattern `b` (NaN payloads kept: it is never stored in a JS array). */
export function floatOfBits(b: bigint): number {
  u64[0] = b;
  return f64[0]!;
}

/** putZeroThreshold: 0 as one byte, 2^-243..2^10 as one byte (exponent + 243 in frexp terms), else 255 + 64 bits. */
export function putZeroThreshold(f: FieldWriter, threshold: number): void {
  if (threshold === 0) return f.bits(0n, 8); // -0 too, as in Go
  const b = bitsOfFloat(threshold);
  const exponent = Number((b >> 52n) & 0x7ffn);
  const mantissa = b & 0xfffffffffffffn;
  // A positive normal power of two 2^e has frexp (0.5, e + 1).
  const e = exponent - 1023;
  if (b >> 63n === 0n && mantissa === 0n && exponent !== 0 && exponent !== 0x7ff && e >= -243 && e <= 10) {
    return f.bits(BigInt(e + 244), 8);
  }
  f.bits(255n, 8);
  f.bits(b, 64);
}

/** readZeroThreshold: the threshold's float64 bits. */
export function readZeroThreshold(r: BitReader): bigint {
  const b = Number(readBits(r, 8));
  if (b === 0) return 0n;
  if (b === 255) return readBits(r, 64);
  // math.Ldexp(0.5, b - 243) = 2^(b - 244), a normal float64.
  return BigInt(b - 244 + 1023) << 52n;
}
