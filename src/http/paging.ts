/**
 * Lists: `?limit=N` (1-1000, default 100) and `?after=ID` page through
 * records in id order; while more remain the answer carries
 * `Link: <same query, after=last id>; rel="next"`.
 */
import { badRequest } from './errors.js';
import type { Reply } from './route.js';

/** Page size when none is asked for. */
export const DEFAULT_LIMIT = 100;
/** The largest page: bounds the work and the answer of one request. */
export const MAX_LIMIT = 1000;

/** A parsed page request. */
export interface Page {
  limit: number;
  after: number;
  /** The whole query, kept to build the next link. */
  query: URLSearchParams;
}

function wholeNumber(query: URLSearchParams, name: string, min: number, max: number, fallback: number): number {
  const text = query.get(name);
  if (text === null) return fallback;
  const value = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (!(value >= min && value <= max)) {
    throw badRequest(`query parameter ${name}='${text}' must be an integer from ${min} to ${max}`, [
      { field: name, message: `must be an integer from ${min} to ${max}` },
    ]);
  }
  return value;
}

/** Parses limit and after from a raw query string. Throws HttpProblem 400 when they are malformed. */
export function parsePage(rawQuery: string): Page {
  const query = new URLSearchParams(rawQuery);
  return {
    limit: wholeNumber(query, 'limit', 1, MAX_LIMIT, DEFAULT_LIMIT),
    after: wholeNumber(query, 'after', 0, Number.MAX_SAFE_INTEGER, 0),
    query,
  };
}

/** An optional true/false query parameter. Throws HttpProblem 400 for other values. */
export function booleanParam(query: URLSearchParams, name: string): boolean | undefined {
  const text = query.get(name);
  if (text === null) return undefined;
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw badRequest(`query parameter ${name}='${text}' must be true or false`, [{ field: name, message: 'must be true or false' }]);
}

const OPEN = 0x5b; // [
const COMMA = 0x2c;
const CLOSE = 0x5d; // ]

/**
 * A JSON array answer from stored JSON records, taken in id order from
 * `records` (which may hold more than a page: one past the page is read to
 * know whether a next link is due). The stored bytes are joined as they
 * are, not parsed and serialised again.
 */
export function listReply(records: Iterable<readonly [number, Uint8Array]>, page: Page, path: string): Reply {
  const parts: Uint8Array[] = [];
  let bytes = 2;
  let lastId = 0;
  let more = false;
  for (const [id, json] of records) {
    if (parts.length === page.limit) {
      more = true;
      break;
    }
    parts.push(json);
    bytes += json.byteLength + 1;
    lastId = id;
  }
  const body = Buffer.allocUnsafe(parts.length === 0 ? 2 : bytes - 1);
  let at = 0;
  body[at++] = OPEN;
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) body[at++] = COMMA;
    body.set(parts[i]!, at);
    at += parts[i]!.byteLength;
  }
  body[at] = CLOSE;
  if (!more) return { status: 200, body };
  const next = new URLSearchParams(page.query);
  next.set('after', String(lastId));
  next.set('limit', String(page.limit));
  return { status: 200, body, headers: [['Link', `<${path}?${next.toString()}>; rel="next"`]] };
}
