import { open, type FileHandle } from 'node:fs/promises';
import { crc32c } from '@node-rs/crc32';
import { ByteBuffer } from '../encoding/byte-buffer.js';

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
