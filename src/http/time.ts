/** Timestamps as resources carry them. */

/** Now as RFC 3339 in UTC with milliseconds, e.g. 2026-11-21T07:04:18.123Z. */
export function nowRfc3339(): string {
  return new Date().toISOString();
}
