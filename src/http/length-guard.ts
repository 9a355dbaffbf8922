/**
 * Content-Length values uWebSockets.js cannot frame, answered before it
 * hangs up.
 *
 * Its parser runs the request handler first and reads Content-Length only
 * afterwards; a value of more than 9 digits, or with anything but digits,
 * then closes the connection at once (see uws.ts), and what the handler
 * wrote is lost in the cork buffer: the client got no answer at all. Go's
 * net/http answers such a request 413 (too large) or 400 (malformed), and
 * so does Strata: the answer is padded past the cork buffer, which makes
 * uWebSockets.js send it to the socket while the handler runs, before it
 * closes.
 */
import { badRequest, payloadTooLarge, type HttpProblem } from './errors.js';
import type { Reply } from './route.js';
import { UWS_CONTENT_LENGTH_DIGITS, UWS_CORK_BUFFER_BYTES } from './uws.js';

/** The largest body uWebSockets.js reads: 9 digits. */
export const UWS_MAX_BODY_BYTES = 10 ** UWS_CONTENT_LENGTH_DIGITS - 1;

/** How much of a bad header value an answer quotes. */
const QUOTED = 32;

/** Whether uWebSockets.js frames a request with this Content-Length value ('' when absent). */
export function framable(value: string): boolean {
  if (value.length > UWS_CONTENT_LENGTH_DIGITS) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/**
 * The answer to a Content-Length value uWebSockets.js cannot frame: 413
 * when it is a number over `limit` (the route's body limit, or what
 * uWebSockets.js reads at most for a route that takes no body), else 400.
 */
export function unframableLength(value: string, limit: number): HttpProblem {
  const quoted = value.length > QUOTED ? `${value.slice(0, QUOTED)}...` : value;
  if (!/^[0-9]+$/.test(value)) return badRequest(`Content-Length '${quoted}' is not a number`);
  const most = Math.min(limit, UWS_MAX_BODY_BYTES);
  // Leading zeros are all that can bring a 10-digit length under the limit.
  if (BigInt(value) > BigInt(most)) return payloadTooLarge(most);
  return badRequest(`Content-Length '${quoted}' has more than ${UWS_CONTENT_LENGTH_DIGITS} digits; send it without leading zeros`);
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
