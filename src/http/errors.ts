/**
 * The errors a request can end in, as small factories. Handlers throw them;
 * `problem-json.ts` turns them (and anything unexpected) into
 * application/problem+json answers in one place.
 */
import { reasonPhrase } from './status.js';

/** One offending input field: where (a JSON pointer into the body or a query parameter name) and what is wrong. */
export interface FieldError {
  field: string;
  message: string;
}

/** An error with an HTTP status, answered as an RFC 9457 problem. */
export class HttpProblem extends Error {
  override readonly name = 'HttpProblem';
  readonly title: string;

  constructor(
    readonly status: number,
    readonly detail: string,
    readonly options: {
      /** Offending fields of invalid input. */
      errors?: FieldError[];
      /** Extra response headers (Allow on 405, Connection: close on 413). */
      headers?: ReadonlyArray<readonly [string, string]>;
    } = {},
  ) {
    super(detail);
    this.title = reasonPhrase(status);
  }
}

/** 400: the request cannot be understood (bad path parameter, bad query). */
export const badRequest = (detail: string, errors?: FieldError[]) => new HttpProblem(400, detail, errors ? { errors } : {});

/** 400: the body is not well-formed JSON. */
export const malformedJson = (reason: string) => new HttpProblem(400, `the body is not valid JSON: ${reason}`);

/** 404: no such resource or path. */
export const notFound = (detail: string) => new HttpProblem(404, detail);

/** 405: the path exists but not with this method. `allow` is the Allow header value. */
export const methodNotAllowed = (method: string, allow: string) =>
  new HttpProblem(405, `${method} is not allowed here; allowed: ${allow}`, { headers: [['Allow', allow]] });

/** 406: the path asks for a format (suffix) that is not served. */
export const notAcceptable = (suffix: string, served: readonly string[]) =>
  new HttpProblem(406, `the format '${suffix}' is not served here; use ${served.map((s) => `'${s}'`).join(' or ')} or no suffix`);

/** 409: the request conflicts with the current state (a taken unique value). */
export const conflict = (detail: string, errors?: FieldError[]) => new HttpProblem(409, detail, errors ? { errors } : {});

/**
 * 413: the body is larger than the route accepts. The answer carries
 * Connection: close: the client is to hang up rather than send the rest.
 */
export const payloadTooLarge = (limit: number) =>
  new HttpProblem(413, `the body is larger than ${limit} bytes`, { headers: [['Connection', 'close']] });

/** 415: the body's Content-Type is not one the route accepts. */
export const unsupportedMediaType = (got: string, accepted: string) =>
  new HttpProblem(415, got === '' ? `a body needs a Content-Type; send ${accepted}` : `Content-Type '${got}' is not accepted; send ${accepted}`);

/** 422: well-formed JSON that is not a valid resource. */
export const invalidInput = (errors: FieldError[]) =>
  new HttpProblem(422, `the body is not valid: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`, { errors });

/** 503: the server is stopping or not ready. */
export const unavailable = (detail: string) => new HttpProblem(503, detail);
