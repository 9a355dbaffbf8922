/**
 * Snappy block format bodies (Prometheus remote write and read: the block
 * format, not the framed one). The library (snappy, napi-rs) decompresses;
 * this checks the length a block announces before anything is allocated
 * for it, so a small body cannot ask for gigabytes.
 */
import { readUvarint, type VarintRead } from './varint.js';

/** Longest preamble: the decoded length, an uvarint of at most 32 bits. */
export const PREAMBLE_BYTES = 5;

const preamble: VarintRead = { value: 0, next: 0 };

/** A body that is not a snappy block, or announces more than allowed. Kinds as in src/errors/status.ts. */
export class SnappyBodyError extends Error {
  override readonly name = 'SnappyBodyError';
  constructor(readonly kind: 'malformed-request' | 'resource-exhausted', message: string) {
    super(message);
  }
}

/**
 * The decoded length a snappy block announces (its leading uvarint, at most
 * 2^32 - 1), or -1 when the bytes do not start with one.
 */
export function snappyDecodedLength(block: Uint8Array): number {
  const { value, next } = readUvarint(block, 0, Math.min(block.length, PREAMBLE_BYTES), preamble);
  return next >= 0 && value <= 0xffffffff ? value : -1;
}

/**
 * Checks the announced length of `block` against `maxDecodedBytes`.
 * @throws SnappyBodyError (malformed-request) without a length, (resource-exhausted) over the limit
 */
export function checkSnappyBlock(block: Uint8Array, maxDecodedBytes: number): number {
  const n = snappyDecodedLength(block);
  if (n < 0) throw new SnappyBodyError('malformed-request', 'the body is not snappy block-compressed data: it does not start with a decoded length');
  if (n > maxDecodedBytes) {
    throw new SnappyBodyError('resource-exhausted', `the body decompresses to ${n} bytes, more than the ${maxDecodedBytes} allowed`);
  }
  return n;
}

/** The message of a decompression failure, for a 400 answer. */
export function snappyFailure(err: unknown): SnappyBodyError {
  return new SnappyBodyError('malformed-request', `the body is not snappy block-compressed data: ${(err as Error).message}`);
}
