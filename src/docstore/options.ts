/**
 * Options of openRecordStore, with their defaults and checks.
 */
import { badOption } from './errors.js';

/** Any pino-like logger: an object first, then the message. */
export interface RecordsLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Where a compaction is; each step's files are durable when it is reported. */
export type CompactionStep = 'written' | 'renamed' | 'installed';

export interface RecordStoreOptions {
  /**
   * Size at which the active segment is sealed and a new one begun, in
   * bytes. Default 64 MiB: big enough that rolls (and their one synchronous
   * fdatasync) are rare, small enough that a compaction rewrites a bounded
   * amount. A single bigger record gets a segment of its own size.
   */
  segmentBytes?: number;
  /**
   * Fraction of a sealed segment's op bytes that must be dead (superseded
   * or deleted) before a background compaction rewrites it. Default 0.5:
   * space stays within about twice the live data, and each rewrite frees at
   * least as much as it copies. 0 compacts any garbage; above 1 never runs.
   */
  compactRatio?: number;
  /** Logger for recovery and compaction events. Default: silent. */
  logger?: RecordsLogger;
  /**
   * Called once if a write or fsync fails after records were applied in
   * memory: memory and disk may no longer agree. Default: log the error and
   * rethrow it outside any promise, which ends the process.
   */
  onFatal?: (err: unknown) => void;
  /** Test hook: called after each durable step of a compaction. */
  onCompactionStep?: (step: CompactionStep) => void | Promise<void>;
}

export interface ResolvedOptions {
  segmentBytes: number;
  compactRatio: number;
  logger: RecordsLogger;
  onFatal: (err: unknown) => void;
  onCompactionStep: ((step: CompactionStep) => void | Promise<void>) | undefined;
}

/** Smallest segment: a header and a few small records. */
const MIN_SEGMENT_BYTES = 4 * 1024;
/** Map sizes stay well inside 32 bits (an older addon took them as a 32-bit int). */
const MAX_SEGMENT_BYTES = 1024 * 1024 * 1024;

const silent: RecordsLogger = { info() {}, warn() {}, error() {} };

export function resolveOptions(o: RecordStoreOptions = {}): ResolvedOptions {
  const segmentBytes = o.segmentBytes ?? 64 * 1024 * 1024;
  if (!Number.isInteger(segmentBytes) || segmentBytes < MIN_SEGMENT_BYTES || segmentBytes > MAX_SEGMENT_BYTES) {
    throw badOption('segmentBytes', `${segmentBytes} is not an integer in ${MIN_SEGMENT_BYTES}..${MAX_SEGMENT_BYTES}`);
  }
  const compactRatio = o.compactRatio ?? 0.5;
  if (!(compactRatio >= 0)) throw badOption('compactRatio', `${compactRatio} is not a number >= 0`);
  const logger = o.logger ?? silent;
  const onFatal = o.onFatal ?? ((err: unknown) => {
    logger.error({ err }, 'record store: a write or fsync failed; stopping');
    process.nextTick(() => { throw err; });
  });
  return { segmentBytes, compactRatio, logger, onFatal, onCompactionStep: o.onCompactionStep };
}
