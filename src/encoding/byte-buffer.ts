/**
 * A growable byte buffer written left to right: Prometheus' encbuf, in which
 * the block writer lays out an index or a chunk segment before it goes to
 * disk (src/files/buffered-file.ts). Integers are checked on the way in.
 */
import { putBE32, putBE64 } from './big-endian.js';
import { grown } from './bytes.js';
import { checkSigned, checkUnsigned } from './safe-integer.js';
import { MAX_VARINT64_BYTES, putUvarint, putVarint } from './varint.js';

const utf8 = new TextEncoder();

/** A growable byte buffer written left to right. `bytes.subarray(0, length)` is the content. */
export class ByteBuffer {
  bytes: Uint8Array;
  length = 0;

  constructor(initialCapacity = 4096) {
    this.bytes = new Uint8Array(Math.max(16, initialCapacity));
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.length + n;
    if (need > this.bytes.length) this.bytes = grown(this.bytes, this.length, need);
  }

  /** Empties the buffer, keeping its memory. */
  reset(): void {
    this.length = 0;
  }

  /** The content, a view (valid until the next write). */
  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  /** Appends one byte. */
  u8(value: number): void {
    this.ensure(1);
    this.bytes[this.length++] = value;
  }

  /** Appends a big-endian uint32. */
  be32(value: number): void {
    this.ensure(4);
    putBE32(this.bytes, this.length, value);
    this.length += 4;
  }

  /** Appends `value` (0 ≤ value ≤ 2^53 - 1) as a big-endian uint64; a RangeError for any other value. */
  be64(value: number): void {
    this.ensure(8);
    putBE64(this.bytes, this.length, value);
    this.length += 8;
  }

  /** Appends `value` (0 ≤ value ≤ 2^53 - 1) as an uvarint; a RangeError for any other value. */
  uvarint(value: number): void {
    checkUnsigned(value, 'uvarint');
    this.ensure(MAX_VARINT64_BYTES);
    this.length = putUvarint(this.bytes, this.length, value);
  }

  /** Appends `value` (|value| ≤ 2^53 - 1) as a zigzag varint; a RangeError for any other value. */
  varint(value: number): void {
    checkSigned(value, 'varint');
    this.ensure(MAX_VARINT64_BYTES);
    this.length = putVarint(this.bytes, this.length, value);
  }

  /** Appends raw bytes. */
  put(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** Appends `s` as UTF-8 and returns its byte length. */
  utf8(s: string): number {
    // At most 3 bytes per UTF-16 code unit.
    this.ensure(s.length * 3);
    const { written } = utf8.encodeInto(s, this.bytes.subarray(this.length));
    this.length += written;
    return written;
  }

  /** Appends uvarint(byte length of s) then s as UTF-8 (Go's PutUvarintStr). */
  uvarintStr(s: string): void {
    const n = Buffer.byteLength(s, 'utf8');
    this.uvarint(n);
    this.ensure(n);
    const { written } = utf8.encodeInto(s, this.bytes.subarray(this.length, this.length + n));
    if (written !== n) throw new Error(`utf-8 length of ${JSON.stringify(s)} changed while encoding`);
    this.length += n;
  }

  /** Appends zero bytes until `base + length` is a multiple of `align`. */
  pad(align: number, base = 0): void {
    const r = (base + this.length) % align;
    if (r === 0) return;
    const n = align - r;
    this.ensure(n);
    this.bytes.fill(0, this.length, this.length + n);
    this.length += n;
  }
}
