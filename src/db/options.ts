/** The log calls the engine makes; a pino logger fits. */
export interface DbLog {
  info(o: object, msg: string): void;
  warn(o: object, msg: string): void;
  error(o: object, msg: string): void;
}

export interface DbOptions {
  /** The data directory: wal/ and chunks_head/ live under it. */
  dataDir: string;
  /** Data older than this, measured back from the newest sample held, is deleted. Default 15 days. */
  retentionMs?: number;
  /** Milliseconds between WAL fsyncs (0: after every append). Default: the WAL's. */
  walFsyncIntervalMs?: number;
  walSegmentBytes?: number;
  chunkSegmentBytes?: number;
  /** Chunks never span a multiple of this (Prometheus' block range). Default 2 h. */
  chunkRangeMs?: number;
  /** How often retention runs. Default 1 minute. */
  retentionIntervalMs?: number;
  /** WAL segments kept before a checkpoint truncates the older ones. Default 3. */
  walSegmentsKept?: number;
  log?: DbLog;
}

export const DAY_MS = 86_400_000;
/** Prometheus' default retention. */
export const DEFAULT_RETENTION_MS = 15 * DAY_MS;
/** Prometheus' head block range: chunks are cut at its multiples. */
export const DEFAULT_CHUNK_RANGE_MS = 2 * 3_600_000;

export const silentLog: DbLog = { info() {}, warn() {}, error() {} };
