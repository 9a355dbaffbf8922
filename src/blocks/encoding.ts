/**
 * Byte-level helpers shared by the block writer and readers: big-endian
 * integers, a growable buffer (varints are src/encoding/varint.ts') and a
 * buffered append-only file. Integers are JS numbers, exact up to 2^53 - 1;
 * nothing here uses bit operators on values that may pass 32 bits.
 * Format: docs/format/block.md.
 */
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import { MAX_VARINT64_BYTES, putUvarint, putVarint } from '../encoding/varint.js';

const TWO_32 = 0x1_0000_0000;

function checkUnsigned(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${what}: ${value} is not an integer in 0..2^53-1`);
  }
}

function checkSigned(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`${what}: ${value} is not an integer in ±(2^53-1)`);
  }
}

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

/** Writes `value` (0 ≤ value ≤ 2^53 - 1) as a big-endian uint64 at `at`. */
export function putBE64(buf: Uint8Array, at: number, value: number): void {
  checkUnsigned(value, 'uint64');
  putBE32(buf, at, Math.floor(value / TWO_32));
  putBE32(buf, at + 4, value % TWO_32);
}

/** Reads a big-endian uint64 at `at`; -1 when it exceeds 2^53 - 1. */
export function readBE64(buf: Uint8Array, at: number): number {
  const v = readBE32(buf, at) * TWO_32 + readBE32(buf, at + 4);
  return v <= Number.MAX_SAFE_INTEGER ? v : -1;
}

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
    if (need <= this.bytes.length) return;
    let cap = this.bytes.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }

  reset(): void {
    this.length = 0;
  }

  /** The content, a view (valid until the next write). */
  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  u8(value: number): void {
    this.ensure(1);
    this.bytes[this.length++] = value;
  }

  be32(value: number): void {
    this.ensure(4);
    putBE32(this.bytes, this.length, value);
    this.length += 4;
  }

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

/**
 * An append-only file written through a {@link ByteBuffer}. Writers append to
 * `out` synchronously and call {@link maybeFlush} between items; the buffer
 * goes to disk in large asynchronous writes. Between {@link crcBegin} and
 * {@link crcEnd} every byte appended is also fed to a running CRC32C.
 */
export class BufferedFile {
  readonly out: ByteBuffer;
  private flushed = 0;
  private crc = 0;
  private crcFrom = -1;

  private constructor(
    readonly path: string,
    private handle: FileHandle | undefined,
    private readonly flushBytes: number,
  ) {
    this.out = new ByteBuffer(flushBytes + (flushBytes >> 2));
  }

  /** Creates `path` (which must not exist). */
  static async create(path: string, flushBytes = 4 << 20): Promise<BufferedFile> {
    const handle = await open(path, 'wx', 0o666);
    return new BufferedFile(path, handle, flushBytes);
  }

  /** Offset in the file of the next byte appended. */
  get pos(): number {
    return this.flushed + this.out.length;
  }

  /** Starts a CRC32C over the bytes appended from now on. */
  crcBegin(): void {
    this.crc = 0;
    this.crcFrom = this.out.length;
  }

  /** Ends the running CRC32C and returns it. */
  crcEnd(): number {
    if (this.crcFrom < 0) throw new Error('crcEnd without crcBegin');
    const crc = crc32c(this.out.bytes.subarray(this.crcFrom, this.out.length), this.crc) >>> 0;
    this.crcFrom = -1;
    return crc;
  }

  /** Writes the buffer out when it holds at least the flush size. */
  async maybeFlush(): Promise<void> {
    if (this.out.length >= this.flushBytes) await this.flush();
  }

  /** Writes the buffer out. */
  async flush(): Promise<void> {
    const handle = this.handle;
    if (handle === undefined) throw new Error(`${this.path}: written after close`);
    const n = this.out.length;
    if (n === 0) return;
    if (this.crcFrom >= 0) {
      this.crc = crc32c(this.out.bytes.subarray(this.crcFrom, n), this.crc) >>> 0;
      this.crcFrom = 0;
    }
    let done = 0;
    while (done < n) {
      const { bytesWritten } = await handle.write(this.out.bytes, done, n - done, this.flushed + done);
      if (bytesWritten <= 0) throw new Error(`${this.path}: write returned ${bytesWritten}`);
      done += bytesWritten;
    }
    this.flushed += n;
    this.out.reset();
  }

  /** Flushes, fsyncs and closes. Returns the file's size. */
  async close(): Promise<number> {
    await this.flush();
    const handle = this.handle;
    if (handle !== undefined) {
      await handle.sync();
      this.handle = undefined;
      await handle.close();
    }
    return this.flushed;
  }

  /** Closes without flushing (after a failure); never throws. */
  async abort(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    this.out.reset();
    if (handle !== undefined) await handle.close().catch(() => undefined);
  }
}

/**
 * Writes a small file whole and durably: to `<name>.tmp`, fsynced, renamed
 * over `<name>`, then the directory fsynced. Returns the bytes written.
 */
export async function writeFileDurably(dir: string, name: string, bytes: Uint8Array): Promise<number> {
  const path = join(dir, name);
  const tmp = `${path}.tmp`;
  try {
    const handle = await open(tmp, 'w', 0o666);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } finally {
    await rm(tmp, { force: true });
  }
  await syncDir(dir);
  return bytes.length;
}

/** fsyncs a directory, making the creation, deletion or renaming of its entries durable. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
