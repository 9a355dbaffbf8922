/**
 * STREAMED_XOR_CHUNKS answers of remote read (WIRE.md): a stream of frames,
 * each the uvarint length of a prometheus.ChunkedReadResponse, the CRC32C
 * (Castagnoli) of its bytes, big-endian, then the bytes. Chunks go out as
 * stored, never decoded or re-encoded, native histogram chunks included
 * (types 2 and 3, as Prometheus streams its own).
 *
 * As Prometheus does, a frame holds one series (its client reads exactly one
 * per frame), and a series whose chunks pass about 1 MiB continues in the
 * next frame.
 */
import { crc32c } from '@node-rs/crc32';
import { ENCODING_XOR, remoteReadChunkEncoding } from '../../chunkenc/encoding.js';
import type { StoredChunk } from '../../query/types.js';
import { WIRE_LEN, WIRE_VARINT, lenFieldSize, writeTag } from '../../encoding/proto-writer.js';
import { putUvarint, putUvarint64, uvarint64Size, uvarintSize } from '../../encoding/varint.js';

/** The media type of the stream. */
export const CHUNKED_CONTENT_TYPE = 'application/x-streamed-protobuf; proto=prometheus.ChunkedReadResponse';

/** Prometheus' maxBytesInFrame: a frame closes once its labels and chunks pass this. */
export const MAX_BYTES_IN_FRAME = 1 << 20;

// prometheus.ChunkedReadResponse {chunked_series = 1, query_index = 2};
// ChunkedSeries {labels = 1, chunks = 2}; Chunk {min_time_ms = 1,
// max_time_ms = 2, type = 3, data = 4}. Labels come encoded (field 1 of
// Label messages, as encodeLabels in src/store/series-frames.ts writes them).
const RESPONSE_SERIES = 1;
const RESPONSE_QUERY_INDEX = 2;
const SERIES_CHUNKS = 2;
const CHUNK_MIN_TIME = 1;
const CHUNK_MAX_TIME = 2;
const CHUNK_TYPE = 3;
const CHUNK_DATA = 4;

function chunkSize(c: StoredChunk): number {
  return 1 + uvarint64Size(c.minT) + 1 + uvarint64Size(c.maxT) + 2 + lenFieldSize(c.data.length);
}

/**
 * Encodes one series as frames, in order, through `out`. `labels` is the
 * encoded labels field; each frame gets at least one chunk.
 */
export function encodeChunkedFrames(labels: Uint8Array, chunks: readonly StoredChunk[], queryIndex: number, out: (frame: Buffer) => void): void {
  const budget = MAX_BYTES_IN_FRAME - labels.length;
  let first = 0;
  while (first < chunks.length) {
    let end = first;
    let chunkBytes = 0;
    // Like Prometheus: add chunks until the frame's budget is used up (at least one).
    while (end < chunks.length) {
      chunkBytes += lenFieldSize(chunkSize(chunks[end]!));
      end++;
      if (chunkBytes >= budget) break;
    }
    out(encodeFrame(labels, chunks, first, end, chunkBytes, queryIndex));
    first = end;
  }
}

function encodeFrame(labels: Uint8Array, chunks: readonly StoredChunk[], from: number, to: number, chunkBytes: number, queryIndex: number): Buffer {
  const seriesSize = labels.length + chunkBytes;
  const messageSize = lenFieldSize(seriesSize) + (queryIndex === 0 ? 0 : 1 + uvarintSize(queryIndex));
  const headSize = uvarintSize(messageSize) + 4;
  const b = Buffer.allocUnsafe(headSize + messageSize);
  let at = putUvarint(b, 0, messageSize) + 4; // the CRC goes before the message, once it is written
  const messageAt = at;
  at = writeTag(b, at, RESPONSE_SERIES, WIRE_LEN);
  at = putUvarint(b, at, seriesSize);
  b.set(labels, at);
  at += labels.length;
  for (let i = from; i < to; i++) {
    const c = chunks[i]!;
    at = writeTag(b, at, SERIES_CHUNKS, WIRE_LEN);
    at = putUvarint(b, at, chunkSize(c));
    at = writeTag(b, at, CHUNK_MIN_TIME, WIRE_VARINT);
    at = putUvarint64(b, at, c.minT);
    at = writeTag(b, at, CHUNK_MAX_TIME, WIRE_VARINT);
    at = putUvarint64(b, at, c.maxT);
    at = writeTag(b, at, CHUNK_TYPE, WIRE_VARINT);
    // A stored chunk without an encoding is XOR; the type is one byte (a varint below 128).
    b[at++] = remoteReadChunkEncoding(c.encoding ?? ENCODING_XOR);
    at = writeTag(b, at, CHUNK_DATA, WIRE_LEN);
    at = putUvarint(b, at, c.data.length);
    b.set(c.data, at);
    at += c.data.length;
  }
  if (queryIndex !== 0) {
    at = writeTag(b, at, RESPONSE_QUERY_INDEX, WIRE_VARINT);
    at = putUvarint(b, at, queryIndex);
  }
  if (at !== b.length) throw new Error(`ChunkedReadResponse frame: wrote ${at} bytes of ${b.length}`);
  b.writeUInt32BE(crc32c(b.subarray(messageAt)), messageAt - 4);
  return b;
}
