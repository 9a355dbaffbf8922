/**
 * Reads a request body from uWebSockets.js with a size limit.
 *
 * uWebSockets.js hands the body over in chunks whose ArrayBuffer is reused
 * (neutered) after each callback, so every chunk is copied. With a
 * Content-Length the body is copied into one buffer of that size; without
 * one (chunked), chunks are collected and joined at the end. A body of
 * 16 KiB or more with a Content-Length has a buffer of its own (a spare
 * one when there is one), which the pool may take over and give back. Past the limit
 * reading stops at once: the caller answers 413 and closes the connection
 * instead of reading the rest.
 */
import { bodyBuffers } from '../pool/spare-buffers.js';
import type { HttpResponse } from './uws.js';

/** Bodies of at least this many bytes are read into a buffer of their own. */
const OWN_BUFFER_FROM = 16 * 1024;

/** The outcome of reading a body. */
export interface BodyCallbacks {
  /** The whole body, a fresh buffer the caller owns. */
  done(body: Buffer): void;
  /** The body passed `limit` bytes; nothing more will be delivered. */
  tooLarge(): void;
}

/**
 * Parses a Content-Length header value: the length, -1 when absent, or NaN
 * when malformed.
 */
export function parseContentLength(value: string): number {
  if (value === '') return -1;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return NaN;
  }
  return Number(value);
}

/**
 * Starts reading the body of `res`. `declaredLength` is the Content-Length
 * (-1 when absent); a declared length over `limit` must be rejected by the
 * caller before calling this. The callbacks run from uWebSockets.js' data
 * events; the caller must have attached onAborted.
 */
export function readBody(res: HttpResponse, declaredLength: number, limit: number, on: BodyCallbacks): void {
  if (declaredLength >= 0) {
    // Large bodies (remote write) go into a buffer of their own, reused
    // once the pool has parsed it (src/pool/spare-buffers.ts); small ones
    // come from Node's shared pool.
    const body = declaredLength < OWN_BUFFER_FROM
      ? Buffer.allocUnsafe(declaredLength)
      : Buffer.from(bodyBuffers.takeOrAllocate(declaredLength), 0, declaredLength);
    let filled = 0;
    res.onData((chunk, isLast) => {
      const bytes = new Uint8Array(chunk);
      if (filled + bytes.length > declaredLength) return; // uWebSockets.js frames by Content-Length; never more
      body.set(bytes, filled);
      filled += bytes.length;
      if (isLast) on.done(filled === declaredLength ? body : body.subarray(0, filled));
    });
    return;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  let stopped = false;
  res.onData((chunk, isLast) => {
    if (stopped) return;
    total += chunk.byteLength;
    if (total > limit) {
      stopped = true;
      on.tooLarge();
      return;
    }
    chunks.push(Buffer.from(new Uint8Array(chunk))); // copies: the ArrayBuffer is reused
    if (isLast) on.done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
  });
}
