import type * as grpc from '@grpc/grpc-js';
import type { ServerHttp2Stream } from 'node:http2';

/**
 * Where a Series answer's messages go. `alloc` gives room for one message
 * of exactly `size` bytes, `send` hands it over once written.
 */
export interface SeriesSink {
  alloc(size: number): Buffer;
  send(frame: Buffer): void;
  /** Whether the transport wants a pause before more (flow control). */
  readonly blocked: boolean;
  drained(): Promise<void>;
  /** Pushes out whatever is batched. */
  flush(): void;
}

/** Through grpc-js, one message per write. */
export class CallSink implements SeriesSink {
  blocked = false;

  constructor(private readonly call: grpc.ServerWritableStream<unknown, Buffer>) {}

  alloc(size: number): Buffer {
    return Buffer.allocUnsafe(size);
  }

  send(frame: Buffer): void {
    if (!this.call.write(frame)) this.blocked = true;
  }

  drained(): Promise<void> {
    return new Promise((done) => this.call.once('drain', () => {
      this.blocked = false;
      done();
    }));
  }

  flush(): void {}
}

const BATCH_BYTES = 256 * 1024;
const PREFIX = 5;

/**
 * Straight onto the call's HTTP/2 stream, messages framed as gRPC frames
 * them (a 0 byte, a 4-byte big-endian length) and batched into writes of
 * about 256 KiB. grpc-js otherwise copies each message once more and writes
 * it alone, which for an answer of ten thousand 1 KiB series costs more
 * than building it. The headers go first through grpc-js, and grpc-js ends
 * the call with its status as usual.
 */
export class Http2Sink implements SeriesSink {
  blocked = false;
  private batch = Buffer.allocUnsafe(BATCH_BYTES);
  private at = 0;

  private constructor(private readonly stream: ServerHttp2Stream, private readonly sendHeaders: () => void) {}

  /** A direct sink, when this grpc-js keeps the call's stream where this knows to find it (1.10+). */
  static of(call: grpc.ServerWritableStream<unknown, Buffer>): Http2Sink | undefined {
    const base = (call as unknown as { call?: { nextCall?: { stream?: unknown; maybeSendMetadata?: unknown } } }).call?.nextCall;
    const stream = base?.stream as ServerHttp2Stream | undefined;
    if (base === undefined || stream === undefined || typeof stream.write !== 'function' || typeof base.maybeSendMetadata !== 'function') {
      return undefined;
    }
    const sendHeaders = (base.maybeSendMetadata as () => void).bind(base);
    return new Http2Sink(stream, sendHeaders);
  }

  alloc(size: number): Buffer {
    if (this.at + PREFIX + size > this.batch.length) {
      this.flush();
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
    return new Promise((done) => this.stream.once('drain', () => {
      this.blocked = false;
      done();
    }));
  }

  flush(): void {
    if (this.at === 0) return;
    if (this.stream.destroyed) throw new Error('the call is gone');
    this.sendHeaders();
    if (!this.stream.write(this.batch.subarray(0, this.at))) this.blocked = true;
    this.batch = Buffer.allocUnsafe(BATCH_BYTES);
    this.at = 0;
  }
}
