/**
 * Test-only reader of Prometheus' head chunk files (`chunks_head/000001`,
 * ...), as Prometheus 2.42 writes them when it memory-maps a full head
 * chunk. Format (tsdb/docs/format/head_chunks.md at v2.42.0):
 *
 *   file  = magic 0x0130BC91 (4 bytes, big endian) | version 1 (1 byte)
 *           | 3 zero bytes | chunk*
 *   chunk = series ref (8, BE) | mint (8, BE) | maxt (8, BE) | encoding (1)
 *           | len (uvarint) | data (len bytes) | CRC32C (4, BE) of all the
 *           chunk's bytes before it
 *
 * The encoding byte's top bit marks an out-of-order chunk
 * (chunkenc.OutOfOrderMask; 2.42 has only EncOOOXOR, 0x81).
 *
 * There is no index: the series ref is the head's ID of the series, whose
 * labels only the WAL's series records hold. Prometheus preallocates a file
 * (128 KiB on Linux) and writes chunks from the start, so a file may end in
 * zeros; an all-zero chunk header marks the end, as in Prometheus' own
 * reader, and everything after it must be zero too.
 *
 * @example
 * const { chunks } = readHeadChunkFile('chunks_head/000001');
 * for (const c of chunks) if (c.encoding === 2) decode(c.data);
 */
import { readFileSync } from 'node:fs';
import { crc32c } from '@node-rs/crc32';
import { BlockFormatError } from './prometheus-chunks.js';

/** First four bytes of a head chunk file (big endian). */
export const HEAD_CHUNKS_MAGIC = 0x0130bc91;
/** The head chunk file format version this reader decodes. */
export const HEAD_CHUNKS_FORMAT_V1 = 1;
/** Magic (4), version (1), padding (3). */
const FILE_HEADER_BYTES = 8;
/** Series ref, mint, maxt (8 each) and encoding (1): what precedes the length. */
const CHUNK_META_BYTES = 25;

/** One chunk of a head chunk file; `data` is a view into the file's bytes. */
export interface HeadChunk {
  /** Byte offset of the chunk (its series ref) in the file. */
  offset: number;
  /** The head's series ID (chunks.HeadSeriesRef). */
  seriesRef: bigint;
  /** Inclusive timestamps (ms) of the chunk's first and last sample. */
  minTime: bigint;
  maxTime: bigint;
  encoding: number;
  data: Uint8Array;
}

/**
 * Splits a head chunk file into its chunks, checking magic, version, padding,
 * every CRC32C and that whatever follows the last chunk is zeros. `end` is
 * the offset just past the last chunk. `file` only names the bytes in errors.
 */
export function readHeadChunks(bytes: Uint8Array, file: string): { chunks: HeadChunk[]; end: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fail = (at: number, what: string): never => {
    throw new BlockFormatError(file, at, what);
  };
  if (bytes.length < FILE_HEADER_BYTES) fail(0, 'too short for the file header');
  const magic = view.getUint32(0);
  if (magic !== HEAD_CHUNKS_MAGIC) fail(0, `bad head chunk magic 0x${magic.toString(16)}`);
  if (bytes[4] !== HEAD_CHUNKS_FORMAT_V1) fail(4, `unsupported head chunk version ${bytes[4]}`);
  if (bytes[5] !== 0 || bytes[6] !== 0 || bytes[7] !== 0) fail(5, 'non-zero header padding');

  const chunks: HeadChunk[] = [];
  let pos = FILE_HEADER_BYTES;
  let end = pos;
  while (pos < bytes.length) {
    const offset = pos;
    if (bytes.length - pos < CHUNK_META_BYTES || bytes.subarray(pos, pos + CHUNK_META_BYTES).every((b) => b === 0)) {
      // Preallocated space: the rest must be zeros.
      const stray = bytes.subarray(pos).findIndex((b) => b !== 0);
      if (stray >= 0) fail(pos + stray, 'non-zero byte after the last chunk');
      break;
    }
    const seriesRef = view.getBigUint64(pos);
    const minTime = view.getBigInt64(pos + 8);
    const maxTime = view.getBigInt64(pos + 16);
    const encoding = bytes[pos + 24]!;
    pos += CHUNK_META_BYTES;
    let len = 0;
    for (let shift = 0; ; shift += 7) {
      if (pos >= bytes.length || shift > 28) fail(pos, 'bad chunk length uvarint');
      const b = bytes[pos++]!;
      len += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) break;
    }
    if (pos + len + 4 > bytes.length) fail(offset, `chunk of ${len} bytes runs past the end of the file`);
    const data = bytes.subarray(pos, pos + len);
    pos += len;
    const stored = view.getUint32(pos);
    const computed = crc32c(bytes.subarray(offset, pos)) >>> 0;
    if (stored !== computed) {
      fail(pos, `CRC32C mismatch for the chunk at ${offset}: stored ${stored.toString(16)}, computed ${computed.toString(16)}`);
    }
    pos += 4;
    if (maxTime < minTime) fail(offset + 8, `chunk maxt ${maxTime} before its mint ${minTime}`);
    chunks.push({ offset, seriesRef, minTime, maxTime, encoding, data });
    end = pos;
  }
  return { chunks, end };
}

/** {@link readHeadChunks} of a file on disk. */
export function readHeadChunkFile(path: string): { chunks: HeadChunk[]; end: number } {
  return readHeadChunks(readFileSync(path), path);
}
