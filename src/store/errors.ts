/** Errors of the Store API edge, made by the factories below. */

export type StoreErrorKind = 'invalid-argument' | 'resource-exhausted' | 'unavailable';

export class StoreRequestError extends Error {
  override name = 'StoreRequestError';
  constructor(readonly kind: StoreErrorKind, message: string) {
    super(message);
  }
}

export const invalidArgument = (message: string): StoreRequestError => new StoreRequestError('invalid-argument', message);

/** A request over a configured limit; the message names the limit. */
export const limitExceeded = (message: string): StoreRequestError => new StoreRequestError('resource-exhausted', message);

export const notReady = (message: string): StoreRequestError => new StoreRequestError('unavailable', message);
