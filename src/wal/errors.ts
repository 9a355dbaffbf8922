/**
 * Errors of the write-ahead log. Callers test with `instanceof` and read
 * the fields; the messages are for people and name the file and offset.
 */

/**
 * A WAL file fails its checks somewhere a torn write cannot explain: not
 * at the tail of the last segment, or with more data after the damage.
 * Start-up must stop: reading on would lose or invent records.
 */
export class WalCorruptionError extends Error {
  override readonly name = 'WalCorruptionError';
  constructor(
    /** Path of the damaged file. */
    readonly file: string,
    /** Byte offset in `file` of the header or record that failed. */
    readonly offset: number,
    /** What failed, in a few words. */
    readonly reason: string,
  ) {
    super(`WAL corruption in ${file} at byte ${offset}: ${reason}`);
  }
}

/** Why an operation on an open WAL was refused. */
export type WalErrorReason = 'closed' | 'failed' | 'bad-record-type' | 'payload-too-large' | 'bad-checkpoint' | 'bad-options';

/** A WAL refused an operation (misuse, or after a failed write or fsync). */
export class WalError extends Error {
  override readonly name = 'WalError';
  constructor(readonly reason: WalErrorReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export function corruption(file: string, offset: number, reason: string): WalCorruptionError {
  return new WalCorruptionError(file, offset, reason);
}

/** Why replay found a gap in the segments' numbers (reported as damage, not thrown). */
export function missingSegmentsReason(from: number, to: number): string {
  return `${from === to ? `segment ${from} is` : `segments ${from}..${to} are`} missing before this file`;
}

/** A write that kept returning 0 bytes: the loop that resumes short writes must not spin. */
export function writeStalled(file: string): Error {
  return new Error(`write to ${file} made no progress`);
}

export function walClosed(): WalError {
  return new WalError('closed', 'WAL is closed');
}

/** Raised on every write after a write or fsync failed: memory and disk may no longer agree. */
export function walFailed(cause: unknown): WalError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new WalError('failed', `WAL refuses writes after an earlier failure: ${detail}`, { cause });
}

export function badRecordType(type: number): WalError {
  return new WalError('bad-record-type', `WAL record type must be an integer in 1..255, got ${type}`);
}

export function payloadTooLarge(bytes: number, max: number): WalError {
  return new WalError('payload-too-large', `WAL record payload of ${bytes} bytes exceeds the limit of ${max}`);
}

export function badCheckpoint(n: number, detail: string): WalError {
  return new WalError('bad-checkpoint', `WAL checkpoint ${n} refused: ${detail}`);
}

export function badOptions(detail: string): WalError {
  return new WalError('bad-options', `WAL options: ${detail}`);
}
