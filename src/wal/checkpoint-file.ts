/**
 * Writes checkpoint files: a temporary file, fsync, rename, fsync of the
 * directory. A crash at any step leaves either the old state or the new
 * one, plus at most a temporary file that the next open removes.
 */
import { open, rename, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDir } from '../files/durable.js';
import { FRAME_HEADER_BYTES, KIND_CHECKPOINT, checkpointName, checkpointTempName } from './format.js';
import { allocFrameHeader, encodeFileHeader, encodeFrameHeader } from './frame.js';
import { writeStalled } from './errors.js';
import { checkRecordType, partsAfter, payloadLength } from './record-input.js';
import type { WalPayload, WalRecord } from './record-input.js';

/**
 * Records are copied into a buffer of this size and written when it fills:
 * checkpoints hold many small records (one per live series), and one write
 * per record would cost a pool round trip each. Larger records go straight
 * from the caller's buffer.
 */
const STAGING_BYTES = 1024 * 1024;

/** Appends frames to a file through a staging buffer; the file's handle is the caller's. */
class StagedWriter {
  private readonly staging = Buffer.allocUnsafe(STAGING_BYTES);
  private used = 0;
  private readonly header = allocFrameHeader();
  /** Bytes handed to the file so far. */
  written = 0;

  constructor(
    private readonly file: FileHandle,
    private readonly path: string,
  ) {}

  /** Appends raw bytes (the file header). */
  bytes(b: Uint8Array): void {
    this.staging.set(b, this.used);
    this.used += b.byteLength;
  }

  /** Appends one record; its payload is read before this returns. */
  async frame(type: number, payload: WalPayload): Promise<void> {
    checkRecordType(type);
    const length = payloadLength(payload);
    encodeFrameHeader(this.header, type, payload, length);
    const parts = payload instanceof Uint8Array ? [payload] : payload;
    const total = FRAME_HEADER_BYTES + length;
    if (this.used + total > STAGING_BYTES) await this.flush();
    if (total > STAGING_BYTES) {
      await this.writeAll([this.header, ...parts], total);
      return;
    }
    this.bytes(this.header);
    for (const p of parts) this.bytes(p);
  }

  async flush(): Promise<void> {
    if (this.used === 0) return;
    await this.writeAll([this.staging.subarray(0, this.used)], this.used);
    this.used = 0;
  }

  private async writeAll(parts: readonly Uint8Array[], total: number): Promise<void> {
    let done = 0;
    while (done < total) {
      const { bytesWritten } = await this.file.writev(done === 0 ? parts : partsAfter(parts, done), this.written + done);
      if (bytesWritten <= 0) throw writeStalled(this.path);
      done += bytesWritten;
    }
    this.written += total;
  }
}

/**
 * Writes checkpoint `n` of `records` in `dir`, durably, and returns its
 * size in bytes. Each record's payload is read before the iterator is
 * advanced, so the caller may reuse one buffer for every record.
 */
export async function writeCheckpointFile(
  dir: string,
  n: number,
  records: Iterable<WalRecord> | AsyncIterable<WalRecord>,
): Promise<number> {
  const temp = join(dir, checkpointTempName(n));
  const file = await open(temp, 'w');
  let size: number;
  try {
    const out = new StagedWriter(file, temp);
    out.bytes(encodeFileHeader(KIND_CHECKPOINT, n));
    for await (const r of records) await out.frame(r.type, r.payload);
    await out.flush();
    await file.sync();
    size = out.written;
  } catch (err) {
    await file.close().catch(() => {});
    await rm(temp, { force: true }).catch(() => {});
    throw err;
  }
  await file.close();
  await rename(temp, join(dir, checkpointName(n)));
  await syncDir(dir);
  return size;
}
