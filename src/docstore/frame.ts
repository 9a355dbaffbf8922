/**
 * Record framing: crc32c (u32 LE) | payload length (u32 LE) | payload. The
 * checksum covers the length and the payload, so eight zero bytes are never
 * a valid frame: they mark the end of the data in a preallocated file.
 */
import { crc32c } from '@node-rs/crc32';
import { isZero } from '../encoding/bytes.js';
import { FRAME_HEADER_SIZE, MAX_PAYLOAD } from './format.js';

/**
 * Fills in the frame header of `frame`, whose payload starts at
 * FRAME_HEADER_SIZE and runs to its end. Returns `frame`.
 */
export function sealFrame(frame: Buffer): Buffer {
  frame.writeUInt32LE(frame.length - FRAME_HEADER_SIZE, 4);
  frame.writeUInt32LE(crc32c(frame.subarray(4)), 0);
  return frame;
}

/** What lies at a position of a segment. */
export type FrameStatus =
  /** A frame whose checksum matches. */
  | 'ok'
  /** The end of the data: `end` reached. */
  | 'end'
  /** Eight zero bytes: the start of a zero-filled (preallocated) tail. */
  | 'zero'
  /** Fewer than FRAME_HEADER_SIZE bytes left, not all zero. */
  | 'short'
  /** A length of 0 or above MAX_PAYLOAD. */
  | 'bad-length'
  /** A length that runs past `end`. */
  | 'past-end'
  /** The checksum does not match. */
  | 'bad-crc';

/** Result of readFrame; reused across calls. */
export interface FrameRead {
  status: FrameStatus;
  /** Payload bounds ('ok' and 'bad-crc'). */
  payloadStart: number;
  payloadEnd: number;
}

/** Reads the frame at `pos`, not past `end`, into `out`. */
export function readFrame(buf: Buffer, pos: number, end: number, out: FrameRead): FrameRead {
  out.payloadStart = out.payloadEnd = pos + FRAME_HEADER_SIZE;
  if (pos === end) return status(out, 'end');
  if (end - pos < FRAME_HEADER_SIZE) return status(out, isZero(buf, pos, end) ? 'zero' : 'short');
  const crc = buf.readUInt32LE(pos);
  const len = buf.readUInt32LE(pos + 4);
  if (crc === 0 && len === 0) return status(out, 'zero');
  if (len === 0 || len > MAX_PAYLOAD) return status(out, 'bad-length');
  if (len > end - out.payloadStart) return status(out, 'past-end');
  out.payloadEnd = out.payloadStart + len;
  return status(out, crc32c(buf.subarray(pos + 4, out.payloadEnd)) === crc ? 'ok' : 'bad-crc');
}

/** A fresh FrameRead to pass to readFrame. */
export function frameRead(): FrameRead {
  return { status: 'end', payloadStart: 0, payloadEnd: 0 };
}

function status(out: FrameRead, s: FrameStatus): FrameRead {
  out.status = s;
  return out;
}

/** Whether any position in [from, to) starts a frame with a good checksum. */
export function hasFrameIn(buf: Buffer, from: number, to: number, end: number): boolean {
  const probe = frameRead();
  // Most positions fail on the length check alone (JSON text or zeros read
  // as a u32 length is 0 or far too big), so this is cheap.
  for (let at = from; at < to; at++) {
    if (readFrame(buf, at, end, probe).status === 'ok') return true;
  }
  return false;
}
