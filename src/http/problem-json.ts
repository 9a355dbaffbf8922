/**
 * The one place where errors become answers: an {@link HttpProblem} becomes
 * an RFC 9457 application/problem+json reply with its status; anything else
 * is our own fault, logged and answered 500 without internals.
 */
import type { Logger } from 'pino';
import { HttpProblem } from './errors.js';
import { errorKind, httpStatusOf } from '../errors/status.js';
import type { Reply } from './route.js';

/** The media type of every error answer (RFC 9457). */
export const PROBLEM_JSON = 'application/problem+json';

/** The problem document's shape. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: Array<{ field: string; message: string }>;
}

/** The reply for `err`. */
export function problemReply(err: unknown, log?: Logger): Reply {
  const problem = asHttpProblem(err, log);
  const body: ProblemBody = { type: 'about:blank', title: problem.title, status: problem.status, detail: problem.detail };
  if (problem.options.errors !== undefined) body.errors = problem.options.errors;
  return {
    status: problem.status,
    contentType: PROBLEM_JSON,
    ...(problem.options.headers !== undefined ? { headers: problem.options.headers } : {}),
    body: JSON.stringify(body),
  };
}

/**
 * `err` as the HttpProblem it is answered as: itself, its kind's status
 * by the one table, or (our own fault, logged) a 500 without internals.
 */
export function asHttpProblem(err: unknown, log?: Logger): HttpProblem {
  return err instanceof HttpProblem ? err : errorKind(err) !== undefined ? new HttpProblem(httpStatusOf(err), (err as Error).message) : internalError(err, log);
}

function internalError(err: unknown, log?: Logger): HttpProblem {
  log?.error({ err }, 'request failed');
  return new HttpProblem(500, 'the server failed to answer this request; the error is logged');
}
