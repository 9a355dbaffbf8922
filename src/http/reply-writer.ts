/** Writes a {@link Reply} to a uWebSockets.js response in one corked burst. */
import type { Reply } from './route.js';
import { statusLine } from './status.js';
import type { HttpResponse } from './uws.js';

// Encoded once: uWebSockets.js copies bytes without converting strings.
const CONTENT_TYPE = Buffer.from('Content-Type');
const CONTENT_LENGTH = Buffer.from('Content-Length');
const APPLICATION_JSON = Buffer.from('application/json');

/**
 * Writes status, headers and body. The caller corks (or is inside the
 * request handler's first tick, which uWebSockets.js corks). For HEAD
 * (`headOnly`) the body's length is announced and the body left out;
 * `closeConnection` closes the connection after the answer.
 */
export function writeReply(res: HttpResponse, reply: Reply, headOnly: boolean, closeConnection: boolean): void {
  res.writeStatus(statusLine(reply.status));
  const body = reply.body;
  if (body !== undefined) res.writeHeader(CONTENT_TYPE, reply.contentType ?? APPLICATION_JSON);
  const headers = reply.headers;
  if (headers !== undefined) for (let i = 0; i < headers.length; i++) res.writeHeader(headers[i]![0], headers[i]![1]);
  // This uWS build misreads endWithoutBody(undefined, ...) as a pending body, so
  // only its no-argument form (no Content-Length written) and numeric forms are used.
  if (body === undefined) {
    // 204 and 304 carry no Content-Length unless the connection closes; other statuses announce 0.
    if (reply.status !== 204 && reply.status !== 304) res.end('', closeConnection);
    else if (closeConnection) res.endWithoutBody(0, true);
    else res.endWithoutBody();
  } else if (headOnly) {
    // endWithoutBody(length) would wait for the body; announce it by hand. (HEAD keeps the connection.)
    res.writeHeader(CONTENT_LENGTH, String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength));
    res.endWithoutBody();
  } else {
    res.end(body, closeConnection);
  }
}
