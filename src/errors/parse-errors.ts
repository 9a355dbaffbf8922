/**
 * Errors of remote-write parsing. Each carries a `kind` that the edges (gRPC,
 * HTTP) map to a status in one table, as src/errors/write-errors.ts does.
 */

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
