/**
 * Every error the record store raises, made by the small factories below so
 * that messages stay uniform. Callers test with `instanceof`.
 */

/** A segment file fails its checks: it is named, never read as data. */
export class RecordsCorruptError extends Error {
  override readonly name = 'RecordsCorruptError';
  constructor(
    /** Path of the file. */
    readonly file: string,
    /** Byte offset of the header or frame that failed. */
    readonly offset: number,
    detail: string,
  ) {
    super(`record segment ${file} is corrupt at byte ${offset}: ${detail}`);
  }
}

/** A commit was refused before anything was written or applied. */
export class InvalidWriteError extends Error {
  override readonly name = 'InvalidWriteError';
  constructor(
    /** Index in the commit's ops of the op at fault, -1 for the whole commit. */
    readonly opIndex: number,
    detail: string,
  ) {
    super(opIndex >= 0 ? `invalid write op ${opIndex}: ${detail}` : `invalid commit: ${detail}`);
  }
}

/** The store cannot take writes: it is closed, or a write or fsync failed. */
export class RecordStoreStateError extends Error {
  override readonly name = 'RecordStoreStateError';
  /** 503 / Unavailable in the one status table (src/errors/status.ts): reads go on, writes cannot. */
  readonly kind = 'unavailable';
}

export function corrupt(file: string, offset: number, detail: string): RecordsCorruptError {
  return new RecordsCorruptError(file, offset, detail);
}

export function invalidOp(opIndex: number, detail: string): InvalidWriteError {
  return new InvalidWriteError(opIndex, detail);
}

export function commitTooLarge(bytes: number, max: number): InvalidWriteError {
  return new InvalidWriteError(-1, `its record of ${bytes} bytes exceeds the limit of ${max}`);
}

export function unknownCollection(name: string): RangeError {
  return new RangeError(`unknown record collection ${JSON.stringify(name)}`);
}

export function storeClosed(): RecordStoreStateError {
  return new RecordStoreStateError('record store is closed');
}

export function storeFailed(cause: unknown): RecordStoreStateError {
  return new RecordStoreStateError(`record store stopped after a failed write or fsync: ${String(cause)}`, { cause });
}

export function badOption(name: string, detail: string): RangeError {
  return new RangeError(`record store option ${name}: ${detail}`);
}
