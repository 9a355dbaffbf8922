/**
 * thanos.WriteableStore/RemoteWrite calls over bare node:http2, for the
 * load tester: the body is sent as it was prepared (grpc-frames.ts) and
 * the answer is only read for its status, so a call costs what an HTTP/2
 * stream costs and nothing more (no grpc-js channel, filters or
 * serializers in the client sharing the machine with the server). All
 * calls share one connection, as a Thanos Receive router's calls to one
 * receiver do; each call is one stream.
 *
 * Outcomes: grpc-status 0 is ok; another status is a gRPC error named as
 * gRPC names it (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, UNAVAILABLE, ...)
 * with its grpc-message; an answer without grpc-status is an HTTP error
 * (its :status); a connection or stream that fails is a network error.
 * Never rejects.
 */
import http2 from 'node:http2';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Outcome } from '../run/answers.js';
import type { PostResult } from './post.js';
import type { HttpClientTls } from './options.js';

const REMOTE_WRITE_PATH = '/thanos.WriteableStore/RemoteWrite';
/** grpc-message is kept this long at most (the summary shows its start). */
const MESSAGE_CHARS = 500;

/** A gRPC status code's name, as grpc-go and grpc-js print it. */
export function grpcCodeName(code: number): string {
  const name = (GrpcStatus as unknown as Record<number, string | undefined>)[code];
  return name ?? `code ${code}`;
}

/** grpc-message is percent-encoded (gRPC over HTTP/2, "Status-Message"). */
function decodeMessage(value: string | string[] | undefined): string {
  const v = Array.isArray(value) ? value.join(',') : value ?? '';
  try {
    return decodeURIComponent(v).slice(0, MESSAGE_CHARS);
  } catch {
    return v.slice(0, MESSAGE_CHARS);
  }
}

function networkOutcome(err: Error): Outcome {
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  return { kind: 'network', code: e.cause?.code ?? e.code ?? 'error', message: e.cause?.message ?? e.message };
}

/**
 * One HTTP/2 connection to a gRPC server (grpc:// plaintext, grpcs://
 * TLS), opened on first use and opened again after it closed.
 */
export class GrpcWriteConnection {
  private session: http2.ClientHttp2Session | undefined;
  private readonly headers: http2.OutgoingHttpHeaders;

  /** `metadata`: extra request headers (gRPC metadata), names in lower case. */
  constructor(private readonly url: URL, private readonly tls: HttpClientTls | undefined, metadata: Record<string, string>) {
    this.headers = {
      ...metadata,
      [http2.constants.HTTP2_HEADER_METHOD]: 'POST',
      [http2.constants.HTTP2_HEADER_PATH]: REMOTE_WRITE_PATH,
      [http2.constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
      [http2.constants.HTTP2_HEADER_TE]: 'trailers',
      [http2.constants.HTTP2_HEADER_USER_AGENT]: 'strata-bench',
    };
  }

  private open(): http2.ClientHttp2Session {
    if (this.session !== undefined && !this.session.closed && !this.session.destroyed) return this.session;
    const secure = this.url.protocol === 'grpcs:';
    const tls = this.tls;
    const session = http2.connect(`${secure ? 'https' : 'http'}://${this.url.host}`, {
      ...(tls?.ca === undefined ? {} : { ca: tls.ca }),
      ...(tls?.cert === undefined || tls.key === undefined ? {} : { cert: tls.cert, key: tls.key }),
      ...(tls?.serverName === undefined ? {} : { servername: tls.serverName }),
      ...(tls?.insecureSkipVerify ? { rejectUnauthorized: false } : {}),
    });
    // A failed connection fails its streams; the session's own error needs a listener not to throw.
    session.on('error', () => {});
    session.on('close', () => {
      if (this.session === session) this.session = undefined;
    });
    this.session = session;
    return session;
  }

  /** Sends one prepared call body; resolves with the classified outcome. */
  write(body: Buffer, timeoutMs: number): Promise<PostResult> {
    return new Promise((resolve) => {
      let settled = false;
      const done = (outcome: Outcome): void => {
        if (settled) return;
        settled = true;
        resolve({ outcome });
      };
      let stream: http2.ClientHttp2Stream;
      try {
        stream = this.open().request(this.headers);
      } catch (err) {
        done(networkOutcome(err as Error));
        return;
      }
      let httpStatus = 0;
      let grpcStatus: number | undefined;
      let message = '';
      const take = (h: http2.IncomingHttpHeaders): void => {
        const s = h['grpc-status'];
        if (s === undefined) return;
        grpcStatus = Number(s);
        message = decodeMessage(h['grpc-message']);
      };
      stream.on('response', (h) => {
        httpStatus = Number(h[http2.constants.HTTP2_HEADER_STATUS] ?? 0);
        // A trailers-only answer (an error before any message) carries the status here.
        take(h);
      });
      stream.on('trailers', take);
      // The answer's message (an empty WriteResponse) is not needed: read and drop it.
      stream.resume();
      stream.setTimeout(timeoutMs, () => {
        done({ kind: 'network', code: 'timeout', message: `no answer within ${timeoutMs} ms` });
        stream.close(http2.constants.NGHTTP2_CANCEL);
      });
      stream.on('error', (err) => done(networkOutcome(err)));
      stream.on('close', () => {
        if (grpcStatus === GrpcStatus.OK) return done({ kind: 'ok' });
        if (grpcStatus !== undefined) return done({ kind: 'grpc', code: grpcCodeName(grpcStatus), message });
        if (httpStatus !== 0 && httpStatus !== 200) return done({ kind: 'http', status: httpStatus, message: 'answered without a gRPC status' });
        done({ kind: 'network', code: stream.rstCode ? `RST_STREAM ${stream.rstCode}` : 'ECONNRESET', message: 'the call ended without a gRPC status' });
      });
      stream.end(body);
    });
  }

  /** Closes the connection (calls in flight fail). */
  destroy(): void {
    this.session?.destroy();
    this.session = undefined;
  }
}
