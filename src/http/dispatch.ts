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
 */
import type { Logger } from 'pino';
import { parseContentLength, readBody } from './body-reader.js';
import { isJsonContentType, JSON_MEDIA_TYPES, mediaType } from './content-type.js';
import { badRequest, malformedJson, methodNotAllowed, notAcceptable, notFound, payloadTooLarge, unsupportedMediaType } from './errors.js';
import { problemReply } from './problem-json.js';
import { writeReply } from './reply-writer.js';
import type { Method, Reply, RequestContext, RouteSpec } from './route.js';
import type { Router } from './router.js';
import type { HttpRequest, HttpResponse } from './uws.js';

/** What the dispatcher tells the server about requests that outlive their first tick. */
export interface Lifecycle {
  /** True once the server is stopping: answers then close their connection. */
  readonly closing: boolean;
  /** A request went asynchronous. */
  begin(): void;
  /** An asynchronous request was answered or aborted. */
  end(): void;
}

/** Per-request state of an asynchronous answer. */
interface Pending {
  /** Answered or aborted: the response must not be touched again. */
  done: boolean;
  headOnly: boolean;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const CONNECTION_CLOSE: readonly [string, string] = ['Connection', 'close'];

/** `reply` with Connection: close added (once). */
function hangingUp(reply: Reply): Reply {
  if (reply.headers?.some(([name]) => name === 'Connection')) return reply;
  return { ...reply, headers: [...(reply.headers ?? []), CONNECTION_CLOSE] };
}

/** Builds the uWebSockets.js handler for `router`. */
export function createDispatch(router: Router, life: Lifecycle, log: Logger): (res: HttpResponse, req: HttpRequest) => void {
  /** Answers inside the handler's first tick (uWebSockets.js has corked already). */
  function answerNow(res: HttpResponse, reply: Reply, headOnly: boolean): void {
    writeReply(res, reply, headOnly, life.closing);
  }

  function problemNow(res: HttpResponse, err: unknown, headOnly: boolean): void {
    writeReply(res, problemReply(err, log), headOnly, life.closing);
  }

  /** Answers later, unless the client went away. */
  function answerLater(res: HttpResponse, pending: Pending, reply: Reply): void {
    if (pending.done) return;
    pending.done = true; // answered: nothing may touch res again
    try {
      res.cork(() => writeReply(res, reply, pending.headOnly, life.closing));
    } catch (err) {
      log.error({ err }, 'HTTP: writing an answer failed');
      forceClose(res);
    }
    life.end();
  }

  function settle(res: HttpResponse, pending: Pending, result: Promise<Reply>): void {
    result.then(
      (reply) => answerLater(res, pending, reply),
      (err: unknown) => answerLater(res, pending, problemReply(err, log)),
    );
  }

  function goAsync(res: HttpResponse, headOnly: boolean): Pending {
    const pending: Pending = { done: false, headOnly };
    res.onAborted(() => {
      if (pending.done) return;
      pending.done = true;
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
      if (pending === undefined) problemNow(res, err, headOnly);
      else answerLater(res, pending, problemReply(err, log));
      return;
    }
    if (result instanceof Promise) settle(res, pending ?? goAsync(res, headOnly), result);
    else if (pending === undefined) answerNow(res, result, headOnly);
    else answerLater(res, pending, result);
  }

  /** Last resort: uWebSockets.js aborts the process if a handler returns without answering. */
  function forceClose(res: HttpResponse): void {
    try {
      res.close();
    } catch {
      // already answered or closed
    }
  }

  function dispatch(res: HttpResponse, req: HttpRequest): void {
    const method = req.getCaseSensitiveMethod();
    const url = req.getUrl();
    const match = router.match(url);
    if (match === undefined) {
      problemNow(res, notFound(`nothing is served at ${url}`), method === 'HEAD');
      return;
    }
    const entry = match.entry;
    let route = entry.routes[method as Method];
    let headOnly = false;
    if (route === undefined) {
      if (method === 'HEAD' && entry.routes.GET !== undefined) {
        route = entry.routes.GET;
        headOnly = true;
      } else if (method === 'OPTIONS') {
        answerNow(res, { status: 204, headers: [['Allow', entry.allow]] }, false);
        return;
      } else {
        problemNow(res, methodNotAllowed(method, entry.allow), method === 'HEAD');
        return;
      }
    }
    if (match.suffixRejected) {
      problemNow(res, notAcceptable(match.suffix, entry.suffixes ?? []), headOnly);
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
    const lengthHeader = req.getHeader('content-length');
    const declared = parseContentLength(lengthHeader);
    const accepted = spec.kind === 'json' ? isJsonContentType(contentType) : spec.contentTypes === undefined || spec.contentTypes.includes(mediaType(contentType));
    if (!accepted) {
      const expected = spec.kind === 'json' ? JSON_MEDIA_TYPES : (spec.contentTypes ?? []).join(' or ');
      const reply = problemReply(unsupportedMediaType(contentType, expected), log);
      // A small unread body is dropped and the connection kept; a big or unknown one asks the client to hang up.
      answerNow(res, declared < 0 || declared > spec.limit ? hangingUp(reply) : reply, headOnly);
      return;
    }
    if (Number.isNaN(declared)) {
      answerNow(res, hangingUp(problemReply(badRequest(`Content-Length '${lengthHeader}' is not a number`), log)), headOnly);
      return;
    }
    if (declared > spec.limit) {
      problemNow(res, payloadTooLarge(spec.limit), headOnly);
      return;
    }

    const pending = goAsync(res, headOnly);
    readBody(res, declared, spec.limit, {
      tooLarge: () => answerLater(res, pending, problemReply(payloadTooLarge(spec.limit), log)),
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
