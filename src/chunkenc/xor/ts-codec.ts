import { MAX_VARINT64_BYTES, putUvarint64, putVarint, readUvarint64, VARINT_CUT_SHORT, type Uvarint64Read } from '../../encoding/varint.js';
import { BitReader, BitWriter } from '../bstream.js';
import { ENCODING_XOR } from '../encoding.js';
import type { Samples, XorCodec } from './codec.js';
import { chunkFull, decodeError } from './errors.js';

// The XOR codec in plain TypeScript: the oracle for the WebAssembly codec's
// differential tests and the baseline of its benchmark. Values travel as
// two uint32 halves of their bit pattern (read through Uint32Array views of
// the caller's Float64Array), timestamps as JS numbers, so it is exact for
// timestamps within ±2^52 ms (±142,000 years) and says so past that.

const MAX_SAMPLES = 65535;
const TWO_32 = 2 ** 32;
const TS_LIMIT = 2 ** 52;
const NO_WINDOW = 0xff;

function clz64(hi: number, lo: number): number {
  return hi !== 0 ? Math.clz32(hi) : 32 + Math.clz32(lo);
}

function ctz64(hi: number, lo: number): number {
  if (lo !== 0) return 31 - Math.clz32(lo & -lo);
  return 32 + 31 - Math.clz32(hi & -hi);
}

function readTimestamp(i32: Int32Array, i: number): number {
  const t = i32[2 * i + 1]! * TWO_32 + (i32[2 * i]! >>> 0);
  if (t <= -TS_LIMIT || t >= TS_LIMIT) throw new RangeError(`timestamp ${t} is outside ±2^52, the TypeScript codec's range`);
  return t;
}

function writeTimestamp(i32: Int32Array, i: number, t: number): void {
  const hi = Math.floor(t / TWO_32);
  i32[2 * i] = (t - hi * TWO_32) | 0;
  i32[2 * i + 1] = hi;
}

/**
 * A varint on its way to the bit writer or from the bit reader: the stream
 * holds it byte-wise, aligned or not, and encoding/varint.ts codes it.
 */
const scratch = new Uint8Array(MAX_VARINT64_BYTES);
const read: Uvarint64Read = { value: 0n, next: 0 };

/** Writes bytes [0, end) of `scratch`. */
function writeScratch(w: BitWriter, end: number): void {
  for (let k = 0; k < end; k++) w.write(scratch[k]!, 8);
}

/** Writes 64 bits given as halves. */
function write64(w: BitWriter, hi: number, lo: number): void {
  w.write(hi >>> 0, 32);
  w.write(lo >>> 0, 32);
}

class TsXorAppender {
  readonly w = new BitWriter();
  count = 0;
  private t = 0;
  private tDelta = 0;
  private vHi = 0;
  private vLo = 0;
  private leading = NO_WINDOW;
  private trailing = 0;
  /** Prometheus' spare zero byte after a byte-wise write that ends aligned (see assembly/xor.ts). */
  private padByte = false;

  constructor() {
    this.w.write(0, 16);
  }

  append(t: number, hi: number, lo: number): void {
    if (this.count >= MAX_SAMPLES) throw chunkFull(MAX_SAMPLES);
    const w = this.w;
    if (this.count === 0) {
      writeScratch(w, putVarint(scratch, 0, t));
      write64(w, hi, lo);
      this.padByte = true;
    } else {
      const d = t - this.t;
      if (this.count === 1) {
        writeScratch(w, putUvarint64(scratch, 0, d));
      } else {
        const dod = d - this.tDelta;
        if (dod === 0) w.write(0, 1);
        else if (dod >= -8191 && dod <= 8192) { w.write(0b10, 2); w.write(dod & 0x3fff, 14); }
        else if (dod >= -65535 && dod <= 65536) { w.write(0b110, 3); w.write(dod & 0x1ffff, 17); }
        else if (dod >= -524287 && dod <= 524288) { w.write(0b1110, 4); w.write(dod & 0xfffff, 20); }
        else {
          w.write(0b1111, 4);
          const dhi = Math.floor(dod / TWO_32);
          write64(w, dhi, dod - dhi * TWO_32);
        }
      }
      this.tDelta = d;
      this.writeValue(hi, lo);
    }
    this.t = t;
    this.vHi = hi;
    this.vLo = lo;
    this.count++;
  }

  private writeValue(hi: number, lo: number): void {
    const w = this.w;
    const dHi = (hi ^ this.vHi) >>> 0;
    const dLo = (lo ^ this.vLo) >>> 0;
    this.padByte = false;
    if (dHi === 0 && dLo === 0) {
      w.write(0, 1);
      return;
    }
    let lz = clz64(dHi, dLo);
    const tz = ctz64(dHi, dLo);
    if (lz >= 32) lz = 31;
    let shift: number;
    let sig: number;
    if (this.leading !== NO_WINDOW && lz >= this.leading && tz >= this.trailing) {
      w.write(0b10, 2);
      shift = this.trailing;
      sig = 64 - this.leading - this.trailing;
    } else {
      this.leading = lz;
      this.trailing = tz;
      sig = 64 - lz - tz;
      w.write(0b11, 2);
      w.write(lz, 5);
      w.write(sig & 63, 6);
      shift = tz;
    }
    let sHi = dHi;
    let sLo = dLo;
    if (shift >= 32) { sLo = dHi >>> (shift - 32); sHi = 0; }
    else if (shift > 0) { sLo = ((dLo >>> shift) | (dHi << (32 - shift))) >>> 0; sHi = dHi >>> shift; }
    if (sig > 32) { w.write(sHi, sig - 32); w.write(sLo, 32); }
    else w.write(sLo, sig);
    this.padByte = sig % 8 === 0 && w.pos % 8 === 0;
  }

  bytes(): Uint8Array {
    if (this.padByte) this.w.write(0, 8);
    const out = this.w.finish();
    out[0] = this.count >>> 8;
    out[1] = this.count & 0xff;
    return out;
  }
}

/** The uint64 the next bytes of `r` hold as an uvarint (Go's binary.ReadUvarint). */
function readUint64(r: BitReader, index: number): bigint {
  const start = r.pos;
  const n = Math.min(MAX_VARINT64_BYTES, Math.floor(r.left() / 8));
  for (let k = 0; k < n; k++) scratch[k] = r.read(8);
  const { next } = readUvarint64(scratch, 0, n, read);
  if (next === VARINT_CUT_SHORT) throw decodeError('truncated', index);
  if (next < 0) throw decodeError('bad-varint', index);
  r.pos = start + 8 * next;
  return read.value;
}

function need(r: BitReader, bits: number, index: number): void {
  if (r.left() < bits) throw decodeError('truncated', index);
}

/** The TypeScript XOR codec; see the module comment for its timestamp range. */
export class TsXorCodec implements XorCodec {
  readonly name = 'typescript';
  readonly encoding = ENCODING_XOR;

  encode(timestamps: BigInt64Array, values: Float64Array): Uint8Array {
    const n = timestamps.length;
    if (values.length !== n) throw new RangeError(`${n} timestamps but ${values.length} values`);
    if (n > MAX_SAMPLES) throw chunkFull(MAX_SAMPLES);
    const ts = new Int32Array(timestamps.buffer, timestamps.byteOffset, n * 2);
    const vs = new Uint32Array(values.buffer, values.byteOffset, n * 2);
    const app = new TsXorAppender();
    for (let i = 0; i < n; i++) app.append(readTimestamp(ts, i), vs[2 * i + 1]!, vs[2 * i]!);
    return app.bytes();
  }

  decode(chunk: Uint8Array): Samples {
    if (chunk.length < 2) throw decodeError('too-short', 0);
    const n = (chunk[0]! << 8) | chunk[1]!;
    const timestamps = new BigInt64Array(n);
    const values = new Float64Array(n);
    const ts = new Int32Array(timestamps.buffer);
    const vs = new Uint32Array(values.buffer);
    const r = new BitReader(chunk, 16);
    let t = 0;
    let tDelta = 0;
    let vHi = 0;
    let vLo = 0;
    let leading = NO_WINDOW;
    let trailing = 0;
    for (let i = 0; i < n; i++) {
      if (i === 0) {
        const z = readUint64(r, i);
        t = Number((z >> 1n) ^ -(z & 1n));
        need(r, 64, i);
        vHi = r.read(32);
        vLo = r.read(32);
      } else {
        if (i === 1) {
          tDelta = Number(BigInt.asIntN(64, readUint64(r, i)));
        } else {
          let ones = 0;
          while (ones < 4) {
            need(r, 1, i);
            if (r.read(1) === 0) break;
            ones++;
          }
          if (ones === 4) {
            need(r, 64, i);
            tDelta += (r.read(32) | 0) * TWO_32 + r.read(32);
          } else if (ones > 0) {
            const size = ones === 1 ? 14 : ones === 2 ? 17 : 20;
            need(r, size, i);
            let bits = r.read(size);
            if (bits > 2 ** (size - 1)) bits -= 2 ** size;
            tDelta += bits;
          }
        }
        t += tDelta;
        need(r, 1, i);
        if (r.read(1) === 1) {
          need(r, 1, i);
          if (r.read(1) === 1) {
            need(r, 11, i);
            leading = r.read(5);
            let sig = r.read(6);
            if (sig === 0) sig = 64;
            if (leading + sig > 64) throw decodeError('bad-xor-window', i);
            trailing = 64 - leading - sig;
          } else if (leading === NO_WINDOW) {
            throw decodeError('bad-xor-window', i);
          }
          const sig = 64 - leading - trailing;
          need(r, sig, i);
          let bHi = sig > 32 ? r.read(sig - 32) : 0;
          let bLo = r.read(sig > 32 ? 32 : sig);
          if (trailing >= 32) { bHi = bLo << (trailing - 32); bLo = 0; }
          else if (trailing > 0) { bHi = (bHi << trailing) | (bLo >>> (32 - trailing)); bLo = bLo << trailing; }
          vHi = (vHi ^ bHi) >>> 0;
          vLo = (vLo ^ bLo) >>> 0;
        }
      }
      writeTimestamp(ts, i, t);
      vs[2 * i] = vLo;
      vs[2 * i + 1] = vHi;
    }
    const used = (r.pos + 7) >>> 3;
    const spareZero = used + 1 === chunk.length && r.pos % 8 === 0 && chunk[used] === 0;
    if (used !== chunk.length && !spareZero) throw decodeError('trailing-bytes', n);
    return { timestamps, values };
  }
}
