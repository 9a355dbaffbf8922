/**
 * Block identifiers: ULIDs (26 characters of Crockford base32, 48 bits of
 * milliseconds then 80 random bits), as Prometheus names its blocks.
 */
import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

/**
 * A new ULID for time `timeMs` (default now). Monotonic within the process:
 * an ID for a time not after the previous one's is the previous ID plus one
 * (keeping the previous time), so IDs made in a row always sort in order.
 */
export function newUlid(timeMs?: number): string {
  if (timeMs !== undefined && (!Number.isSafeInteger(timeMs) || timeMs < 0 || timeMs > 2 ** 48 - 1)) {
    throw new RangeError(`ULID time ${timeMs} is not an integer in 0..2^48-1`);
  }
  return next(timeMs);
}

const ULID_RE = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/** Whether `s` is a ULID in canonical form (upper case, no I, L, O, U, within 128 bits). */
export function isUlid(s: unknown): s is string {
  return typeof s === 'string' && ULID_RE.test(s);
}
