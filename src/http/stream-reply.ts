/**
 * Streamed answers ({@link Reply.stream}) on uWebSockets.js: status and
 * headers first, then the body in pieces with chunked transfer encoding.
 *
 * Backpressure: `res.write` always takes the whole piece (uWebSockets.js
 * buffers what the socket does not take at once) and says false when it had
 * to buffer; the next piece then waits for `onWritable`, so at most one
 * piece beyond what the kernel holds is ever buffered per answer.
 */
import type { ResponseSink, Reply } from './route.js';
import { statusLine } from './status.js';
import type { HttpResponse } from './uws.js';

const CONTENT_TYPE = Buffer.from('Content-Type');
const RESOLVED = Promise.resolve();

/** What a streamed answer shares with the dispatcher: whether the response may still be touched. */
export interface StreamState {
  /** Answered or aborted: the response must not be touched again. */
  done: boolean;
  /** Set by the sink; the dispatcher calls it when the client aborts. */
  onAbort?: () => void;
}

/** Thrown into a stream's writes once the client has gone. */
export class ClientGoneError extends Error {
  override readonly name = 'ClientGoneError';
  constructor() {
    super('the client went away');
  }
}

/** Writes the status line and headers of a streamed reply. The caller corks. */
export function writeStreamHead(res: HttpResponse, reply: Reply): void {
  res.writeStatus(statusLine(reply.status));
  if (reply.contentType !== undefined) res.writeHeader(CONTENT_TYPE, reply.contentType);
  const headers = reply.headers;
  if (headers !== undefined) for (let i = 0; i < headers.length; i++) res.writeHeader(headers[i]![0], headers[i]![1]);
}

/** The sink over one uWebSockets.js response. */
export class UwsSink implements ResponseSink {
  private waiting: (() => void) | undefined;

  constructor(private readonly res: HttpResponse, private readonly state: StreamState) {
    state.onAbort = () => this.wake();
  }

  get aborted(): boolean {
    return this.state.done;
  }

  write(chunk: Uint8Array): Promise<void> {
    if (this.state.done) return Promise.reject(new ClientGoneError());
    let drained = true;
    this.res.cork(() => {
      drained = this.res.write(chunk);
    });
    if (drained) return RESOLVED;
    return new Promise<void>((resolve, reject) => {
      this.waiting = () => (this.state.done ? reject(new ClientGoneError()) : resolve());
      this.res.onWritable(() => {
        this.wake();
        return true; // the piece was buffered whole: nothing is left to retry
      });
    });
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }
}
