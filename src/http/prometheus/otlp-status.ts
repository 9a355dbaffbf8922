/**
 * OTLP/HTTP's failure body (the OTLP specification, "OTLP/HTTP Response",
 * "Failures"): every 4xx and 5xx answer carries a google.rpc.Status, in
 * the request's encoding: protobuf for application/x-protobuf, the JSON
 * mapping for application/json (the response's Content-Type is the
 * request's). The specification does not use Status.code and lets servers
 * leave it out: it is left out; Status.message is the problem's detail.
 * A request of another content type (refused 415) is answered in
 * protobuf, OTLP's default encoding. The status code and headers
 * (Retry-After on 429 and 503) are the problem's.
 */
import type { HttpProblem } from '../errors.js';
import type { Reply } from '../route.js';
import { mediaType } from '../content-type.js';
import { uvarintBytes } from '../../encoding/varint.js';

/** OTLP/HTTP's two encodings, by Content-Type. */
export const PROTOBUF = 'application/x-protobuf';
export const JSON_TYPE = 'application/json';
/** google.rpc.Status.message: field 2, length-delimited. */
const STATUS_MESSAGE_TAG = (2 << 3) | 2;

const encoder = new TextEncoder();

/** google.rpc.Status {message} as protobuf. */
export function statusProtobuf(message: string): Uint8Array {
  if (message === '') return new Uint8Array(0);
  const text = encoder.encode(message);
  return Uint8Array.from([STATUS_MESSAGE_TAG, ...uvarintBytes(text.length), ...text]);
}

/** The reply refusing an OTLP request (RouteSpec.refusal). */
export function otlpRefusal(problem: HttpProblem, headers: Readonly<Record<string, string>>): Reply {
  const json = mediaType(headers['content-type'] ?? '') === JSON_TYPE;
  return {
    status: problem.status,
    contentType: json ? JSON_TYPE : PROTOBUF,
    ...(problem.options.headers === undefined ? {} : { headers: problem.options.headers }),
    body: json ? JSON.stringify({ message: problem.detail }) : statusProtobuf(problem.detail),
  };
}
