/**
 * Content-Length values Strata does not read a body for, answered in the
 * request handler, which then closes the connection itself.
 *
 * uWebSockets.js reads Content-Length only after the handler has returned.
 * A value it cannot frame (more than 18 digits, or anything but digits)
 * then gets its own "400 Bad Request" page after whatever the handler
 * wrote, and the connection closed: two answers. A value it frames but
 * that declares a gigabyte or more would have it wait for, read and drop
 * that body. Go's net/http answers such a request 413 (too large) or 400
 * (malformed) and hangs up, and so does Strata: the answer is padded past
 * the cork buffer, which makes uWebSockets.js send it to the socket while
 * the handler runs, and the handler then closes the connection, which ends
 * uWebSockets.js' parsing of the request before it looks at the header.
 */
import { badRequest, payloadTooLarge, type HttpProblem } from './errors.js';
import type { Reply } from './route.js';
import { UWS_CONTENT_LENGTH_DIGITS, UWS_CORK_BUFFER_BYTES } from './uws.js';

/**
 * The longest Content-Length Strata reads a body for: 9 digits, under a
 * gigabyte, within what uWebSockets.js frames ({@link UWS_CONTENT_LENGTH_DIGITS}).
 */
export const MAX_LENGTH_DIGITS = Math.min(9, UWS_CONTENT_LENGTH_DIGITS);

/** The largest body Strata reads, whatever a route's limit says. */
export const MAX_BODY_BYTES = 10 ** MAX_LENGTH_DIGITS - 1;

/** How much of a bad header value an answer quotes. */
const QUOTED = 32;

/** Whether Strata reads a body with this Content-Length value ('' when absent). */
export function framable(value: string): boolean {
  if (value.length > MAX_LENGTH_DIGITS) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/**
 * The answer to a Content-Length value Strata does not frame: 413 when it
 * is a number over `limit` (the route's body limit, or the largest body
 * Strata reads for a route that takes no body), else 400.
 */
export function unframableLength(value: string, limit: number): HttpProblem {
  const quoted = value.length > QUOTED ? `${value.slice(0, QUOTED)}...` : value;
  if (!/^[0-9]+$/.test(value)) return badRequest(`Content-Length '${quoted}' is not a number`);
  const most = Math.min(limit, MAX_BODY_BYTES);
  // Leading zeros are all that can bring a 10-digit length under the limit.
  if (BigInt(value) > BigInt(most)) return payloadTooLarge(most);
  return badRequest(`Content-Length '${quoted}' has more than ${MAX_LENGTH_DIGITS} digits; send it without leading zeros`);
}

/**
 * `reply` with its body padded with spaces (JSON whitespace) to one cork
 * buffer: written in one piece, such a body does not fit in what is left
 * of the buffer after the status and headers, and goes out at once.
 */
export function pastCorkBuffer(reply: Reply): Reply {
  const body = Buffer.from(reply.body ?? '');
  if (body.length >= UWS_CORK_BUFFER_BYTES) return reply;
  const padded = Buffer.alloc(UWS_CORK_BUFFER_BYTES, 0x20);
  body.copy(padded);
  return { ...reply, body: padded };
}
