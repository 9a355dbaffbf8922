/**
 * The errors the library throws: one small class per thing a caller may
 * want to handle differently, all under {@link StrataError}. Internal
 * errors are mapped to them in one place (error-map.ts), by the same kinds
 * that src/errors/status.ts maps to gRPC codes and HTTP statuses, so
 * a library call fails the way a remote write or a Store API call does.
 */

/**
 * What {@link StrataError.code} says, one value per class.
 *
 * @example
 * if (err instanceof StrataError && err.code === 'samples-rejected') retryLater = false;
 */
export type StrataErrorCode =
  | 'invalid-argument'
  | 'samples-rejected'
  | 'limit'
  | 'unavailable'
  | 'closed'
  | 'data-dir-in-use'
  | 'listen'
  | 'internal';

/**
 * The base class of every error the library throws on purpose. `code`
 * tells the classes apart where `instanceof` cannot (two copies of the
 * package loaded); `cause` keeps the internal error it was made from.
 *
 * @example
 * try {
 *   await store.append({ labels: { __name__: 'up' }, timestamps: [1000], values: [1] });
 * } catch (err) {
 *   if (err instanceof StrataError) console.error(err.code, err.message);
 *   else throw err;
 * }
 */
export class StrataError extends Error {
  override readonly name: string = 'StrataError';
  /**
   * Samples an append stored although the call failed (float samples and
   * native histograms): an append stores every valid sample and refuses
   * the others (as remote write does).
   * Undefined for errors of other calls.
   */
  declare written?: number;

  constructor(readonly code: StrataErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * The call asked for something invalid: an option, a label set, a
 * matcher or selector, a time. The message names what and where; retrying
 * the same call fails the same way.
 *
 * @example
 * await assert.rejects(store.append({ labels: { job: '' }, timestamps: [1], values: [1] }), InvalidArgumentError);
 */
export class InvalidArgumentError extends StrataError {
  override readonly name = 'InvalidArgumentError';

  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid-argument', message, options);
  }
}

/**
 * How many samples of an append were refused, by the rule they broke.
 *
 * @example
 * const { outOfOrder, conflict, tooOld, tooFarInFuture }: RejectedSamples = err.rejected;
 */
export interface RejectedSamples {
  /** Older than the newest sample of their series (outside the out-of-order window). */
  outOfOrder: number;
  /** A different value at a timestamp the series already holds. */
  conflict: number;
  /** Older than the store accepts (before the head's range or past retention). */
  tooOld: number;
  /** Newer than now + the too-far-in-future window. */
  tooFarInFuture: number;
}

/**
 * Some samples of an append were refused by the sample rules (out of
 * order, a conflicting value, too old, too far in the future): the rest
 * were stored (`written`). gRPC answers AlreadyExists for these, HTTP 409.
 *
 * @example
 * try {
 *   await store.append(series);
 * } catch (err) {
 *   if (!(err instanceof SamplesRejectedError)) throw err;
 *   console.warn(`${err.rejected.outOfOrder} out of order, ${err.written} stored`);
 * }
 */
export class SamplesRejectedError extends StrataError {
  override readonly name = 'SamplesRejectedError';

  constructor(message: string, readonly rejected: Readonly<RejectedSamples>, options?: { cause?: unknown }) {
    super('samples-rejected', message, options);
  }
}

/**
 * A configured limit refused the call: a write limit (requests in flight,
 * a tenant's head series, request size) or a read limit (series or
 * samples one selection may return). `retryAfterSeconds` is set when
 * waiting helps.
 *
 * @example
 * const store = await Strata.open({ dataDir, storeLimitsRequestSeries: 1000 });
 * await assert.rejects(collect(store.select('{__name__=~".+"}')), LimitError);
 */
export class LimitError extends StrataError {
  override readonly name = 'LimitError';

  constructor(message: string, readonly retryAfterSeconds?: number, options?: { cause?: unknown }) {
    super('limit', message, options);
  }
}

/**
 * The store cannot take the call now: memory pressure
 * (receiveHeapLimitRatio, receiveMemoryLimit; `retryAfterSeconds` set),
 * or an earlier write-ahead log failure (then it takes no more writes
 * until reopened).
 *
 * @example
 * try {
 *   await store.append(series);
 * } catch (err) {
 *   if (err instanceof UnavailableError && err.retryAfterSeconds !== undefined) await sleep(err.retryAfterSeconds * 1000);
 * }
 */
export class UnavailableError extends StrataError {
  override readonly name = 'UnavailableError';

  constructor(message: string, readonly retryAfterSeconds?: number, options?: { cause?: unknown }) {
    super('unavailable', message, options);
  }
}

/**
 * The store was closed (or is closing): every call but close() fails so,
 * and a selection still being read ends with it.
 *
 * @example
 * await store.close();
 * await assert.rejects(store.labelNames(), ClosedError);
 */
export class ClosedError extends StrataError {
  override readonly name = 'ClosedError';

  constructor(message = 'the store is closed') {
    super('closed', message);
  }
}

/**
 * The data directory is open already: by another process (its DATA/lock
 * names a live process), or by another Strata of this process.
 *
 * @example
 * const a = await Strata.open({ dataDir });
 * await assert.rejects(Strata.open({ dataDir }), DataDirInUseError);
 */
export class DataDirInUseError extends StrataError {
  override readonly name = 'DataDirInUseError';

  constructor(message: string, options?: { cause?: unknown }) {
    super('data-dir-in-use', message, options);
  }
}

/**
 * An address could not be listened on (taken, not an address of this
 * machine) or a listener's TLS files could not serve; the message names
 * the address or the file.
 *
 * @example
 * await assert.rejects(Strata.open({ dataDir, httpAddress: `127.0.0.1:${takenPort}` }), ListenError);
 */
export class ListenError extends StrataError {
  override readonly name = 'ListenError';

  constructor(message: string, options?: { cause?: unknown }) {
    super('listen', message, options);
  }
}

/**
 * Strata's own fault, or a failure of the machine (a disk error, a file
 * that fails its checksum): the message says what failed, `cause` is the
 * original error with its stack.
 *
 * @example
 * catch (err) { if (err instanceof InternalError) log.error({ err: err.cause }, err.message); }
 */
export class InternalError extends StrataError {
  override readonly name = 'InternalError';

  constructor(message: string, options?: { cause?: unknown }) {
    super('internal', message, options);
  }
}
