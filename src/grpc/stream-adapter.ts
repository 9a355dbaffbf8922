/**
 * One of the three places Strata reaches into grpc-js internals: how a
 * Series answer's frames leave through a server-streaming call. (The
 * others: flow-control.ts, the HTTP/2 windows; message-bytes.ts,
 * how a received message is laid out in memory.) Everything else uses
 * grpc-js' public API. The version these internals were checked
 * against is pinned in package.json; test/grpc/stream-adapter.test.ts fails
 * loudly, naming what is missing, when the grpc-js in node_modules no
 * longer has them.
 *
 * Three paths, fastest first; seriesSinkFor() takes the first this grpc-js
 * allows (or the one asked for):
 * - 'http2': frames written straight onto the call's HTTP/2 stream, framed
 *   as gRPC frames them (a 0 byte, a 4-byte big-endian length), in writes
 *   of about 256 KiB. grpc-js otherwise copies each message once more and
 *   writes it alone, which for ten thousand 1 KiB series costs more than
 *   building them. Relies on: the stream's `call` (a ServerWritableStreamImpl
 *   field) being grpc-js' BaseServerInterceptingCall, as it is when the
 *   server has no interceptors, with `stream` (the ServerHttp2Stream) and
 *   `maybeSendMetadata()` (sends the response headers once). grpc-js still
 *   ends the call: `call.end()` or an 'error' event sends the status as
 *   trailers after what was written. With interceptors the messages must
 *   pass through them, and this path is not taken.
 * - 'batched': the public write(), plus a `_writev` that hands every message
 *   queued meanwhile to the inner call at once (grpc-js otherwise takes a
 *   turn of the event loop per message). Relies on `call.sendMessage(message,
 *   callback)` of that inner call.
 * - 'public': call.write(), 'drain', 'close' and `cancelled` only.
 *
 * Every path stops when the caller goes away: alloc/send/flush throw and
 * drained() rejects with a 'cancelled' error (see SeriesSink).
 */
import type * as grpc from '@grpc/grpc-js';
import type { ServerHttp2Stream } from 'node:http2';
import { callCancelled } from '../errors/errors.js';
import type { SeriesSink } from '../store/series-sink.js';

/** How a Series answer's frames leave: see the file comment. */
export type SeriesPath = 'http2' | 'batched' | 'public';

/** A SeriesSink over a gRPC call, saying which path it took. */
export interface GrpcSeriesSink extends SeriesSink {
  readonly path: SeriesPath;
}

type SeriesCall = grpc.ServerWritableStream<unknown, Buffer>;

/** The internals this adapter looks for; see the file comment. */
interface BaseCall {
  stream?: unknown;
  maybeSendMetadata?: unknown;
  sendMessage?: unknown;
  nextCall?: unknown;
}

const innerCall = (call: SeriesCall): BaseCall | undefined => (call as unknown as { call?: BaseCall }).call;

/**
 * What this grpc-js lacks for each faster path, for `call`: an empty list
 * means the path is open. For the test and for a start-up log line.
 */
export function probeGrpcInternals(call: SeriesCall): Record<'http2' | 'batched', string[]> {
  const base = innerCall(call);
  const http2: string[] = [];
  const batched: string[] = [];
  if (base === undefined || typeof base !== 'object') {
    http2.push('ServerWritableStreamImpl.call (the inner call)');
    batched.push('ServerWritableStreamImpl.call (the inner call)');
    return { http2, batched };
  }
  if (base.nextCall !== undefined) http2.push('no interceptors: the inner call is a ServerInterceptingCall, not the base call');
  const stream = base.stream as Partial<ServerHttp2Stream> | undefined;
  if (stream === undefined || typeof stream.write !== 'function' || typeof stream.once !== 'function' || typeof stream.respond !== 'function') {
    http2.push('BaseServerInterceptingCall.stream (the ServerHttp2Stream)');
  }
  if (typeof base.maybeSendMetadata !== 'function') http2.push('BaseServerInterceptingCall.maybeSendMetadata()');
  if (typeof base.sendMessage !== 'function') batched.push('inner call.sendMessage(message, callback)');
  return { http2, batched };
}

/**
 * The sink for a Series answer on `call`: the fastest path this grpc-js
 * allows, or `prefer` when given and allowed (tests use 'public').
 */
export function seriesSinkFor(call: SeriesCall, prefer?: SeriesPath): GrpcSeriesSink {
  const missing = probeGrpcInternals(call);
  if ((prefer === undefined || prefer === 'http2') && missing.http2.length === 0) {
    const base = innerCall(call)!;
    return new Http2Sink(base.stream as ServerHttp2Stream, (base.maybeSendMetadata as () => void).bind(base));
  }
  if (prefer !== 'public' && missing.batched.length === 0) {
    batchWrites(call, innerCall(call)!);
    return new CallSink(call, 'batched');
  }
  return new CallSink(call, 'public');
}

const BATCH_BYTES = 256 * 1024;
const PREFIX = 5;

/**
 * Batch buffers whose writes completed, for the next batches (of any call).
 * A Series answer of 9 MB otherwise allocates 36 new 256 KiB buffers: each
 * is memory outside the JavaScript heap, which V8 answers with a full
 * (mark-compact) collection every read or two; with buffers reused there
 * are next to none. A buffer comes back only when its write's callback
 * says it was written (the HTTP/2 stream holds it until then, uncopied);
 * at most MAX_SPARE are kept (4 MiB).
 */
const spare: Buffer[] = [];
const MAX_SPARE = 16;

function batchBuffer(): Buffer {
  return spare.pop() ?? Buffer.allocUnsafe(BATCH_BYTES);
}

function written(batch: Buffer): (err?: Error | null) => void {
  return (err) => {
    if ((err === undefined || err === null) && spare.length < MAX_SPARE) spare.push(batch);
  };
}

const gone = (): Error => callCancelled('the Series call ended (cancelled, deadline passed or connection closed) while its answer was being sent');

class Http2Sink implements GrpcSeriesSink {
  readonly path = 'http2';
  blocked = false;
  private batch = batchBuffer();
  private at = 0;

  constructor(private readonly stream: ServerHttp2Stream, private readonly sendHeaders: () => void) {
    // grpc-js handles one 'error' of the stream (once); a write of ours
    // racing a reset could raise another, which must not be uncaught. Any
    // such error also closes the stream, which ends the answer (ended()).
    stream.on('error', () => {});
  }

  private ended(): boolean {
    return this.stream.destroyed || this.stream.closed || !this.stream.writable;
  }

  alloc(size: number): Buffer {
    if (this.at + PREFIX + size > this.batch.length) {
      this.flush();
      // A frame larger than a batch gets a buffer of its own (not kept for reuse).
      if (PREFIX + size > this.batch.length) this.batch = Buffer.allocUnsafe(PREFIX + size);
    }
    const b = this.batch;
    b[this.at] = 0;
    b.writeUInt32BE(size, this.at + 1);
    const frame = b.subarray(this.at + PREFIX, this.at + PREFIX + size);
    this.at += PREFIX + size;
    return frame;
  }

  send(): void {}

  drained(): Promise<void> {
    return waitFor(this.stream, () => this.ended(), () => {
      this.blocked = false;
    });
  }

  flush(): void {
    if (this.at === 0) return;
    if (this.ended()) throw gone();
    this.sendHeaders();
    const batch = this.batch;
    const done = batch.length === BATCH_BYTES ? written(batch) : undefined;
    if (!this.stream.write(batch.subarray(0, this.at), done)) this.blocked = true;
    this.batch = batchBuffer();
    this.at = 0;
  }
}

/** Through grpc-js' stream API, one message per write. */
class CallSink implements GrpcSeriesSink {
  blocked = false;

  constructor(private readonly call: SeriesCall, readonly path: 'batched' | 'public') {}

  private ended(): boolean {
    return this.call.cancelled || this.call.destroyed || this.call.writableEnded;
  }

  alloc(size: number): Buffer {
    return Buffer.allocUnsafe(size);
  }

  send(frame: Buffer): void {
    if (this.ended()) throw gone();
    if (!this.call.write(frame)) this.blocked = true;
  }

  drained(): Promise<void> {
    return waitFor(this.call, () => this.ended(), () => {
      this.blocked = false;
    });
  }

  flush(): void {
    if (this.ended()) throw gone();
  }
}

/**
 * Resolves on 'drain', or at once when the stream no longer waits for one:
 * the caller may have let turns of the event loop pass since the write that
 * blocked (store-api.ts yields between slices), and a 'drain' emitted
 * meanwhile will not come again. Rejects (cancelled) on 'close' or when
 * the stream has ended.
 */
function waitFor(emitter: NodeJS.EventEmitter & { readonly writableNeedDrain: boolean }, ended: () => boolean, onDrain: () => void): Promise<void> {
  return new Promise((done, fail) => {
    if (ended()) {
      fail(gone());
      return;
    }
    if (!emitter.writableNeedDrain) {
      onDrain();
      done();
      return;
    }
    const drain = (): void => {
      emitter.off('close', close);
      onDrain();
      done();
    };
    const close = (): void => {
      emitter.off('drain', drain);
      fail(gone());
    };
    emitter.once('drain', drain);
    emitter.once('close', close);
  });
}

/**
 * grpc-js sends a server stream's messages one at a time, each waiting for
 * the previous HTTP/2 write to complete: a turn of the event loop per
 * message, which caps an answer of many small frames far below what the
 * connection carries. A `_writev` hands every message queued meanwhile to
 * the inner call at once; they still go out as separate gRPC messages, in
 * order.
 */
function batchWrites(call: SeriesCall, inner: BaseCall): void {
  const send = (inner.sendMessage as (message: unknown, callback: () => void) => void).bind(inner);
  (call as unknown as { _writev: unknown })._writev = (chunks: { chunk: unknown }[], done: (err?: Error | null) => void): void => {
    let left = chunks.length;
    for (const { chunk } of chunks) {
      send(chunk, () => {
        if (--left === 0) done();
      });
    }
  };
}
