/**
 * Reads a request body from uWebSockets.js with a size limit.
 *
 * uWebSockets.js hands the body over in chunks whose ArrayBuffer is reused
 * (neutered) after each callback, so every chunk is copied. With a
 * Content-Length the body is copied into one buffer of that size; without
 * one (chunked), chunks are collected and joined at the end. A body of
 * 16 KiB or more with a Content-Length has a buffer of its own (a spare
 * one when there is one), which the pool may take over and give back; a
 * request the client abandons gives it back at once. Past the limit the
 * body is no longer kept: the caller answers 413, and later pieces are
 * only counted (`discarded`, for drain.ts).
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
  /** After tooLarge: a later piece of the body, `bytes` long, the last one when `isLast`. */
  discarded?(bytes: number, isLast: boolean): void;
}

/** What the caller can still do with a body being read. */
export interface BodyReading {
  /** The client went away: the buffer taken for the body goes back to the spares. */
  abandon(): void;
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
 * events; the caller must have attached onAborted and call
 * {@link BodyReading.abandon} from it.
 */
export function readBody(res: HttpResponse, declaredLength: number, limit: number, on: BodyCallbacks): BodyReading {
  if (declaredLength >= 0) {
    // Large bodies (remote write) go into a buffer of their own, reused
    // once the pool has parsed it (src/pool/spare-buffers.ts); small ones
    // come from Node's shared pool.
    const own = declaredLength < OWN_BUFFER_FROM ? undefined : bodyBuffers.takeOrAllocate(declaredLength);
    const body = own === undefined ? Buffer.allocUnsafe(declaredLength) : Buffer.from(own, 0, declaredLength);
    let filled = 0;
    let delivered = false;
    res.onData((chunk, isLast) => {
      const bytes = new Uint8Array(chunk);
      if (filled + bytes.length > declaredLength) return; // uWebSockets.js frames by Content-Length; never more
      body.set(bytes, filled);
      filled += bytes.length;
      if (!isLast) return;
      delivered = true;
      on.done(filled === declaredLength ? body : body.subarray(0, filled));
    });
    return {
      abandon() {
        if (own !== undefined && !delivered) bodyBuffers.give(own);
      },
    };
  }
  const chunks: Buffer[] = [];
  let total = 0;
  let stopped = false;
  res.onData((chunk, isLast) => {
    if (stopped) {
      on.discarded?.(chunk.byteLength, isLast);
      return;
    }
    total += chunk.byteLength;
    if (total > limit) {
      stopped = true;
      on.tooLarge();
      return;
    }
    chunks.push(Buffer.from(new Uint8Array(chunk))); // copies: the ArrayBuffer is reused
    if (isLast) on.done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
  });
  return { abandon: () => undefined };
}
