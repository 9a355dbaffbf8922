/**
 * Snappy's framing format (github.com/google/snappy, framing_format.txt),
 * as Go's snappy.NewBufferedWriter and NewReader write and read it: the
 * format of gRPC's "snappy" compression as Thanos registers it
 * (pkg/extgrpc/snappy; the grpc-js side is src/grpc/snappy.ts). A stream
 * identifier chunk (0xff, length 6, "sNaPpY"), then chunks of a type byte
 * and a 3-byte little-endian length: 0x00 a snappy block, 0x01
 * uncompressed bytes (each with the masked CRC-32C of its uncompressed
 * bytes first, and at most 65,536 of them), 0xfe padding and 0x80-0xfd
 * skipped; 0x02-0x7f are refused, as Go's reader refuses them.
 */
import { crc32c } from '@node-rs/crc32';
import { compressSync, uncompressSync } from 'snappy';
import { PREAMBLE_BYTES } from './snappy-block.js';
import { readUvarint, type VarintRead } from './varint.js';

const STREAM_ID = Buffer.from([0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59]);
const CHUNK_COMPRESSED = 0x00;
const CHUNK_UNCOMPRESSED = 0x01;
const CHUNK_PADDING = 0xfe;
const MAX_CHUNK_DATA = 65536;

/** A framed stream that cannot be read: answered INTERNAL, as grpc-go answers a message it cannot decompress. */
export class SnappyFrameError extends Error {
  override name = 'SnappyFrameError';
}

/** Snappy's masked CRC: the CRC-32C rotated right by 15 bits plus 0xa282ead8. */
function maskedCrc(bytes: Uint8Array): number {
  const c = crc32c(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

const preamble: VarintRead = { value: 0, next: 0 };

/** The uncompressed length the snappy block in [at, end) announces (its preamble), or -1 when malformed. */
function blockLength(b: Uint8Array, at: number, end: number): number {
  const { value, next } = readUvarint(b, at, Math.min(end, at + PREAMBLE_BYTES), preamble);
  return next >= 0 ? value : -1;
}

/**
 * Decodes a whole snappy-framed stream into a buffer from `allocate`.
 * `maxBytes` (-1: none) bounds the result; past it a RangeError is thrown
 * before anything more is decompressed.
 * @throws SnappyFrameError naming the fault and its offset.
 */
export function decodeSnappyFramed(input: Uint8Array, maxBytes = -1, allocate: (n: number) => Buffer = Buffer.allocUnsafe): Buffer {
  const end = input.length;
  if (end < STREAM_ID.length || !STREAM_ID.equals(input.subarray(0, STREAM_ID.length))) {
    throw new SnappyFrameError('snappy frame: the stream does not start with the stream identifier chunk (0xff "sNaPpY")');
  }
  // First pass: check the chunks and add up the output's size.
  let total = 0;
  for (let at = STREAM_ID.length; at < end;) {
    if (at + 4 > end) throw new SnappyFrameError(`snappy frame: chunk header cut short at byte ${at}`);
    const type = input[at]!;
    const len = input[at + 1]! | (input[at + 2]! << 8) | (input[at + 3]! << 16);
    const body = at + 4;
    if (body + len > end) throw new SnappyFrameError(`snappy frame: chunk at byte ${at} runs past the end (${len} bytes)`);
    if (type === CHUNK_COMPRESSED || type === CHUNK_UNCOMPRESSED) {
      if (len < 4) throw new SnappyFrameError(`snappy frame: chunk at byte ${at} too short for its checksum`);
      const n = type === CHUNK_UNCOMPRESSED ? len - 4 : blockLength(input, body + 4, body + len);
      if (n < 0) throw new SnappyFrameError(`snappy frame: chunk at byte ${at}: malformed block length`);
      if (n > MAX_CHUNK_DATA) throw new SnappyFrameError(`snappy frame: chunk at byte ${at} holds ${n} bytes, more than 65536`);
      total += n;
      if (maxBytes >= 0 && total > maxBytes) throw new RangeError(`snappy frame decompresses to more than ${maxBytes} bytes`);
    } else if (type === 0xff) {
      if (len !== 6 || !STREAM_ID.equals(input.subarray(at, at + 10))) throw new SnappyFrameError(`snappy frame: bad stream identifier chunk at byte ${at}`);
    } else if (type < 0x80) {
      throw new SnappyFrameError(`snappy frame: chunk at byte ${at} has reserved unskippable type 0x${type.toString(16).padStart(2, '0')}`);
    }
    // 0x80-0xfd and 0xfe (padding): skipped.
    at = body + len;
  }
  const outBytes = allocate(total);
  let o = 0;
  for (let at = STREAM_ID.length; at < end;) {
    const type = input[at]!;
    const len = input[at + 1]! | (input[at + 2]! << 8) | (input[at + 3]! << 16);
    const body = at + 4;
    if (type === CHUNK_COMPRESSED || type === CHUNK_UNCOMPRESSED) {
      const want = input[body]! | (input[body + 1]! << 8) | (input[body + 2]! << 16) | (input[body + 3]! << 24);
      let data: Uint8Array;
      if (type === CHUNK_UNCOMPRESSED) {
        data = input.subarray(body + 4, body + len);
      } else {
        try {
          // copyOutputData: on the V8 heap, where the collector counts it (as
          // an external buffer it is not counted, and they piled up by the GB).
          data = uncompressSync(Buffer.from(input.buffer, input.byteOffset + body + 4, len - 4), { copyOutputData: true }) as Buffer;
        } catch (err) {
          throw new SnappyFrameError(`snappy frame: chunk at byte ${at}: ${(err as Error).message}`);
        }
      }
      if (o + data.length > total) throw new SnappyFrameError(`snappy frame: chunk at byte ${at} decompresses past its announced length`);
      if (maskedCrc(data) !== want >>> 0) throw new SnappyFrameError(`snappy frame: chunk at byte ${at}: checksum mismatch`);
      outBytes.set(data, o);
      o += data.length;
    }
    at = body + len;
  }
  if (o !== total) throw new SnappyFrameError('snappy frame: a chunk decompressed to less than it announced');
  return outBytes;
}

/**
 * `data` as a snappy-framed stream, as Go's snappy.NewBufferedWriter
 * writes one (Thanos' gRPC compressor): the stream identifier, then a chunk
 * per 64 KiB, compressed unless that saves less than an eighth.
 */
export function encodeSnappyFramed(data: Uint8Array): Buffer {
  const parts: Uint8Array[] = [STREAM_ID];
  for (let at = 0; at < data.length; at += MAX_CHUNK_DATA) {
    const piece = data.subarray(at, Math.min(data.length, at + MAX_CHUNK_DATA));
    const compressed = compressSync(Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
    const useCompressed = compressed.length < piece.length - (piece.length >>> 3);
    const body = useCompressed ? compressed : piece;
    const header = Buffer.alloc(8);
    header[0] = useCompressed ? CHUNK_COMPRESSED : CHUNK_UNCOMPRESSED;
    header.writeUIntLE(body.length + 4, 1, 3);
    header.writeUInt32LE(maskedCrc(piece), 4);
    parts.push(header, body);
  }
  return Buffer.concat(parts);
}

/**
 * The bytes a snappy-framed stream decodes to, from its chunk headers
 * alone (no decompression); -1 when they cannot be read.
 */
export function snappyFramedLength(input: Uint8Array): number {
  const end = input.length;
  if (end < STREAM_ID.length || !STREAM_ID.equals(input.subarray(0, STREAM_ID.length))) return -1;
  let total = 0;
  for (let at = STREAM_ID.length; at < end;) {
    if (at + 4 > end) return -1;
    const type = input[at]!;
    const len = input[at + 1]! | (input[at + 2]! << 8) | (input[at + 3]! << 16);
    const body = at + 4;
    if (body + len > end) return -1;
    if (type === CHUNK_COMPRESSED || type === CHUNK_UNCOMPRESSED) {
      if (len < 4) return -1;
      const n = type === CHUNK_UNCOMPRESSED ? len - 4 : blockLength(input, body + 4, body + len);
      if (n < 0) return -1;
      total += n;
    }
    at = body + len;
  }
  return total;
}
