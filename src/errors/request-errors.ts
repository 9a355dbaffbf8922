/** Errors of the Store API edge, made by the factories below. */

export type StoreErrorKind = 'invalid-argument' | 'resource-exhausted' | 'rate-limited' | 'unavailable' | 'cancelled' | 'internal';

export class StoreRequestError extends Error {
  override name = 'StoreRequestError';
  /** Seconds after which a retry may succeed (HTTP Retry-After), when the refusal is temporary. */
  retryAfterSeconds?: number;
  constructor(readonly kind: StoreErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export const invalidArgument = (message: string): StoreRequestError => new StoreRequestError('invalid-argument', message);

/** A request over a configured limit; the message names the limit. */
export const limitExceeded = (message: string): StoreRequestError => new StoreRequestError('resource-exhausted', message);

export const notReady = (message: string): StoreRequestError => new StoreRequestError('unavailable', message);

/**
 * A write refused for now (too many in flight, a tenant at its head series
 * limit): HTTP 429, gRPC ResourceExhausted; with Retry-After when given.
 */
export const tooManyRequests = (message: string, retryAfterSeconds?: number): StoreRequestError =>
  withRetryAfter(new StoreRequestError('rate-limited', message), retryAfterSeconds);

/** The server cannot take the write now (memory pressure): HTTP 503 with Retry-After, gRPC Unavailable. */
export const overloaded = (message: string, retryAfterSeconds: number): StoreRequestError =>
  withRetryAfter(new StoreRequestError('unavailable', message), retryAfterSeconds);

function withRetryAfter(err: StoreRequestError, seconds: number | undefined): StoreRequestError {
  if (seconds !== undefined) err.retryAfterSeconds = seconds;
  return err;
}

/** The caller went away (cancelled, deadline passed, connection closed): the answer stops there. */
export const callCancelled = (message: string): StoreRequestError => new StoreRequestError('cancelled', message);

/**
 * Our own fault, said plainly: what failed and where. `cause` keeps the
 * original error (and its stack) for the log.
 */
export const internalError = (message: string, cause: unknown): StoreRequestError => new StoreRequestError('internal', message, { cause });
