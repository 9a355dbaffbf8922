/** Internal errors as HTTP problems, by the one table (src/store/error-status.ts). */
import { httpStatusOf } from '../../store/error-status.js';
import { HttpProblem } from '../errors.js';

/**
 * `err` as the HttpProblem its kind maps to, its message the detail. An
 * error of no known kind is our own fault: it is returned as it is, and
 * problem-json.ts logs it and answers 500 without internals.
 */
export function asProblem(err: unknown): unknown {
  if (err instanceof HttpProblem) return err;
  const status = httpStatusOf(err);
  return status === 500 ? err : new HttpProblem(status, (err as Error).message);
}
