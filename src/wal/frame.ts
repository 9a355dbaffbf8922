/**
 * Encoding of file headers and record frame headers (docs/format/wal.md).
 * Payloads are never copied: a record is its 13-byte frame header followed
 * by the caller's payload parts, and the CRC is chained over the parts.
 */
import { crc32c } from '@node-rs/crc32';
import {
  FILE_HEADER_BYTES, FORMAT_VERSION, FRAME_CRC, FRAME_HEADER_BYTES, FRAME_HEADER_CRC, FRAME_LENGTH, FRAME_TYPE, MAGIC,
} from './format.js';
import type { WalPayload } from './record-input.js';

/**
 * Fills `header` (FRAME_HEADER_BYTES long) with the frame header of a record
 * of `type` whose payload is `payload` (its parts in order), `length` bytes
 * in all. The record CRC continues the header CRC over each part, so it
 * equals the CRC32C of type, length and payload without concatenating them.
 */
export function encodeFrameHeader(header: Buffer, type: number, payload: WalPayload, length: number): void {
  header[FRAME_TYPE] = type;
  header.writeUInt32BE(length, FRAME_LENGTH);
  const headerCrc = crc32c(header.subarray(0, FRAME_HEADER_CRC));
  header.writeUInt32BE(headerCrc, FRAME_HEADER_CRC);
  let crc = headerCrc;
  if (payload instanceof Uint8Array) crc = crc32c(payload, crc);
  else for (const part of payload) crc = crc32c(part, crc);
  header.writeUInt32BE(crc, FRAME_CRC);
}

/** A new frame header buffer, reusable across records. */
export function allocFrameHeader(): Buffer {
  return Buffer.alloc(FRAME_HEADER_BYTES);
}

/** The header CRC a frame starting at `offset` of `buf` should carry. */
export function frameHeaderCrc(buf: Buffer, offset: number): number {
  return crc32c(buf.subarray(offset, offset + FRAME_HEADER_CRC));
}

/** The record CRC of the frame at `offset` whose payload is `length` bytes, given its (checked) header CRC. */
export function frameRecordCrc(buf: Buffer, offset: number, length: number, headerCrc: number): number {
  const start = offset + FRAME_HEADER_BYTES;
  return crc32c(buf.subarray(start, start + length), headerCrc);
}

/** The 16-byte header of a segment (`kind` KIND_SEGMENT) or checkpoint file numbered `sequence`. */
export function encodeFileHeader(kind: number, sequence: number): Buffer {
  const h = Buffer.alloc(FILE_HEADER_BYTES);
  h.writeUInt32BE(MAGIC, 0);
  h[4] = FORMAT_VERSION;
  h[5] = kind;
  h.writeUInt16BE(0, 6);
  h.writeUInt32BE(sequence, 8);
  h.writeUInt32BE(crc32c(h.subarray(0, 12)), 12);
  return h;
}

/**
 * Checks a file header read from `buf` (at least FILE_HEADER_BYTES long).
 * Returns undefined when it is the header of a file of `kind` numbered
 * `sequence`, else what is wrong with it.
 */
export function fileHeaderProblem(buf: Buffer, kind: number, sequence: number): string | undefined {
  // Magic and version first: their place is fixed in every version, the rest may move.
  const magic = buf.readUInt32BE(0);
  if (magic !== MAGIC) return `bad magic 0x${magic.toString(16).padStart(8, '0')}, want 0x${MAGIC.toString(16)}`;
  if (buf[4] !== FORMAT_VERSION) return `unsupported format version ${buf[4]}, this build reads ${FORMAT_VERSION}`;
  if (buf.readUInt32BE(12) !== crc32c(buf.subarray(0, 12))) return 'file header checksum mismatch';
  if (buf[5] !== kind) return `file kind ${buf[5]}, want ${kind}`;
  if (buf.readUInt16BE(6) !== 0) return 'reserved header bytes are not zero';
  const seq = buf.readUInt32BE(8);
  if (seq !== sequence) return `header says file number ${seq}, its name says ${sequence}`;
  return undefined;
}
