import { badOptions } from './errors.js';
import type { ReplayProgress } from './replay-progress.js';

/** The log calls the WAL makes; a pino logger fits. */
export interface WalLog {
  info(o: object, msg: string): void;
  warn(o: object, msg: string): void;
  error(o: object, msg: string): void;
}

export interface WalOptions {
  /** The WAL's directory (DATA/wal); created if missing. Nothing else should live in it. */
  dir: string;
  /**
   * A record that would take the open segment past this many bytes goes to
   * a new segment (a record larger than this gets a segment of its own).
   * Default DEFAULT_SEGMENT_BYTES.
   */
  segmentBytes?: number;
  /**
   * Milliseconds between fsyncs of the open segment, made only when
   * something was written since the last one. 0 starts an fsync right after
   * every append (appends made while one runs share the next): for tests.
   * Default DEFAULT_FSYNC_INTERVAL_MS.
   */
  fsyncIntervalMs?: number;
  /** Where torn tails, clean-ups and fsync failures are reported. Default: nowhere. */
  log?: WalLog;
  /** Updated as the replay at open reads each file (for a progress metric). Default: kept nowhere. */
  replayProgress?: ReplayProgress;
}

/**
 * 128 MiB, Prometheus' WAL segment size: a roll (fsync, close, create) is
 * rare even at hundreds of MB/s, while a checkpoint can still free space in
 * steps small next to a disk, and replay's one-file buffer stays modest.
 */
export const DEFAULT_SEGMENT_BYTES = 128 * 1024 * 1024;

/**
 * 1 s. A write that returned is in the page cache, so kill -9 loses
 * nothing; the interval only bounds what a power loss or kernel crash can
 * take (about one second of batches, the window of MySQL's
 * innodb_flush_log_at_trx_commit=2). At the engine's target rate (tens of
 * MB/s of WAL) one fsync a second flushes tens of MB, which keeps one pool
 * thread busy a small fraction of the time; much shorter intervals buy
 * little safety for many more journal commits.
 */
export const DEFAULT_FSYNC_INTERVAL_MS = 1000;

/** Smallest segment size accepted: a header and some records; smaller would roll on every append. */
export const MIN_SEGMENT_BYTES = 4096;

const silent: WalLog = { info() {}, warn() {}, error() {} };

export interface ResolvedWalOptions {
  dir: string;
  segmentBytes: number;
  fsyncIntervalMs: number;
  log: WalLog;
  replayProgress: ReplayProgress | undefined;
}

/** Options with defaults filled in; throws a WalError on a value out of range. */
export function resolveWalOptions(o: WalOptions): ResolvedWalOptions {
  const segmentBytes = o.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
  if (!Number.isSafeInteger(segmentBytes) || segmentBytes < MIN_SEGMENT_BYTES) {
    throw badOptions(`segmentBytes must be an integer >= ${MIN_SEGMENT_BYTES}, got ${segmentBytes}`);
  }
  const fsyncIntervalMs = o.fsyncIntervalMs ?? DEFAULT_FSYNC_INTERVAL_MS;
  if (!Number.isSafeInteger(fsyncIntervalMs) || fsyncIntervalMs < 0) {
    throw badOptions(`fsyncIntervalMs must be an integer >= 0, got ${fsyncIntervalMs}`);
  }
  if (typeof o.dir !== 'string' || o.dir === '') throw badOptions('dir must be a non-empty path');
  return { dir: o.dir, segmentBytes, fsyncIntervalMs, log: o.log ?? silent, replayProgress: o.replayProgress };
}
