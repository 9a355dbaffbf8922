import type { BlockMeta } from '../blocks/types.js';
import type { ReplayProgress } from '../wal/index.js';

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
  /**
   * The head's block range (Prometheus' 2 h): chunks never span a multiple
   * of it, and once the head spans 1.5 of it the oldest range is cut into
   * a block under DATA/blocks/.
   */
  chunkRangeMs?: number;
  /** Beyond retention by time, the oldest blocks go while blocks, WAL and head chunks exceed this many bytes. 0: no limit. */
  retentionBytes?: number;
  /** Compact blocks into larger ones (2 h -> 6 h -> 18 h ...). Default true; off where Thanos' compactor owns the blocks. */
  compaction?: boolean;
  /** The "thanos" section's labels of each block written: the store's external labels. */
  blockLabels?: Record<string, string>;
  /**
   * Cut one block per value of this label (the tenant label), its value in
   * the block's Thanos labels, as Thanos Receive keeps a TSDB per tenant:
   * for shipping to a bucket.
   */
  blockPerTenant?: string;
  /** Called with the blocks cut from the head, once they are open for reading. */
  onBlocks?: (metas: readonly BlockMeta[]) => void;
  /** Whether a block may be deleted by retention (a block not yet shipped may not). Default: always. */
  mayDelete?: (ulid: string) => boolean;
  /** How often retention, head compaction and block compaction are checked. Default 1 minute. */
  retentionIntervalMs?: number;
  /** WAL segments kept before a checkpoint truncates the older ones. Default 3. */
  walSegmentsKept?: number;
  /**
   * The out-of-order window (ms, --tsdb.out-of-order.time-window): a
   * sample older than its series' newest, or than the head's floor, is
   * kept (in the out-of-order head, then merged into its range's block)
   * when it is not older than the newest sample held minus this. 0 (the
   * default): such samples are refused.
   */
  outOfOrderWindowMs?: number;
  /**
   * Bytes of chunks kept from reads that merged late samples into a
   * series' chunks, for the next read of the same series while neither
   * changes (src/head/merged-cache.ts). Default 32 MiB; 0 keeps none.
   */
  oooReadCacheBytes?: number;
  /** Samples newer than now + this are refused (--tsdb.too-far-in-future.time-window, ms). 0 (the default): no limit. */
  tooFarInFutureMs?: number;
  /** The clock of tooFarInFutureMs (ms since the epoch). Default Date.now. */
  now?: () => number;
  /**
   * Exemplars kept in the circular exemplar store (--tsdb.max-exemplars);
   * 0 or less keeps none. Default DEFAULT_MAX_EXEMPLARS.
   */
  maxExemplars?: number;
  /**
   * Bytes of the data directory's filesystem held back (a file of zeros,
   * DATA/space-reserve) for the write that first finds the disk full, so
   * that it finishes and the writes after it are refused before the head
   * takes them (src/db/write-health.ts). Default 0: none (the library and
   * the CLI keep DEFAULT_RESERVE_BYTES).
   */
  reserveBytes?: number;
  /**
   * Write a head snapshot on close and load it at open (docs/format/head-snapshot.md;
   * Prometheus' memory-snapshot-on-shutdown). Default true.
   */
  memorySnapshotOnShutdown?: boolean;
  /** Kept up to date while the WAL is replayed at open (segments done / total), for a progress metric read before the engine is open. */
  walReplayProgress?: ReplayProgress;
  log?: DbLog;
}

export const DAY_MS = 86_400_000;
/** Prometheus' default retention. */
export const DEFAULT_RETENTION_MS = 15 * DAY_MS;
/** Prometheus' storage.exemplars.max_exemplars default: about 10 MB of exemplars. */
export const DEFAULT_MAX_EXEMPLARS = 100_000;
/** Prometheus' head block range: chunks are cut at its multiples. */
export const DEFAULT_CHUNK_RANGE_MS = 2 * 3_600_000;

/**
 * 8 MiB: more than the WAL records and chunk writes of the largest remote
 * write the default limits let in (a 2,000-series request logs about 0.5
 * MiB), small beside any disk that holds a store.
 */
export const DEFAULT_RESERVE_BYTES = 8 * 1024 * 1024;

/** DATA/quarantine: blocks that could not be opened, moved aside (block-set.ts). */
export const QUARANTINE_DIR = 'quarantine';

export const silentLog: DbLog = { info() {}, warn() {}, error() {} };
