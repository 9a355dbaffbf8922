/**
 * One unary method served on the HTTP/2 streams themselves, before grpc-js
 * sees them: thanos.WriteableStore/RemoteWrite, thousands of calls a
 * second from a Thanos Receive router. Through grpc-js each call took
 * about 30 % of the event loop in its call objects, Node's stream
 * machinery and promise turns (bench/RESULTS.md, issue 26); here a call is
 * its DATA chunks copied into one buffer, the handler, and one answer.
 *
 * It answers as grpc-js 1.14 does (server-interceptors.js, server.js
 * handleUnary), status codes and messages included: the message size
 * bound (--grpc-max-recv-bytes, also on what gzip decompresses to),
 * grpc-timeout deadlines, a second message or none, trailers-only errors
 * with grpc-message percent-encoded, and an OK answer of headers, the
 * empty message and trailers. A stream this file is not sure to answer
 * the same way (no application/grpc content type, an encoding other than
 * identity, gzip or snappy, a grpc-timeout grpc-js would refuse) goes to
 * grpc-js as before, where the method stays registered.
 *
 * Relies on one grpc-js internal, `http2Servers` (as flow-control.ts does),
 * and on grpc-js listening for 'stream' on them.
 */
import { status as Status, type Server } from '@grpc/grpc-js';
import { constants as h2, type Http2Server, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { gunzip } from 'node:zlib';
import { framedMessage, type MessageBytes } from './message-bytes.js';
import { callTimer, type OnCall } from './telemetry.js';
import { SNAPPY_ENCODING } from './snappy.js';
import { bodyBytes } from '../pool/spare-buffers.js';

/** A status to answer with: code and text, as grpc-js' StatusObject. */
export interface CallStatus {
  code: number;
  details: string;
}

/** The method taken off grpc-js, and how its calls are served. */
export interface RawUnaryMethod {
  /** e.g. '/thanos.WriteableStore/RemoteWrite'. */
  path: string;
  /** The server's grpc.max_receive_message_length (-1: no bound). */
  maxRecvBytes: number;
  /** The call itself: resolves when done, rejects with an error statusOf() maps. */
  handle(message: MessageBytes): Promise<void>;
  /** The status for an error of handle() (the same mapping grpc-js calls get). */
  statusOf(err: unknown): CallStatus;
  onCall?: OnCall;
}

type StreamListener = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, ...rest: unknown[]) => void;

/** grpc-js' pattern and units for grpc-timeout (server-interceptors.js). */
const DEADLINE = /(\d{1,8})\s*([HMSmun])/;
const UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 };
const ENCODINGS = new Set(['identity', 'gzip', SNAPPY_ENCODING]);
const PREFIX = 5;

/**
 * Takes `method`'s streams on every HTTP/2 server `server` has bound
 * (call it once bindAsync has called back); every other stream goes to
 * grpc-js' own listener as before. Returns what this grpc-js lacks (then
 * nothing was changed and grpc-js serves the method).
 */
export function takeUnaryStreams(server: Server, method: RawUnaryMethod): string[] {
  const servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(servers instanceof Map)) return ['Server.http2Servers'];
  const bound = [...servers.keys()] as Http2Server[];
  if (bound.some((s) => s.listenerCount('stream') === 0)) return ["grpc-js' 'stream' listener on its HTTP/2 servers"];
  for (const http2Server of bound) {
    const grpcJs = http2Server.listeners('stream') as StreamListener[];
    http2Server.removeAllListeners('stream');
    http2Server.on('stream', function (this: Http2Server, stream: ServerHttp2Stream, headers: IncomingHttpHeaders, ...rest: unknown[]) {
      if (headers[h2.HTTP2_HEADER_PATH] === method.path && answersAlike(headers)) {
        serveCall(stream, headers, method);
        return;
      }
      for (const listener of grpcJs) listener.call(this, stream, headers, ...rest);
    });
  }
  return [];
}

/** Whether this file answers the call exactly as grpc-js would (see the module comment). */
function answersAlike(headers: IncomingHttpHeaders): boolean {
  const type = headers[h2.HTTP2_HEADER_CONTENT_TYPE];
  if (typeof type !== 'string' || !type.startsWith('application/grpc')) return false;
  const encoding = headers['grpc-encoding'];
  if (encoding !== undefined && (typeof encoding !== 'string' || !ENCODINGS.has(encoding))) return false;
  const timeout = headers['grpc-timeout'];
  return timeout === undefined || (typeof timeout === 'string' && DEADLINE.test(timeout));
}

/** The deadline's milliseconds from a grpc-timeout header, as grpc-js computes them. */
function timeoutMs(header: string): number {
  const m = DEADLINE.exec(header)!;
  return (Number(m[1]) * UNIT_MS[m[2]!]!) | 0;
}

const RESPONSE_HEADERS = {
  [h2.HTTP2_HEADER_STATUS]: 200,
  [h2.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc+proto',
};
const OK_HEADERS = { ...RESPONSE_HEADERS, 'grpc-accept-encoding': 'identity,deflate,gzip', 'grpc-encoding': 'identity' };
const OK_TRAILERS = { 'grpc-status': String(Status.OK), 'grpc-message': 'OK' };
/** The empty response message (a WriteResponse has no fields), framed. */
const EMPTY_FRAME = Buffer.alloc(PREFIX);

/** One call: reads its message, runs the handler, answers once. */
function serveCall(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, method: RawUnaryMethod): void {
  const done = callTimer(method.onCall, method.path);
  let answered = false;
  let timer: NodeJS.Timeout | undefined;
  const finish = (code: number): boolean => {
    if (answered) return false;
    answered = true;
    if (timer !== undefined) clearTimeout(timer);
    done(code);
    return !(stream.destroyed || stream.closed);
  };
  const fail = (status: CallStatus): void => {
    if (!finish(status.code)) return;
    stream.respond({ ...RESPONSE_HEADERS, 'grpc-status': String(status.code), 'grpc-message': encodeURI(status.details) }, { endStream: true });
    // Whatever the client still sends is read and dropped, as grpc-js does.
    stream.resume();
  };
  // A reset stream may raise an error; its 'close' follows and says the rest.
  stream.on('error', () => {});
  stream.once('close', () => finish(Status.CANCELLED));
  const timeout = headers['grpc-timeout'];
  if (typeof timeout === 'string') timer = setTimeout(() => fail({ code: Status.DEADLINE_EXCEEDED, details: 'Deadline exceeded' }), timeoutMs(timeout));

  const reader = new MessageReader(method.maxRecvBytes, method.path);
  stream.on('data', (chunk: Buffer) => {
    if (answered) return;
    const problem = reader.write(chunk);
    if (problem !== undefined) fail(problem);
  });
  // A stream the client resets ends too, and says it was reset only after
  // 'end': the call runs a turn later, when a reset has closed the stream.
  stream.once('end', () => setImmediate(run));
  const run = (): void => {
    if (answered || stream.aborted || stream.closed || stream.destroyed) return;
    const message = reader.message();
    if (message === undefined) {
      fail({ code: Status.UNIMPLEMENTED, details: `Received no request message for server streaming method ${method.path}` });
      return;
    }
    const encoding = message.compressed ? (headers['grpc-encoding'] as string | undefined) ?? 'identity' : 'identity';
    decoded(message.bytes, encoding, method.maxRecvBytes).then((bytes) => method.handle(bytes)).then(() => {
      if (!finish(Status.OK)) return;
      stream.respond(OK_HEADERS, { waitForTrailers: true });
      stream.once('wantTrailers', () => stream.sendTrailers(OK_TRAILERS));
      stream.end(EMPTY_FRAME);
    }, (err: unknown) => fail(err instanceof DecodeStatus ? { code: err.code, details: err.details } : method.statusOf(err)));
  };
}

/** A status made here (decoding the message), not an error of the handler. */
class DecodeStatus extends Error implements CallStatus {
  constructor(readonly code: number, readonly details: string) {
    super(details);
  }
}

/** The message as the handler takes it: snappy kept framed (decoded in the pool), gzip inflated here. */
function decoded(bytes: Buffer, encoding: string, maxRecvBytes: number): Promise<MessageBytes> {
  if (encoding === SNAPPY_ENCODING) return Promise.resolve(framedMessage(bytes));
  if (encoding !== 'gzip') return Promise.resolve({ bytes, size: bytes.byteLength });
  return new Promise((resolve, reject) => {
    gunzip(bytes, maxRecvBytes < 0 ? {} : { maxOutputLength: Math.max(1, maxRecvBytes) }, (err, out) => {
      if (err === null) resolve({ bytes: out, size: out.byteLength });
      else if (err instanceof RangeError || (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        reject(new DecodeStatus(Status.RESOURCE_EXHAUSTED, `Received message that decompresses to a size larger than ${maxRecvBytes}`));
      } else reject(new DecodeStatus(Status.INTERNAL, 'Failed to decompress message'));
    });
  });
}

/**
 * Gathers a call's length-prefixed message from its DATA chunks into a
 * reused body buffer (spare-buffers.ts), as the HTTP route reads a body:
 * moved to a pool worker and back without a copy.
 */
class MessageReader {
  private readonly prefix = Buffer.alloc(PREFIX);
  private prefixAt = 0;
  private body: Buffer | undefined;
  private bodyAt = 0;
  private whole: { bytes: Buffer; compressed: boolean } | undefined;

  constructor(private readonly maxBytes: number, private readonly path: string) {}

  /** Takes a chunk; a status when the call must end with it. */
  write(chunk: Buffer): CallStatus | undefined {
    let at = 0;
    while (at < chunk.length) {
      if (this.body === undefined) {
        const n = Math.min(PREFIX - this.prefixAt, chunk.length - at);
        chunk.copy(this.prefix, this.prefixAt, at, at + n);
        this.prefixAt += n;
        at += n;
        if (this.prefixAt < PREFIX) return undefined;
        const size = this.prefix.readUInt32BE(1);
        if (this.maxBytes !== -1 && size > this.maxBytes) return { code: Status.RESOURCE_EXHAUSTED, details: `Received message larger than max (${size} vs ${this.maxBytes})` };
        if (this.whole !== undefined) return { code: Status.UNIMPLEMENTED, details: `Received a second request message for server streaming method ${this.path}` };
        this.body = bodyBytes(size);
        this.bodyAt = 0;
      }
      // A zero-length message is whole as soon as its prefix is.
      const n = Math.min(this.body.length - this.bodyAt, chunk.length - at);
      chunk.copy(this.body, this.bodyAt, at, at + n);
      this.bodyAt += n;
      at += n;
      if (this.bodyAt === this.body.length) {
        this.whole = { bytes: this.body, compressed: this.prefix[0] === 1 };
        this.body = undefined;
        this.prefixAt = 0;
      }
    }
    return undefined;
  }

  /** The message, once the stream has ended; undefined when none arrived whole. */
  message(): { bytes: Buffer; compressed: boolean } | undefined {
    return this.whole;
  }
}
