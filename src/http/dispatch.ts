/**
 * The one uWebSockets.js handler behind every path: match the route, check
 * method, suffix and body, run the handler, write the answer.
 *
 * uWebSockets.js rules kept here: a response that is not answered before
 * the handler returns gets an onAborted handler first; after an abort the
 * response is never touched again; answers written later are corked; body
 * chunks are copied (see body-reader.ts). The GET fast path answers inside
 * the handler's first tick, already corked, with no promise in between.
 *
 * A body rejected before it was read (413, 415) is not buffered: the answer
 * goes out at once with Connection: close and uWebSockets.js drops the rest
 * of the body as it arrives until the client hangs up. Closing the socket
 * at once instead would make the kernel reset the connection over the
 * unread bytes, and a client still sending loses the answer (undici's fetch
 * failed with EPIPE in 26 of 30 tries with a 16 MB body, 0 of 30 this way).
 * A client that sent Connection: close is one uWebSockets.js hangs up on
 * itself once the answer is complete: its answer is drained (drain.ts).
 * A Content-Length Strata does not frame (a gigabyte or more, or not a
 * number) is answered once, then the connection closed (length-guard.ts).
 *
 * Hooks (all optional): `onAnswer` is told of every answer with the route's
 * pattern, for metrics; `ready` turns the 404 of a path no route matches
 * into a 503 while the server is still starting (routes are registered as
 * the stores they serve open).
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { parseContentLength, readBody } from './body-reader.js';
import { isJsonContentType, JSON_MEDIA_TYPES, mediaType } from './content-type.js';
import { BodyDrain } from './drain.js';
import {
  malformedJson, methodNotAllowed, notAcceptable, notFound, payloadTooLarge, unavailable, unsupportedMediaType,
} from './errors.js';
import { framable, MAX_BODY_BYTES, pastCorkBuffer, unframableLength } from './length-guard.js';
import { asHttpProblem, problemReply } from './problem-json.js';
import { writeReply } from './reply-writer.js';
import type { Method, Reply, RequestContext, RouteSpec } from './route.js';
import type { Router } from './router.js';
import { UwsSink, writeStreamHead, type StreamState } from './stream-reply.js';
import { asksToClose, closeAfterHandler, type HttpRequest, type HttpResponse } from './uws.js';

/** What the dispatcher tells the server about requests that outlive their first tick. */
export interface Lifecycle {
  /** True once the server is stopping: answers then close their connection. */
  readonly closing: boolean;
  /** A request went asynchronous. */
  begin(): void;
  /** An asynchronous request was answered or aborted. */
  end(): void;
}

/** Optional observers and switches of the dispatcher. */
export interface DispatchHooks {
  /**
   * Told of every answer once it is written: the route's pattern (e.g.
   * `/api/v1/label/:name/values`, or {@link UNMATCHED_ROUTE}), the method
   * (one of the HTTP methods, or `other`), the status (499 when the client
   * went away first) and the seconds since the request arrived.
   * Called on the event loop; keep it cheap.
   */
  onAnswer?(route: string, method: string, status: number, seconds: number): void;
  /** While this answers false, a path no route matches is 503 rather than 404. */
  ready?(): boolean;
}

/** The route label of requests whose path matches no route. */
export const UNMATCHED_ROUTE = 'unmatched';
/** The status recorded for requests the client abandoned before the answer (nginx's convention). */
export const CLIENT_CLOSED_REQUEST = 499;

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Per-request state of an asynchronous answer. */
interface Pending extends StreamState {
  headOnly: boolean;
  /** Route and method labels, and when the request arrived (for onAnswer). */
  route: string;
  method: string;
  started: number;
  /** The status to record if the client goes away now (a drained answer was sent); 499 when unset. */
  abortStatus?: number;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const CONNECTION_CLOSE: readonly [string, string] = ['Connection', 'close'];

/** `reply` with Connection: close added (once). */
function hangingUp(reply: Reply): Reply {
  if (reply.headers?.some(([name]) => name === 'Connection')) return reply;
  return { ...reply, headers: [...(reply.headers ?? []), CONNECTION_CLOSE] };
}

/** Builds the uWebSockets.js handler for `router`. */
export function createDispatch(
  router: Router,
  life: Lifecycle,
  log: Logger,
  hooks: DispatchHooks = {},
): (res: HttpResponse, req: HttpRequest) => void {
  const onAnswer = hooks.onAnswer;
  const ready = hooks.ready;
  // The request being dispatched in this tick (dispatch is synchronous):
  // its labels for onAnswer, read by the answers written inside the tick.
  let nowRoute = UNMATCHED_ROUTE;
  let nowMethod = 'other';
  let nowStarted = 0;

  function observe(route: string, method: string, started: number, status: number): void {
    if (onAnswer === undefined) return;
    try {
      onAnswer(route, method, status, (performance.now() - started) / 1000);
    } catch (err) {
      log.error({ err }, 'HTTP: the answer observer failed');
    }
  }

  /** Answers inside the handler's first tick (uWebSockets.js has corked already). */
  function answerNow(res: HttpResponse, reply: Reply, headOnly: boolean): void {
    writeReply(res, reply, headOnly, life.closing);
    observe(nowRoute, nowMethod, nowStarted, reply.status);
  }

  function problemNow(res: HttpResponse, err: unknown, headOnly: boolean): void {
    answerNow(res, problemReply(err, log), headOnly);
  }

  /** Answers later, unless the client went away. */
  function answerLater(res: HttpResponse, pending: Pending, reply: Reply): void {
    if (pending.done) return;
    if (reply.stream !== undefined && !pending.headOnly) {
      answerStreaming(res, pending, reply, reply.stream);
      return;
    }
    pending.done = true; // answered: nothing may touch res again
    try {
      res.cork(() => writeReply(res, reply, pending.headOnly, life.closing));
    } catch (err) {
      log.error({ err }, 'HTTP: writing an answer failed');
      forceClose(res);
    }
    observe(pending.route, pending.method, pending.started, reply.status);
    life.end();
  }

  /** Writes status and headers, then the body as `stream` produces it (see stream-reply.ts). */
  function answerStreaming(res: HttpResponse, pending: Pending, reply: Reply, stream: NonNullable<Reply['stream']>): void {
    try {
      res.cork(() => writeStreamHead(res, reply));
    } catch (err) {
      log.error({ err }, 'HTTP: writing an answer failed');
      pending.done = true;
      forceClose(res);
      life.end();
      return;
    }
    let produced: Promise<void>;
    try {
      produced = stream(new UwsSink(res, pending));
    } catch (err) {
      produced = Promise.reject(err);
    }
    produced.then(
      () => {
        if (pending.done) return; // the client went away: onAborted has ended it
        pending.done = true;
        try {
          res.cork(() => res.end('', life.closing));
        } catch (err) {
          log.error({ err }, 'HTTP: ending a streamed answer failed');
          forceClose(res);
        }
        observe(pending.route, pending.method, pending.started, reply.status);
        life.end();
      },
      (err: unknown) => {
        if (pending.done) return;
        pending.done = true;
        log.error({ err }, 'HTTP: streaming an answer failed; closing the connection');
        forceClose(res);
        observe(pending.route, pending.method, pending.started, 500);
        life.end();
      },
    );
  }

  /** The answer refusing a request of `route`: in the route's own words when it has them (RouteSpec.refusal). */
  function refusalOf(route: RouteSpec, ctx: RequestContext, err: unknown): Reply {
    return route.refusal === undefined ? problemReply(err, log) : route.refusal(asHttpProblem(err, log), ctx.headers);
  }

  function settle(res: HttpResponse, pending: Pending, result: Promise<Reply>, refuse: (err: unknown) => Reply): void {
    result.then(
      (reply) => answerLater(res, pending, reply),
      (err: unknown) => answerLater(res, pending, refuse(err)),
    );
  }

  function goAsync(res: HttpResponse, headOnly: boolean): Pending {
    const pending: Pending = { done: false, headOnly, route: nowRoute, method: nowMethod, started: nowStarted };
    res.onAborted(() => {
      if (pending.done) return;
      pending.done = true;
      pending.onAbort?.();
      observe(pending.route, pending.method, pending.started, pending.abortStatus ?? CLIENT_CLOSED_REQUEST);
      life.end();
    });
    life.begin();
    return pending;
  }

  /** Runs a handler whose input is complete: inline when it answers synchronously. */
  function run(res: HttpResponse, route: RouteSpec, ctx: RequestContext, pending: Pending | undefined, headOnly: boolean): void {
    let result: Reply | Promise<Reply>;
    try {
      result = route.handler(ctx);
    } catch (err) {
      if (pending === undefined) answerNow(res, refusalOf(route, ctx, err), headOnly);
      else answerLater(res, pending, refusalOf(route, ctx, err));
      return;
    }
    if (result instanceof Promise) settle(res, pending ?? goAsync(res, headOnly), result, (err) => refusalOf(route, ctx, err));
    else if (pending === undefined && (result.stream === undefined || headOnly)) answerNow(res, result, headOnly);
    else answerLater(res, pending ?? goAsync(res, headOnly), result);
  }

  /** Last resort: uWebSockets.js aborts the process if a handler returns without answering. */
  function forceClose(res: HttpResponse): void {
    try {
      res.close();
    } catch {
      // already answered or closed
    }
  }

  /**
   * Sends `reply` before the body is read and drains the body (drain.ts);
   * the caller delivers the body's pieces to the drain it gets.
   */
  function answerThenDrain(res: HttpResponse, pending: Pending, reply: Reply): BodyDrain {
    const drain = new BodyDrain(res, pending, () => {
      observe(pending.route, pending.method, pending.started, reply.status);
      life.end();
    });
    pending.abortStatus = reply.status;
    pending.onAbort = () => drain.stop();
    res.cork(() => drain.start(reply));
    return drain;
  }

  /**
   * Answers in the handler's first tick, before a body the request may
   * carry is read: at once, or drained when uWebSockets.js would hang up
   * on a client still sending (it asked to close and a body follows).
   */
  function refuseNow(res: HttpResponse, req: HttpRequest, reply: Reply, headOnly: boolean): void {
    const bodyFollows = req.getHeader('transfer-encoding') !== '' || parseContentLength(req.getHeader('content-length')) > 0;
    if (headOnly || !bodyFollows || !asksToClose(req.getHeader('connection'))) {
      answerNow(res, reply, headOnly);
      return;
    }
    const drain = answerThenDrain(res, goAsync(res, headOnly), reply);
    res.onData((chunk, isLast) => drain.take(chunk.byteLength, isLast));
  }

  /**
   * Answers a Content-Length Strata does not frame (length-guard.ts), then
   * closes the connection before uWebSockets.js reads the header itself.
   */
  function refuseLength(res: HttpResponse, req: HttpRequest, url: string, value: string): void {
    let limit = MAX_BODY_BYTES;
    try {
      const spec = router.match(url)?.entry.routes[req.getCaseSensitiveMethod() as Method]?.body;
      if (spec !== undefined && spec.kind !== 'none') limit = spec.limit;
    } catch {
      // a path that does not decode: the largest body Strata reads stands
    }
    answerNow(res, pastCorkBuffer(hangingUp(problemReply(unframableLength(value, limit), log))), false);
    closeAfterHandler(req);
  }

  function dispatch(res: HttpResponse, req: HttpRequest): void {
    const method = req.getCaseSensitiveMethod();
    const url = req.getUrl();
    if (onAnswer !== undefined) {
      nowStarted = performance.now();
      nowMethod = KNOWN_METHODS.has(method) ? method : 'other';
      nowRoute = UNMATCHED_ROUTE;
    }
    const lengthHeader = req.getHeader('content-length');
    if (!framable(lengthHeader)) {
      refuseLength(res, req, url, lengthHeader);
      return;
    }
    const match = router.match(url);
    if (match === undefined) {
      const starting = ready !== undefined && !ready();
      const problem = starting ? unavailable('the server is starting; try again shortly') : notFound(`nothing is served at ${url}`);
      refuseNow(res, req, problemReply(problem, log), method === 'HEAD');
      return;
    }
    const entry = match.entry;
    nowRoute = entry.pattern;
    let route = entry.routes[method as Method];
    let headOnly = false;
    if (route === undefined) {
      if (method === 'HEAD' && entry.routes.GET !== undefined) {
        route = entry.routes.GET;
        headOnly = true;
      } else if (method === 'OPTIONS') {
        refuseNow(res, req, { status: 204, headers: [['Allow', entry.allow]] }, false);
        return;
      } else {
        refuseNow(res, req, problemReply(methodNotAllowed(method, entry.allow), log), method === 'HEAD');
        return;
      }
    }
    if (match.suffixRejected) {
      refuseNow(res, req, problemReply(notAcceptable(match.suffix, entry.suffixes ?? []), log), headOnly);
      return;
    }

    let headers = NO_HEADERS;
    if (route.headers !== undefined) {
      const copied: Record<string, string> = {};
      for (const name of route.headers) copied[name] = req.getHeader(name);
      headers = copied;
    }
    const ctx = {
      method: route.method,
      path: match.suffix === '' ? url : url.slice(0, url.length - match.suffix.length),
      params: match.params,
      query: req.getQuery() ?? '',
      suffix: match.suffix,
      headers,
      body: undefined as unknown,
    };

    const spec = route.body;
    if (spec.kind === 'none') {
      run(res, route, ctx, undefined, headOnly);
      return;
    }

    const contentType = req.getHeader('content-type');
    const declared = parseContentLength(lengthHeader); // framable: digits or absent
    const accepted = spec.kind === 'json' ? isJsonContentType(contentType) : spec.contentTypes === undefined || spec.contentTypes.includes(mediaType(contentType));
    if (!accepted) {
      const expected = spec.kind === 'json' ? JSON_MEDIA_TYPES : (spec.contentTypes ?? []).join(' or ');
      const reply = problemReply(unsupportedMediaType(contentType, expected), log);
      // A small unread body is dropped and the connection kept; a big or unknown one asks the client to hang up.
      refuseNow(res, req, declared < 0 || declared > spec.limit ? hangingUp(reply) : reply, headOnly);
      return;
    }
    if (declared > spec.limit) {
      refuseNow(res, req, refusalOf(route, ctx, payloadTooLarge(spec.limit)), headOnly);
      return;
    }

    const closes = asksToClose(req.getHeader('connection'));
    const pending = goAsync(res, headOnly);
    let drain: BodyDrain | undefined;
    const reading = readBody(res, declared, spec.limit, {
      tooLarge: () => {
        const reply = refusalOf(route, ctx, payloadTooLarge(spec.limit));
        if (closes && !headOnly) drain = answerThenDrain(res, pending, reply);
        else answerLater(res, pending, reply);
      },
      discarded: (bytes, isLast) => drain?.take(bytes, isLast),
      done: (body) => {
        if (pending.done) return;
        if (spec.kind === 'raw') {
          ctx.body = body;
        } else {
          try {
            ctx.body = JSON.parse(body.toString('utf8'));
          } catch (err) {
            answerLater(res, pending, problemReply(malformedJson((err as Error).message), log));
            return;
          }
        }
        run(res, route, ctx, pending, headOnly);
      },
    });
    pending.onAbort = () => reading.abandon();
  }

  return function guardedDispatch(res: HttpResponse, req: HttpRequest): void {
    try {
      dispatch(res, req);
    } catch (err) {
      // router.match throws HttpProblem for bad percent-encoding; anything else is a bug.
      try {
        problemNow(res, err, false);
      } catch (writeErr) {
        log.error({ err: writeErr }, 'HTTP: dispatch failed');
        forceClose(res);
      }
    }
  };
}
