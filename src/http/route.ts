/**
 * What a route is: its method and path, how its body is read, its handler
 * and its documentation. Modules register routes on a {@link Router}
 * without knowing about each other or about uWebSockets.js.
 */
import type { TSchema } from '@sinclair/typebox';
import type { HttpProblem } from './errors.js';

/** Methods a route can be registered for (HEAD and OPTIONS are answered for every path). */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How the request body is read before the handler runs.
 * - `none`: the body, if any, is ignored (uWebSockets.js discards it).
 * - `json`: Content-Type must be JSON (application/json or any +json, UTF-8);
 *   the body is parsed; the handler gets the parsed value.
 * - `raw`: the handler gets the bytes; `contentTypes`, when given, lists the
 *   accepted media types (lower case, no parameters).
 * `limit` is in bytes: a longer body is answered 413 without being read
 * further and the connection is closed.
 */
export type BodySpec =
  | { kind: 'none' }
  | { kind: 'json'; limit: number }
  | { kind: 'raw'; limit: number; contentTypes?: readonly string[] };

/** What a handler sees. Everything is copied out of uWebSockets.js' request, so it stays valid across awaits. */
export interface RequestContext {
  /** Upper case, as registered (a HEAD request runs the GET handler with method 'GET'). */
  readonly method: Method;
  /** The path without the query string, without the format suffix. */
  readonly path: string;
  /** Path parameters in pattern order, percent-decoded, format suffix removed. */
  readonly params: readonly string[];
  /** The raw query string without '?', '' when none. */
  readonly query: string;
  /** The format suffix the path carried ('.json'), '' when none. */
  readonly suffix: string;
  /** The headers the route asked for (lower-case names), '' when absent. */
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON for `json` bodies, the bytes for `raw`, undefined for `none`. */
  readonly body: unknown;
}

/** A complete answer. `body` bytes are copied out before the handler's promise settles further. */
export interface Reply {
  status: number;
  /** Defaults to application/json when there is a body. */
  contentType?: string;
  headers?: ReadonlyArray<readonly [string, string]>;
  body?: Uint8Array | string;
  /**
   * A body written piece by piece instead of `body` (which is then ignored):
   * called once status and headers are out; the answer uses chunked
   * transfer encoding and ends when the promise resolves. If it rejects
   * after the client went away nothing more happens; otherwise the error is
   * logged and the connection closed, so the client sees a truncated answer
   * rather than a complete one. Errors the client should see as a status
   * must be thrown before the reply is returned.
   */
  stream?: (sink: ResponseSink) => Promise<void>;
}

/** Where a streamed body goes (see {@link Reply.stream}). */
export interface ResponseSink {
  /**
   * Writes the next piece of the body; the bytes are copied, so the caller
   * may reuse `chunk` at once. Resolves when more may be written (at once,
   * or once the socket drained: backpressure); rejects once the client has
   * gone away.
   */
  write(chunk: Uint8Array): Promise<void>;
  /** True once the client went away: stop producing. */
  readonly aborted: boolean;
}

/** A handler answers synchronously (the fast path) or with a promise; it throws HttpProblem for errors. */
export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

/** A response as documented in OpenAPI. */
export interface ResponseDoc {
  description: string;
  /** JSON Schema of the body; omitted when there is none. */
  schema?: TSchema;
  /** Media type of the body; application/json by default. */
  contentType?: string;
  /** Header names set on this response, documented as strings. */
  headers?: Record<string, string>;
}

/** OpenAPI documentation of a route; the schemas are the same objects validation uses. */
export interface RouteDoc {
  summary: string;
  tag: string;
  operationId: string;
  /** Path parameter schemas by name. */
  params?: Record<string, TSchema>;
  /** Query parameter schemas by name. */
  query?: Record<string, TSchema>;
  /** JSON Schema of the request body (json routes). */
  requestBody?: TSchema;
  /** An example body for the explorer's form. */
  example?: unknown;
  responses: Record<number, ResponseDoc>;
}

/** One route. `path` segments are literal or `:name`; `suffixes` lists format suffixes the last segment may carry. */
export interface RouteSpec {
  method: Method;
  path: string;
  body: BodySpec;
  /** Lower-case names of request headers to copy into the context. */
  headers?: readonly string[];
  /** Format suffixes accepted on the last segment ('.json'); any other suffix there answers 406. */
  suffixes?: readonly string[];
  handler: Handler;
  /**
   * How this route words a refusal (its handler's errors, and a body over
   * its limit), given the problem and the request's headers; by default an
   * application/problem+json document (problem-json.ts). For protocols
   * that define their own error body, such as OTLP/HTTP's google.rpc.Status.
   */
  refusal?: (problem: HttpProblem, headers: RequestContext['headers']) => Reply;
  /** Routes without docs are left out of OpenAPI and the explorer. */
  doc?: RouteDoc;
}
