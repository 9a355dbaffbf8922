/**
 * A RemoteWrite message's bytes as grpc-js hands them over, made movable to
 * a pool worker without a copy. This relies on how grpc-js lays out a
 * received message (an internal): it is checked on every message, falls
 * back to the plain view when it does not hold, and
 * test/grpc/message-bytes.test.ts fails loudly when the grpc-js in
 * node_modules no longer lays messages out this way.
 *
 * grpc-js (1.14: stream-decoder.js, server-interceptors.js) gathers each
 * message's DATA frames into one Buffer together with its 5-byte gRPC
 * prefix (compressed flag, then the length as 4 bytes big-endian) and
 * hands the deserializer the view past the prefix. A view that does not
 * cover its whole ArrayBuffer cannot be moved to a worker, so
 * parseWriteInPool copied it: one more copy of every request on the event
 * loop, and external memory that made V8 run a major GC several times as
 * often as for the same samples over HTTP (bench/RESULTS.md, 2026-11-27).
 *
 * When the 5 bytes before the view are that prefix and the buffer holds
 * nothing else, they are overwritten with a protobuf field every reader
 * skips, and the whole buffer is handed on: the same message, as protobuf
 * reads it, covering its buffer whole. The field is number 19000, which
 * protobuf reserves for its implementation (no .proto may declare numbers
 * 19000-19999, so no WriteRequest ever will), length-delimited, one zero
 * byte long: tag 0xc2 0xa3 0x09 (19000 << 3 | 2 as a varint), length 0x01,
 * the byte 0x00. Strata's parser skips unknown fields (parse-write.ts).
 *
 * grpc-js gathers the message with Buffer.concat, which puts one shorter
 * than half of Buffer.poolSize in Node's shared pool (8 KiB in Node 20 and
 * 22, 64 KiB in Node 24): such a message is handed on as it is and copied.
 */

import { snappyFramedLength } from '../encoding/snappy-framed.js';
import { isStillFramed } from './snappy.js';

/** gRPC's message prefix: compressed flag (1 byte) and length (4 bytes, big-endian). */
const GRPC_PREFIX_BYTES = 5;

/** The skipped field that takes the prefix's place (see the module comment). */
const SKIPPED_FIELD = [0xc2, 0xa3, 0x09, 0x01, 0x00] as const;

/**
 * A received message: `bytes` to hand to the parser (the message, perhaps
 * behind a skipped field), `size` the message's own length (what limits
 * and metrics count).
 */
export interface MessageBytes {
  bytes: Uint8Array;
  size: number;
  /** `bytes` is a snappy-framed stream of the message (grpc-encoding: snappy), to decode in the pool. */
  framed?: true;
}

/**
 * `message` (what grpc-js gave the deserializer) in a form that covers its
 * ArrayBuffer whole, when grpc-js laid it out as described above; else
 * `message` itself. Overwrites the 5 bytes before `message` in the first
 * case: call it once per message, before anything else reads them. The
 * caller owns the result (grpc-js no longer reads the buffer once the
 * message is deserialized).
 */
export function movableMessage(message: Uint8Array): MessageBytes {
  // Compressed with snappy and kept framed (snappy.ts): decoded in the pool.
  if (isStillFramed(message)) return framedMessage(message);
  const size = message.byteLength;
  const buffer = message.buffer;
  if (message.byteOffset !== GRPC_PREFIX_BYTES || !(buffer instanceof ArrayBuffer) || buffer.byteLength !== size + GRPC_PREFIX_BYTES) return { bytes: message, size };
  const whole = new Uint8Array(buffer);
  // Only an uncompressed message's own prefix: flag 0, then exactly this length.
  if (whole[0] !== 0 || whole[1]! * 0x1000000 + ((whole[2]! << 16) | (whole[3]! << 8) | whole[4]!) !== size) return { bytes: message, size };
  whole.set(SKIPPED_FIELD, 0);
  return { bytes: whole, size };
}

/**
 * A snappy-framed message (grpc-encoding: snappy) handed on to be decoded
 * in the pool: `size` is what it decodes to when its frames say so, else
 * its framed length.
 */
export function framedMessage(framed: Uint8Array): MessageBytes {
  const decoded = snappyFramedLength(framed);
  return { bytes: framed, size: decoded < 0 ? framed.byteLength : decoded, framed: true };
}
