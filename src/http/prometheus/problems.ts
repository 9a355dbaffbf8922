/** Internal errors as HTTP problems, by the one table (src/errors/status.ts). */
import { httpStatusOf } from '../../errors/status.js';
import { HttpProblem } from '../errors.js';

/**
 * `err` as the HttpProblem its kind maps to, its message the detail, with
 * a Retry-After header when the error says when to retry
 * (`retryAfterSeconds`, src/errors/errors.ts). An error of no known kind is
 * our own fault: it is returned as it is, and problem-json.ts logs it and
 * answers 500 without internals.
 */
export function asProblem(err: unknown): unknown {
  if (err instanceof HttpProblem) return err;
  const status = httpStatusOf(err);
  if (status === 500) return err;
  const retryAfter = (err as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  return typeof retryAfter === 'number'
    ? new HttpProblem(status, (err as Error).message, { headers: [['Retry-After', String(retryAfter)]] })
    : new HttpProblem(status, (err as Error).message);
}
