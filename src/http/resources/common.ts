/** Small pieces every resource uses. */
import { invalidInput, notFound } from '../errors.js';
import { PROBLEM_JSON } from '../problem-json.js';
import type { BodySpec, Reply } from '../route.js';
import { Problem } from '../schemas/common.js';

/** Resource bodies are small documents; 1 MiB bounds what one request can make the server hold. */
export const JSON_BODY_LIMIT = 1024 * 1024;

/** The body spec of every resource write. */
export const JSON_BODY: BodySpec = { kind: 'json', limit: JSON_BODY_LIMIT };

/** The body spec of routes that take no body. */
export const NO_BODY: BodySpec = { kind: 'none' };

/** 200 with `value` as JSON. */
export function ok(value: unknown): Reply {
  return { status: 200, body: JSON.stringify(value) };
}

/** 201 with `value` as JSON and, when given, a Location header. */
export function created(value: unknown, location?: string): Reply {
  return { status: 201, body: JSON.stringify(value), ...(location !== undefined ? { headers: [['Location', location]] } : {}) };
}

/** 204 without a body. */
export const NO_CONTENT: Reply = Object.freeze({ status: 204 });

/** 404 for a missing record. */
export function missing(kind: string, id: number) {
  return notFound(`${kind} ${id} does not exist`);
}

/** 422 when a body's id disagrees with the path's. */
export function checkBodyId(bodyId: number | undefined, pathId: number): void {
  if (bodyId !== undefined && bodyId !== pathId) {
    throw invalidInput([{ field: 'id', message: `must equal the id in the path (${pathId}) when given` }]);
  }
}

/** A documented problem response. */
const problem = (description: string) => ({ description, schema: Problem, contentType: PROBLEM_JSON });

/** Documented error responses, by status. */
export const problems = {
  400: problem('malformed: bad id or query parameter, or a body that is not JSON'),
  404: problem('no such resource'),
  406: problem('a format suffix other than .json'),
  409: problem('the email belongs to another user'),
  413: problem('the body is over 1 MiB'),
  415: problem('the body is not application/json'),
  422: problem('valid JSON, invalid resource; `errors` names the fields'),
} as const;
