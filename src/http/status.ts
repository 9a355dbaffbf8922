/**
 * HTTP status lines, encoded once: uWebSockets.js copies bytes faster than
 * it converts strings, and the hot paths write a status on every response.
 */
import { STATUS_CODES } from 'node:http';

const lines = new Map<number, Uint8Array>();

/** The reason phrase of `status` ("Not Found"), or "Unknown". */
export function reasonPhrase(status: number): string {
  return STATUS_CODES[status] ?? 'Unknown';
}

/** `"404 Not Found"` as UTF-8 bytes, cached per status. */
export function statusLine(status: number): Uint8Array {
  let line = lines.get(status);
  if (line === undefined) {
    line = Buffer.from(`${status} ${reasonPhrase(status)}`);
    lines.set(status, line);
  }
  return line;
}
