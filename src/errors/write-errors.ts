/**
 * Errors of the write path. Each carries a `kind` that the edges (gRPC,
 * HTTP) map to a status in one table; messages say what and where.
 */

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
