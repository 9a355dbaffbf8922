/**
 * Reads the records of one WAL file held in memory. Pure: it decides what
 * is wrong, not what to do about it (replay.ts applies the torn-tail rules).
 */
import {
  FILE_HEADER_BYTES, FRAME_CRC, FRAME_HEADER_BYTES, FRAME_HEADER_CRC, FRAME_LENGTH, FRAME_TYPE, MAX_PAYLOAD_BYTES,
} from './format.js';
import { isZero } from '../encoding/bytes.js';
import { frameHeaderCrc, frameRecordCrc } from './frame.js';

/** Where and why reading stopped before the end of the file. */
export interface ScanFailure {
  /** Offset of the frame that failed; every record before it was good. */
  offset: number;
  reason: string;
  /**
   * True when a torn write explains the damage: the frame header is cut
   * short, the payload runs past the end of the file, or only zero bytes
   * (or nothing) follow the frame that failed its check.
   */
  tornLike: boolean;
}

/**
 * Called for each good record in file order. `payload` is a view of the
 * file buffer, valid only during the call.
 */
export type RecordSink = (type: number, payload: Uint8Array) => void;

/**
 * Calls `sink` for every record of `buf[from, length)` in order (from the
 * first record, after the file header, by default) and returns undefined if
 * all of it is records, else the first failure. The file header is checked
 * by the caller.
 */
export function scanRecords(buf: Buffer, length: number, sink: RecordSink, from = FILE_HEADER_BYTES): ScanFailure | undefined {
  let off = from;
  while (off < length) {
    const left = length - off;
    if (left < FRAME_HEADER_BYTES) {
      return { offset: off, reason: `record header cut short (${left} of ${FRAME_HEADER_BYTES} bytes)`, tornLike: true };
    }
    const type = buf[off + FRAME_TYPE] ?? 0;
    if (type === 0) {
      return isZero(buf, off, length)
        ? { offset: off, reason: 'zero bytes where a record should start', tornLike: true }
        : { offset: off, reason: 'record type 0', tornLike: false };
    }
    const headerCrc = frameHeaderCrc(buf, off);
    if (headerCrc !== buf.readUInt32BE(off + FRAME_HEADER_CRC)) {
      return { offset: off, reason: 'record header checksum mismatch', tornLike: isZero(buf, off + FRAME_HEADER_BYTES, length) };
    }
    const payloadBytes = buf.readUInt32BE(off + FRAME_LENGTH);
    if (payloadBytes > MAX_PAYLOAD_BYTES) {
      return { offset: off, reason: `record length ${payloadBytes} exceeds the limit of ${MAX_PAYLOAD_BYTES}`, tornLike: false };
    }
    const end = off + FRAME_HEADER_BYTES + payloadBytes;
    if (end > length) {
      return { offset: off, reason: `record of ${payloadBytes} payload bytes runs ${end - length} bytes past the end of the file`, tornLike: true };
    }
    if (frameRecordCrc(buf, off, payloadBytes, headerCrc) !== buf.readUInt32BE(off + FRAME_CRC)) {
      return { offset: off, reason: 'record checksum mismatch', tornLike: isZero(buf, end, length) };
    }
    sink(type, buf.subarray(off + FRAME_HEADER_BYTES, end));
    off = end;
  }
  return undefined;
}

/**
 * The offset of the first whole record after `from` (its header and its
 * payload both pass their checksums), or undefined when none follows: where
 * reading can go on after damage. Every byte is a candidate start; a false
 * match needs two 32-bit checksums to agree by chance.
 */
export function nextRecordAfter(buf: Buffer, from: number, length: number): number | undefined {
  for (let off = from + 1; off + FRAME_HEADER_BYTES <= length; off++) {
    const type = buf[off + FRAME_TYPE] ?? 0;
    if (type === 0) continue;
    const headerCrc = frameHeaderCrc(buf, off);
    if (headerCrc !== buf.readUInt32BE(off + FRAME_HEADER_CRC)) continue;
    const payloadBytes = buf.readUInt32BE(off + FRAME_LENGTH);
    if (payloadBytes > MAX_PAYLOAD_BYTES || off + FRAME_HEADER_BYTES + payloadBytes > length) continue;
    if (frameRecordCrc(buf, off, payloadBytes, headerCrc) === buf.readUInt32BE(off + FRAME_CRC)) return off;
  }
  return undefined;
}
