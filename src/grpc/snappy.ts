/**
 * gRPC message compression "snappy", as Thanos registers it
 * (pkg/extgrpc/snappy: Go's snappy framing format, NewBufferedWriter and
 * NewReader). Thanos Receive's router compresses every RemoteWrite with it
 * by default (--receive.grpc-compression=snappy), and Thanos Query does
 * with --grpc-compression=snappy; grpc-js knows only identity, deflate
 * and gzip and would answer UNIMPLEMENTED.
 *
 * grpc-js (1.14) has no way to add a decompressor, so this wraps its
 * server call's decompressMessage (an internal of server-interceptors.js):
 * "snappy" is decoded here, every other encoding goes to grpc-js as
 * before. installGrpcSnappy() says what is missing when that internal is
 * gone (test/grpc/snappy.test.ts then fails loudly).
 *
 * The framing format itself is src/encoding/snappy-framed.ts.
 */
import { createRequire } from 'node:module';
import { status } from '@grpc/grpc-js';
import { decodeSnappyFramed } from '../encoding/snappy-framed.js';
import { bodyBytes } from '../pool/spare-buffers.js';

/** grpc-js' name for it, and Thanos'. */
export const SNAPPY_ENCODING = 'snappy';

interface GrpcStatusObject {
  code: number;
  details: string;
}

/** What the wrapped decompressMessage reads of grpc-js' call (internals). */
interface CallInternals {
  maxReceiveMessageSize: number;
  handler?: { path?: string } | null;
}

type Decompress = (this: CallInternals, message: Buffer, encoding: string) => Buffer | Promise<Buffer>;

let installed = false;
/** Methods whose snappy messages are handed on still framed (keepSnappyFramed). */
const framedPaths = new Set<string>();
/** Messages handed on still framed: the views decompressMessage returned for them. */
const stillFramed = new WeakSet<Uint8Array>();

/**
 * Snappy messages of the method at `path` (e.g.
 * '/thanos.WriteableStore/RemoteWrite') are not decoded on the event loop:
 * its deserializer gets the framed stream itself (isStillFramed() says
 * so), to be decoded in the pool. Its size bound is then the caller's to
 * keep (decodeSnappyFramed's maxBytes).
 */
export function keepSnappyFramed(path: string): void {
  framedPaths.add(path);
}

/** Whether a message given to a deserializer is a snappy-framed stream still (keepSnappyFramed). */
export function isStillFramed(message: Uint8Array): boolean {
  return stillFramed.has(message);
}

/**
 * Teaches grpc-js' server to read messages compressed with "snappy".
 * Idempotent. Returns what this grpc-js lacks for it (empty when done).
 */
export function installGrpcSnappy(): string[] {
  if (installed) return [];
  let proto: { decompressMessage?: Decompress } | undefined;
  try {
    const require = createRequire(import.meta.url);
    const mod = require('@grpc/grpc-js/build/src/server-interceptors.js') as { BaseServerInterceptingCall?: { prototype: { decompressMessage?: Decompress } } };
    proto = mod.BaseServerInterceptingCall?.prototype;
  } catch {
    proto = undefined;
  }
  const original = proto?.decompressMessage;
  if (proto === undefined || typeof original !== 'function') return ['BaseServerInterceptingCall.prototype.decompressMessage in @grpc/grpc-js/build/src/server-interceptors.js'];
  proto.decompressMessage = function (this: CallInternals, message: Buffer, encoding: string): Buffer | Promise<Buffer> {
    if (encoding !== SNAPPY_ENCODING) return original.call(this, message, encoding);
    const path = this.handler?.path;
    if (path !== undefined && framedPaths.has(path)) {
      const framed = message.subarray(5);
      stillFramed.add(framed);
      return framed;
    }
    try {
      return decodeSnappyFramed(message.subarray(5), this.maxReceiveMessageSize, bodyBytes);
    } catch (err) {
      const answer: GrpcStatusObject = err instanceof RangeError
        ? { code: status.RESOURCE_EXHAUSTED, details: `Received message that decompresses to a size larger than ${this.maxReceiveMessageSize}` }
        : { code: status.INTERNAL, details: `Failed to decompress message: ${(err as Error).message}` };
      return Promise.reject(answer);
    }
  };
  installed = true;
  return [];
}
