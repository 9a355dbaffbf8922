/** Errors of the Store API edge, made by the factories below. */

export type StoreErrorKind = 'invalid-argument' | 'resource-exhausted' | 'unavailable' | 'cancelled' | 'internal';

export class StoreRequestError extends Error {
  override name = 'StoreRequestError';
  constructor(readonly kind: StoreErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export const invalidArgument = (message: string): StoreRequestError => new StoreRequestError('invalid-argument', message);

/** A request over a configured limit; the message names the limit. */
export const limitExceeded = (message: string): StoreRequestError => new StoreRequestError('resource-exhausted', message);

export const notReady = (message: string): StoreRequestError => new StoreRequestError('unavailable', message);

/** The caller went away (cancelled, deadline passed, connection closed): the answer stops there. */
export const callCancelled = (message: string): StoreRequestError => new StoreRequestError('cancelled', message);

/**
 * Our own fault, said plainly: what failed and where. `cause` keeps the
 * original error (and its stack) for the log.
 */
export const internalError = (message: string, cause: unknown): StoreRequestError => new StoreRequestError('internal', message, { cause });
