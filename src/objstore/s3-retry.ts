/**
 * Retries as minio-go (Thanos' S3 client) makes them: up to `max_retries`
 * attempts in all (10 when 0), sleeping 200 ms doubled per attempt, at
 * most 1 s, with full jitter, after network errors, timeouts, 408, 429,
 * 499, 5xx answers and S3's throttling codes.
 */

/** minio-go's MaxRetry: attempts per request when max_retries is 0. */
export const DEFAULT_ATTEMPTS = 10;
const UNIT_MS = 200;
const CAP_MS = 1000;

/** Attempts per request for `max_retries`. */
export function attemptsFor(maxRetries: number): number {
  return maxRetries > 0 ? maxRetries : DEFAULT_ATTEMPTS;
}

/** The sleep before attempt `attempt + 1` (attempt counts from 1), as minio's retry timer. */
export function backoffMs(attempt: number): number {
  const d = Math.min(CAP_MS, UNIT_MS * 2 ** Math.min(attempt, 16));
  return d - Math.random() * d;
}

const RETRY_STATUS = new Set([408, 429, 499, 500, 502, 503, 504, 520]);
const RETRY_CODES = new Set([
  'RequestError', 'RequestTimeout', 'Throttling', 'ThrottlingException', 'RequestLimitExceeded', 'RequestThrottled',
  'InternalError', 'ExpiredToken', 'ExpiredTokenException', 'SlowDown', 'SlowDownWrite', 'SlowDownRead',
]);
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Whether an error from the SDK is worth another attempt. */
export function isRetryable(err: unknown): boolean {
  const e = err as { name?: string; code?: string; $metadata?: { httpStatusCode?: number }; $retryable?: unknown } | undefined;
  if (e === undefined || e === null) return false;
  if (e.name === 'AbortError') return false;
  if (e.$retryable) return true;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined && RETRY_STATUS.has(status)) return true;
  if (e.name !== undefined && (RETRY_CODES.has(e.name) || e.name === 'TimeoutError')) return true;
  return e.code !== undefined && NETWORK_CODES.has(e.code);
}
