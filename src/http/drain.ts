/**
 * An answer sent before the request's body was read (413, 415, 404...) to a
 * client that asked to close the connection.
 *
 * uWebSockets.js closes such a connection as soon as the answer is
 * complete, while the client is still sending its body: the kernel then
 * resets the connection over the unread bytes and the client loses the
 * answer (EPIPE, ECONNRESET), so Prometheus retries a batch it should drop.
 * Go's net/http reads on up to 256 KiB of the body, or half-closes and
 * waits, so that the client reads its answer. Here the status, headers and
 * body go out at once, in chunked transfer encoding, and the answer's end
 * (its last, empty chunk) follows once the body has all arrived, or at a
 * bound: until then uWebSockets.js sees an answer in progress, keeps the
 * connection open and hands the body over, which is counted and dropped.
 * Once the body is all in, the close comes with nothing unread: a clean
 * FIN. Past a bound the client has had the whole answer long before.
 */
import type { Reply } from './route.js';
import { writeStreamHead, type StreamState } from './stream-reply.js';
import type { HttpResponse } from './uws.js';

/**
 * The most a drain reads: twice the default body limit, so that a remote
 * write over the limit by as much again is read to its end.
 */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
/** The longest a drain lasts: uWebSockets.js' own idle timeout. */
export const DRAIN_MAX_MS = 10_000;
/**
 * A pause in the body this long ends the drain early: a client that stopped
 * sending once it read the answer (one that sent Expect: 100-continue)
 * waits for the answer's end.
 */
export const DRAIN_IDLE_MS = 1_000;

/** Reads and drops the rest of a body after its answer, then ends the answer. */
export class BodyDrain {
  private read = 0;
  private lastAt = 0;
  private deadline = 0;
  private timer: NodeJS.Timeout | undefined;

  /**
   * `state` is the request's: done once the answer is ended or the client
   * went away (the caller's onAborted sets it and calls {@link stop}).
   * `onEnd` runs once, when the drain ends the answer.
   */
  constructor(private readonly res: HttpResponse, private readonly state: StreamState, private readonly onEnd: () => void) {}

  /** Writes status, headers and the body of `reply` (not its end). The caller corks. */
  start(reply: Reply): void {
    writeStreamHead(this.res, reply);
    const body = reply.body;
    if (body !== undefined && body.length > 0) this.res.write(body);
    this.lastAt = Date.now();
    this.deadline = this.lastAt + DRAIN_MAX_MS;
    this.arm(DRAIN_IDLE_MS);
  }

  /** A piece of the body arrived: `bytes` long, the last one when `isLast`. */
  take(bytes: number, isLast: boolean): void {
    if (this.state.done) return;
    this.read += bytes;
    this.lastAt = Date.now();
    if (isLast || this.read >= DRAIN_MAX_BYTES) this.end();
  }

  /** The client went away: nothing more is written. */
  stop(): void {
    clearTimeout(this.timer);
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.check(), ms);
    this.timer.unref();
  }

  private check(): void {
    if (this.state.done) return;
    const now = Date.now();
    const idleEnds = this.lastAt + DRAIN_IDLE_MS;
    if (now >= this.deadline || now >= idleEnds) this.end();
    else this.arm(Math.min(this.deadline, idleEnds) - now);
  }

  private end(): void {
    if (this.state.done) return;
    this.state.done = true;
    clearTimeout(this.timer);
    this.res.cork(() => this.res.end());
    this.onEnd();
  }
}
