/**
 * Writes the chunk segment files of a block (`chunks/000001`, `000002`,
 * ...) in Prometheus 2.x's format (tsdb/chunks/chunks.go, format version 1):
 *
 *   segment = magic 0x85BD40DD (BE) | version 1 | 3 zero bytes | chunk*
 *   chunk   = uvarint(len(data)) | encoding (1 byte) | data | CRC32C(encoding, data) (BE)
 *
 * A chunk's reference is `segment index * 2^32 + offset`, segment index 0
 * being file `000001`. Segments are cut where Prometheus' `WriteChunks` cuts
 * them, so the same calls give the same files. Format: docs/format/block.md.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32c } from '@node-rs/crc32';
import { putBE32 } from '../encoding/big-endian.js';
import { BufferedFile } from '../files/buffered-file.js';
import { syncDir } from '../files/durable.js';

export const CHUNKS_MAGIC = 0x85bd40dd;
export const CHUNKS_FORMAT_V1 = 1;
/** Magic (4) + version (1) + padding (3). */
export const SEGMENT_HEADER_BYTES = 8;
/** Prometheus' DefaultChunkSegmentSize: 512 MiB. */
export const DEFAULT_SEGMENT_BYTES = 512 * 1024 * 1024;
/** Prometheus' size estimate of a chunk's length field (binary.MaxVarintLen32). */
const MAX_LENGTH_FIELD_BYTES = 5;
const TWO_32 = 0x1_0000_0000;

/** `000001` for sequence 1. */
export function segmentFileName(seq: number): string {
  return String(seq).padStart(6, '0');
}

/** The reference of the chunk at `offset` of segment `index` (0 = file 000001). */
export function chunkRef(index: number, offset: number): number {
  return index * TWO_32 + offset;
}

/** Splits a chunk reference into segment index (0 = file 000001) and offset. */
export function splitChunkRef(ref: number): { index: number; offset: number } {
  return { index: Math.floor(ref / TWO_32), offset: ref % TWO_32 };
}

/** What {@link ChunkWriter.writeChunks} needs of a chunk. */
export interface ChunkToWrite {
  encoding: number;
  data: Uint8Array;
}

export interface ChunkWriterOptions {
  /** Segment size limit in bytes (Prometheus' segmentSize); default 512 MiB. */
  segmentBytes?: number;
  /** Bytes buffered before a write to disk; default 4 MiB. */
  flushBytes?: number;
}

/** A segment file written. */
export interface ChunkSegmentInfo {
  /** File name inside the chunks directory, e.g. `000001`. */
  name: string;
  /** Size in bytes (final once the writer is closed). */
  size: number;
}

export class ChunkWriter {
  private file: BufferedFile | undefined;
  private readonly files: ChunkSegmentInfo[] = [];
  private readonly header = new Uint8Array(SEGMENT_HEADER_BYTES);
  private readonly crcBytes = new Uint8Array(4);
  private closed = false;

  private constructor(
    readonly dir: string,
    private readonly segmentBytes: number,
    private readonly flushBytes: number,
  ) {
    putBE32(this.header, 0, CHUNKS_MAGIC);
    this.header[4] = CHUNKS_FORMAT_V1;
  }

  /** Creates `dir` (and parents) if needed; the first segment is created with the first chunk. */
  static async create(dir: string, opts: ChunkWriterOptions = {}): Promise<ChunkWriter> {
    const segmentBytes = opts.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    if (!Number.isSafeInteger(segmentBytes) || segmentBytes <= SEGMENT_HEADER_BYTES || segmentBytes > TWO_32) {
      throw new RangeError(`segmentBytes must be an integer in ${SEGMENT_HEADER_BYTES + 1}..2^32, got ${segmentBytes}`);
    }
    await mkdir(dir, { recursive: true });
    return new ChunkWriter(dir, segmentBytes, opts.flushBytes ?? 4 << 20);
  }

  /** Segment files so far, in order. */
  get segments(): readonly ChunkSegmentInfo[] {
    return this.files;
  }

  /**
   * Writes the chunks of one series, in order, and returns their references
   * (into `refs` when given). Segments are cut as Prometheus' WriteChunks
   * cuts them for the same call: before a chunk whose estimated size (5 + 1
   * + data + 4 bytes) would take the segment past the limit, never leaving a
   * segment empty.
   */
  async writeChunks(chunks: readonly ChunkToWrite[], refs: number[] = []): Promise<number[]> {
    if (this.closed) throw new Error(`${this.dir}: chunk writer used after close`);
    refs.length = 0;
    if (chunks.length === 0) return refs;
    // Prometheus decides every cut of a call up front, from the segment's
    // size before the call.
    const startPos = this.file?.pos ?? 0;
    if (this.file === undefined) await this.cut();
    let batchBytes = 0;
    let firstBatch = true;
    for (let i = 0; i < chunks.length; i++) {
      const chunk = chunks[i]!;
      const { encoding, data } = chunk;
      if (!Number.isInteger(encoding) || encoding < 0 || encoding > 255) {
        throw new RangeError(`chunk encoding ${encoding} is not a byte`);
      }
      const estimate = MAX_LENGTH_FIELD_BYTES + 1 + data.length + 4;
      batchBytes += estimate;
      let cutNow = i !== 0 && batchBytes + SEGMENT_HEADER_BYTES > this.segmentBytes;
      if (firstBatch && startPos > SEGMENT_HEADER_BYTES) {
        cutNow = batchBytes + startPos > this.segmentBytes;
        if (cutNow) firstBatch = false;
      }
      if (cutNow) {
        await this.cut();
        batchBytes = estimate;
      }
      const file = this.file!;
      const offset = file.pos;
      if (offset >= TWO_32) {
        throw new RangeError(`${file.path}: chunk offset ${offset} does not fit 32 bits (chunk of ${data.length} bytes)`);
      }
      refs.push(chunkRef(this.files.length - 1, offset));
      const out = file.out;
      out.uvarint(data.length);
      out.u8(encoding);
      out.put(data);
      const crc = crc32c(data, crc32c(out.bytes.subarray(out.length - data.length - 1, out.length - data.length)));
      putBE32(this.crcBytes, 0, crc >>> 0);
      out.put(this.crcBytes);
      this.files[this.files.length - 1]!.size = file.pos;
      await file.maybeFlush();
    }
    return refs;
  }

  /** Finishes the current segment (flush, fsync, close) and starts the next. */
  private async cut(): Promise<void> {
    await this.finishTail();
    const seq = this.files.length + 1;
    if (seq >= 1 << 21) throw new RangeError(`${this.dir}: too many chunk segments`);
    const name = segmentFileName(seq);
    const file = await BufferedFile.create(join(this.dir, name), this.flushBytes);
    this.file = file;
    file.out.put(this.header);
    this.files.push({ name, size: file.pos });
  }

  private async finishTail(): Promise<void> {
    const file = this.file;
    if (file === undefined) return;
    this.file = undefined;
    const size = await file.close();
    this.files[this.files.length - 1]!.size = size;
  }

  /** Flushes, fsyncs and closes the last segment and fsyncs the directory. Returns the segments. */
  async close(): Promise<ChunkSegmentInfo[]> {
    if (this.closed) return this.files;
    this.closed = true;
    await this.finishTail();
    await syncDir(this.dir);
    return this.files;
  }

  /** Closes without finishing (after a failure); never throws. The files are left to the caller. */
  async abort(): Promise<void> {
    this.closed = true;
    const file = this.file;
    this.file = undefined;
    if (file !== undefined) await file.abort();
  }
}
