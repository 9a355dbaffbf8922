/**
 * The errors of requests and the write path, made by the factories below.
 * Each carries a `kind` that the edges (gRPC, HTTP, the library) map in
 * one table (status.ts); messages say what was wrong and where. Errors of
 * one part only (a matcher's, a chunk's, a file's) live with that part
 * and carry their kind too.
 */

// Requests: what a call asked for, and whether it can be served now.

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

// The write path: label sets, samples, the store's state.

/** Why a sample was not stored. */
export type RejectReason = 'out-of-order' | 'conflict' | 'too-old' | 'too-far-in-future';

/** A label set the store cannot accept (InvalidArgument / HTTP 400). */
export class InvalidLabelsError extends Error {
  readonly kind = 'invalid-labels';
  override name = 'InvalidLabelsError';
}

/** Samples were rejected by the sample rules (AlreadyExists / HTTP 409). */
export class SamplesRejectedError extends Error {
  readonly kind = 'samples-rejected';
  override name = 'SamplesRejectedError';
  constructor(message: string, readonly counts: Readonly<Record<RejectReason, number>>) {
    super(message);
  }
}

/** The store cannot take writes (Unavailable / HTTP 503). */
export class StoreUnavailableError extends Error {
  readonly kind = 'unavailable';
  override name = 'StoreUnavailableError';
}

export const invalidLabels = (detail: string): InvalidLabelsError => new InvalidLabelsError(`invalid labels: ${detail}`);

export const storeUnavailable = (detail: string): StoreUnavailableError => new StoreUnavailableError(`store unavailable: ${detail}`);

// Parsing a remote-write request.

/**
 * The bytes are not a valid WriteRequest (InvalidArgument / HTTP 400).
 * `offset` is the byte of the request where reading failed.
 */
export class MalformedRequestError extends Error {
  readonly kind = 'malformed-request';
  override name = 'MalformedRequestError';
  constructor(readonly offset: number, readonly detail: string) {
    super(`malformed write request at byte ${offset}: ${detail}`);
  }
}

/** Bytes that are not a valid protobuf message, with what and where. */
export const malformedRequest = (offset: number, detail: string): MalformedRequestError =>
  new MalformedRequestError(offset, detail);

/** A parse option the caller got wrong (a programming error, not a bad request). */
export const badParseOption = (detail: string): RangeError => new RangeError(`parseWriteRequest: ${detail}`);
