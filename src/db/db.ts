import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ChunkSegments } from '../chunks/chunk-segments.js';
import { Head } from '../head/head.js';
import type { HeadAppendStats } from '../head/head.js';
import { HeadReader } from '../head/head-reader.js';
import { storeUnavailable } from '../errors/errors.js';
import { PostingsIndex } from '../index/postings-index.js';
import { Querier } from '../query/querier.js';
import type { Wal } from '../wal/index.js';
import { quarantinedBlocks, type BlockSet } from './block-set.js';
import { compactBlocks } from './block-compaction.js';
import { lockDataDir } from '../files/dir-lock.js';
import { writeHeadBlocks } from './head-block.js';
import { expireChunks, storeCuts, truncateChunksBefore } from '../head/head-chunks.js';
import { checkpointBefore } from './checkpoint.js';
import { recover } from './recovery.js';
import { writeHeadSnapshot } from './snapshot-write.js';
import { blocksPastRetention, type RetentionPlan } from './retention.js';
import { DEFAULT_CHUNK_RANGE_MS, DEFAULT_MAX_EXEMPLARS, DEFAULT_RETENTION_MS, QUARANTINE_DIR, silentLog } from './options.js';
import type { DbLog, DbOptions } from './options.js';
import { ReadTracker } from './read-tracker.js';
import { appendOutOfOrder } from '../head/ooo-append.js';
import { OooCuts } from '../head/ooo-cuts.js';
import { SamplesRecordWriter } from '../record/ooo-records.js';
import { RECORD_OOO_SAMPLES } from '../record/wal-records.js';
import type { AppendBounds, EntryRange } from '../head/head.js';
import { ExemplarRecordWriter, RECORD_EXEMPLARS, RECORD_HISTOGRAMS, RECORD_SAMPLES, RECORD_SERIES, SeriesRecordWriter } from '../record/wal-records.js';
import { appendHistograms, type HistogramAppendContext } from '../head/histogram-append.js';
import { HistogramRecordWriter } from '../record/histogram-record.js';
import { appendExemplars, type ExemplarAppendResult } from '../exemplars/exemplar-appender.js';
import { ExemplarStore } from '../exemplars/exemplar-store.js';
import { MetadataStore } from '../metadata/metadata-store.js';
import { DiskReserve } from '../files/disk-reserve.js';
import { WriteHealth, type WriteErrorCount } from './write-health.js';
import { collectSoon } from '../pool/collect.js';

/** How long a background writer that failed (checkpoint, head block) waits before it is tried again. */
const RETRY_AFTER_FAILURE_MS = 10_000;
/** How often the engine looks whether appends stopped, to give free module memory back (releaseWhenQuiet). */
const QUIET_RELEASE_MS = 5_000;

/** What an append did: counts of samples, and where rejections started. */
export type AppendResult = HeadAppendStats;

/** Running totals since open, for metrics. */
export interface DbCounters {
  samplesAppended: number;
  samplesIgnored: number;
  /** Native histogram samples stored, and taken as duplicates (their rejections count with the float ones'). */
  histogramsAppended: number;
  histogramsIgnored: number;
  outOfOrder: number;
  conflict: number;
  tooOld: number;
  /** Refused: newer than now + the too-far-in-future window. */
  tooFarInFuture: number;
  /** Of samplesAppended, those kept in the out-of-order head. */
  oooAppended: number;
  seriesCreated: number;
  /** Blocks cut from the head, and made by compacting blocks. */
  headBlocks: number;
  compactions: number;
  compactionFailures: number;
  /** Blocks deleted by retention, by time and by size. */
  blocksDeletedByTime: number;
  blocksDeletedBySize: number;
}

/** What a retention pass deleted. */
export interface RetentionResult {
  cutoff: number;
  deletedFiles: number;
  droppedSeries: number;
  deletedBlocks: number;
}

/** How long the head waits for reads begun before a block existed before letting go of the block's data. */
const READ_DRAIN_TIMEOUT_MS = 5 * 60_000;

/**
 * The storage engine: a head of the last hours (open chunks in module
 * memory, full chunks in memory-mapped head chunk files, a write-ahead
 * log, an index of label pairs) and immutable blocks in Prometheus' TSDB
 * format under DATA/blocks/. One writer: call every method from one thread.
 *
 * Durability: append() returns once its WAL record is in the OS (it
 * survives kill -9); the WAL is fsynced on an interval and on close.
 *
 * Head compaction, as Prometheus: once the head spans more than 1.5 block
 * ranges, samples older than the range boundary at or past newest - 1.5
 * ranges are refused (too old), and each older range is written as a block
 * in the background; then the head lets go of it. Blocks are compacted
 * into larger ones and deleted by retention in the background too.
 *
 * @example
 * const db = await Db.open({ dataDir: 'data' });
 * const result = db.append(batch);   // AppendBatchBuilder.finish()
 * const series = db.querier().select([{ type: MatchType.EQ, name: 'job', value: 'node' }], 0, Date.now());
 */
export class Db {
  readonly head: Head;
  /** Exemplars from remote write: bounded, logged to the WAL, replayed on open (src/exemplars). */
  readonly exemplars: ExemplarStore;
  /** Metric metadata from remote write, in memory only (src/metadata). */
  readonly metadata = new MetadataStore();
  private chunks!: ChunkSegments;
  private wal!: Wal;
  private blocks!: BlockSet;
  private readonly log: DbLog;
  private readonly retentionMs: number;
  private readonly rangeMs: number;
  private headMinT = Infinity;
  private headMaxT = -Infinity;
  private headMinTDirty = false;
  /** Oldest sample appended since the head truncation in progress began. */
  private appendedMinT = Infinity;
  /** Samples older than this are refused: blocks hold (or are about to hold) that time. */
  private floor = -Infinity;
  private walFirstSegment = 0;
  private truncating: Promise<void> | undefined;
  /** Background jobs (head compaction, block compaction, retention) run one at a time in this chain. */
  private maintenance: Promise<void> = Promise.resolve();
  private headCompactionQueued = false;
  private timer: NodeJS.Timeout | undefined;
  private quietTimer: NodeJS.Timeout | undefined;
  /** Appends so far, as counted at the last look and at the last release of free module memory. */
  private appends = 0;
  private appendsSeen = 0;
  private appendsReleased = 0;
  private closed = false;
  /** Whether writes can be stored, and getting back to it after a full or failing disk (write-health.ts). */
  private readonly health: WriteHealth;
  private readonly reserve: DiskReserve;
  /** A failed WAL truncation or head compaction is not tried again before these times. */
  private truncateAfter = 0;
  private compactHeadAfter = 0;
  private readonly reads = new ReadTracker();
  private readonly failedCompactions = new Set<string>();
  private readonly seriesRecord = new SeriesRecordWriter();
  /** Out-of-order window and future limit (ms, 0: none), and the clock for the latter. */
  private readonly oooWindowMs: number;
  private readonly tooFarMs: number;
  private readonly now: () => number;
  /** What the next append takes (rewritten by every append: no object per call). */
  private readonly bounds: AppendBounds = { minValidT: -Infinity, maxValidT: Infinity, oooMinT: Infinity };
  private readonly oooRecord = new SamplesRecordWriter();
  /** The out-of-order head's older samples being written into blocks (ooo-cuts.ts). */
  private readonly oooCuts: OooCuts;
  private readonly exemplarRecord = new ExemplarRecordWriter();
  private readonly histogramRecord = new HistogramRecordWriter();
  private unlock: () => void = () => {};
  /** Running totals since open. */
  readonly counters: DbCounters = {
    samplesAppended: 0, samplesIgnored: 0, histogramsAppended: 0, histogramsIgnored: 0, outOfOrder: 0, conflict: 0, tooOld: 0, tooFarInFuture: 0, oooAppended: 0, seriesCreated: 0,
    headBlocks: 0, compactions: 0, compactionFailures: 0, blocksDeletedByTime: 0, blocksDeletedBySize: 0,
  };

  private constructor(private readonly opts: DbOptions) {
    this.log = opts.log ?? silentLog;
    this.retentionMs = opts.retentionMs ?? DEFAULT_RETENTION_MS;
    this.rangeMs = opts.chunkRangeMs ?? DEFAULT_CHUNK_RANGE_MS;
    this.head = new Head(new PostingsIndex(), { chunkRangeMs: this.rangeMs, oooReadCacheBytes: opts.oooReadCacheBytes });
    this.oooWindowMs = opts.outOfOrderWindowMs ?? 0;
    this.tooFarMs = opts.tooFarInFutureMs ?? 0;
    this.now = opts.now ?? Date.now;
    this.oooCuts = new OooCuts(this.head, (type, payload) => this.logRecord(type, payload));
    this.exemplars = new ExemplarStore(opts.maxExemplars ?? DEFAULT_MAX_EXEMPLARS, (bytes) => this.head.hash(bytes));
    this.reserve = new DiskReserve(opts.dataDir, opts.reserveBytes ?? 0);
    this.health = new WriteHealth(this.reserve, () => this.wal, () => this.chunks, this.log, () => this.restoreWal());
  }

  /**
   * Opens the data directory: opens the blocks, reopens the head chunk
   * files, replays the WAL (see the recovery rules in docs/format/wal.md
   * and chunks-head.md; what blocks hold is skipped), applies retention,
   * and starts the background jobs.
   */
  static async open(opts: DbOptions): Promise<Db> {
    const db = new Db(opts);
    mkdirSync(opts.dataDir, { recursive: true });
    // A start on a full disk takes the space held back (a restart while
    // writes were refused): recovery needs a little, and writes resume once there is room.
    const laid = await db.reserve.ensure().catch(() => false);
    if (laid && !db.reserve.roomToResume()) db.reserve.release();
    db.unlock = lockDataDir(opts.dataDir);
    try {
      const r = await recover(opts, db.head, db.log, db.exemplars);
      db.blocks = r.blocks;
      db.chunks = r.chunks;
      db.wal = r.wal;
      db.walFirstSegment = r.walFirstSegment;
      db.floor = r.floor;
      db.recomputeHeadTimes();
      db.advanceFloor();
    } catch (err) {
      db.unlock();
      throw err;
    }
    if (!db.reserve.held) db.health.noRoom('disk full at start: the space reserve could not be laid down');
    const every = opts.retentionIntervalMs ?? 60_000;
    db.timer = setInterval(() => db.runMaintenance(), every);
    db.timer.unref();
    db.quietTimer = setInterval(() => db.releaseWhenQuiet(), QUIET_RELEASE_MS);
    db.quietTimer.unref();
    db.runMaintenance();
    return db;
  }

  /** Oldest timestamp held, Infinity when empty. */
  get minTime(): number {
    return Math.min(this.blocks.minTime, this.headMinTime, this.head.ooo.minTime, this.oooCuts.visible?.minTime ?? Infinity);
  }

  /** Newest timestamp held, -Infinity when empty. */
  get maxTime(): number {
    return Math.max(this.blocks.maxTime, this.headMaxT, this.head.ooo.maxTime);
  }

  /** Samples in the out-of-order head (not yet written into blocks). */
  get oooSamples(): number {
    return this.head.ooo.samples + (this.oooCuts.cut?.store.samples ?? 0);
  }

  /** Oldest timestamp in the head, Infinity when it is empty. */
  get headMinTime(): number {
    if (this.headMinTDirty) this.recomputeHeadMinTime();
    return this.headMinT;
  }

  get headMaxTime(): number {
    return this.headMaxT;
  }

  get seriesCount(): number {
    return this.head.seriesCount;
  }

  /** Series in the head with label `name` = `value` (a tenant's active series, by its tenant label). */
  seriesWithLabel(name: string, value: string): number {
    return this.head.index.count(name, value);
  }

  /** Number of blocks on disk. */
  get blockCount(): number {
    return this.blocks.size;
  }

  /**
   * The oldest timestamp a sample may have: the newest held minus the
   * retention (anything older would be deleted at once), and never before
   * the head's floor (blocks hold that time). With an out-of-order window,
   * samples out of order back to the newest held minus the window are
   * taken too, before the floor included (oooMinValidTime). An empty store
   * accepts any timestamp.
   */
  get minValidTime(): number {
    return Math.min(this.inOrderMinValidTime(), this.oooMinValidTime);
  }

  /**
   * The oldest timestamp an out-of-order sample may have (Prometheus' rule:
   * the newest sample held minus --tsdb.out-of-order.time-window, and not
   * past retention); Infinity without a window.
   */
  get oooMinValidTime(): number {
    if (this.oooWindowMs <= 0) return Infinity;
    const max = this.maxTime;
    return max === -Infinity ? -Infinity : max - Math.min(this.oooWindowMs, this.retentionMs);
  }

  private inOrderMinValidTime(): number {
    const max = this.maxTime;
    const byRetention = max === -Infinity ? -Infinity : max - this.retentionMs;
    return Math.max(byRetention, this.floor);
  }

  /**
   * Reads of the data as it stands: blocks, oldest first, then the head.
   * Good for work done within this turn of the event loop; a read that
   * spans turns (a streamed answer) holds holdRead() for its duration.
   */
  querier(): Querier {
    const head = new HeadReader(this.head, this.chunks, this, this.blocks.end, this.oooCuts.visible);
    return new Querier([...this.blocks.readers, head]);
  }

  /**
   * Marks a read that spans turns of the event loop; call the returned
   * function when it ends. Until it does, the head keeps the data of blocks
   * written after it began (it would not see them).
   */
  holdRead(): () => void {
    return this.reads.hold();
  }

  /**
   * Appends a batch (AppendBatchBuilder / the pool's parser make them).
   * Every valid sample is stored even when others are rejected; the result
   * counts both (rejectionError() turns it into the typed error). Returns
   * after the WAL record reached the OS. With `ids`, each entry's series
   * is written there as id + 1 (0 where the head took none of its samples
   * and had no such series). With `range`, only those entries are
   * appended (a long batch in steps: first entries in the result count
   * from the batch's start).
   */
  append(batch: ArrayBuffer, ids?: Uint32Array, range?: EntryRange): AppendResult {
    this.assertWritable();
    this.appends++;
    const walSeg = this.wal.segment;
    const series = this.seriesRecord;
    series.reset();
    const bounds = this.bounds;
    bounds.minValidT = this.inOrderMinValidTime();
    bounds.maxValidT = this.tooFarMs > 0 ? this.now() + this.tooFarMs : Infinity;
    bounds.oooMinT = this.oooMinValidTime;
    const result = this.head.append(batch, bounds, walSeg, (s, bytes) => series.add(s.id, bytes), ids, range);
    if (!series.empty) this.logRecord(RECORD_SERIES, series.payload());
    const samples = this.head.walPayload();
    if (samples.length > 0) this.logRecord(RECORD_SAMPLES, samples);
    this.storeCuts();
    const ooo = this.head.oooList();
    if (ooo.length > 0) this.appendOutOfOrder(batch, ooo, result, range?.from ?? 0);
    const c = this.counters;
    c.samplesAppended += result.appended;
    c.samplesIgnored += result.ignored;
    c.oooAppended += result.oooAppended;
    this.afterAppend(result);
    this.refuseIfHeld();
    return result;
  }

  /** A write whose WAL records could not be written is refused (write-health.ts: they are written later). */
  private refuseIfHeld(): void {
    if (this.health.holding) throw storeUnavailable(this.health.refusing ?? 'the WAL could not be written');
  }

  /** What every append does last: the shared counters, the head's time range, WAL truncation. */
  private afterAppend(result: AppendResult): void {
    const c = this.counters;
    c.outOfOrder += result.outOfOrder;
    c.conflict += result.conflict;
    c.tooOld += result.tooOld;
    c.tooFarInFuture += result.tooFarInFuture;
    c.seriesCreated += result.created;
    if (result.appended > 0) {
      if (result.minT < this.headMinT) this.headMinT = result.minT;
      if (result.minT < this.appendedMinT) this.appendedMinT = result.minT;
      if (result.maxT > this.headMaxT) this.headMaxT = result.maxT;
      this.advanceFloor();
    }
    this.maybeTruncateWal();
  }

  /**
   * Appends a histogram batch (src/histograms: HistogramBatchBuilder or the
   * pool's parser make them) under Prometheus 2.42's rules for native
   * histograms (src/head/histogram-append.ts): out of order and duplicates
   * as for floats, no out-of-order window, the same too-old and
   * too-far-in-future bounds. Every valid sample is stored even when
   * others are rejected; rejectionError() makes the typed error of the
   * result. Returns after the WAL records (SERIES, then HISTOGRAMS) reached
   * the OS. Call it after append() for the same write. With `range`, only
   * those entries of the batch. With `ids`, each entry's series is
   * written there as id + 1, as append() writes them.
   */
  appendHistograms(batch: ArrayBuffer, range?: EntryRange, ids?: Uint32Array): AppendResult {
    this.appends++;
    this.assertWritable();
    const series = this.seriesRecord;
    series.reset();
    const record = this.histogramRecord;
    record.reset();
    const bounds = this.bounds;
    bounds.minValidT = this.inOrderMinValidTime();
    bounds.maxValidT = this.tooFarMs > 0 ? this.now() + this.tooFarMs : Infinity;
    bounds.oooMinT = Infinity;
    let result: AppendResult;
    try {
      const ctx: HistogramAppendContext = {
        head: this.head, bounds, walSeg: this.wal.segment, record,
        onCreate: (s, bytes) => series.add(s.id, bytes),
        storeCuts: () => this.storeCuts(),
      };
      if (ids !== undefined) ctx.ids = ids;
      result = appendHistograms(ctx, batch, range);
    } finally {
      // Should the append fail part way (a fault of ours), what the head
      // took so far is logged all the same: the head never holds more than
      // the WAL.
      if (!series.empty) this.logRecord(RECORD_SERIES, series.payload());
      if (!record.empty) this.logRecord(RECORD_HISTOGRAMS, record.payload());
    }
    this.storeCuts();
    const c = this.counters;
    c.histogramsAppended += result.appended;
    c.histogramsIgnored += result.ignored;
    this.afterAppend(result);
    this.refuseIfHeld();
    return result;
  }

  /**
   * Offers an exemplar batch (src/record/exemplar-batch.ts) to the
   * exemplar store, each exemplar to the head series its labels name; call
   * it after appending the batch of the same request (which may have
   * created those series). The exemplars stored are in the WAL (in the OS)
   * when it returns.
   */
  appendExemplars(batch: ArrayBuffer): ExemplarAppendResult {
    this.assertWritable();
    const result = appendExemplars(this.head, this.exemplars, batch, this.exemplarRecord);
    if (!this.exemplarRecord.empty) this.logRecord(RECORD_EXEMPLARS, this.exemplarRecord.payload());
    this.refuseIfHeld();
    return result;
  }

  /**
   * Deletes data older than the retention window: whole blocks past it,
   * then the oldest blocks while the store exceeds the size limit (blocks,
   * WAL and head chunk files counted, as Prometheus counts them); in the
   * head, chunks ending before the cutoff, by whole chunk files, and series
   * left with no data.
   */
  applyRetentionNow(): RetentionResult {
    const none = { cutoff: -Infinity, deletedFiles: 0, droppedSeries: 0, deletedBlocks: 0 };
    if (this.maxTime === -Infinity || this.closed) return none;
    const cutoff = this.maxTime - this.retentionMs;
    const plan = this.retentionPlan(cutoff);
    const doomed = plan.byTime.length + plan.bySize.length;
    if (doomed > 0) this.enqueue(() => this.retainBlocks(cutoff));
    const gone = this.chunks.deleteEndingBefore(cutoff);
    this.head.ooo.expireBefore(cutoff);
    // Nothing in the head ends before the cutoff when nothing in it starts before it.
    const drop = this.headMinTime < cutoff ? expireChunks(this.head, cutoff) : [];
    this.head.drop(Uint32Array.from(drop));
    if (gone.length > 0 || drop.length > 0) {
      this.headMinTDirty = true;
      this.log.info({ cutoff, deletedFiles: gone.length, droppedSeries: drop.length }, 'retention deleted old data');
    }
    return { cutoff, deletedFiles: gone.length, droppedSeries: drop.length, deletedBlocks: doomed };
  }

  /**
   * Makes the WAL segments before the newest `walSegmentsKept` unneeded
   * (cutting open chunks that started in them into chunk files, fsyncing
   * those), then checkpoints the live series and deletes them.
   */
  truncateWal(keep = this.opts.walSegmentsKept ?? 3): Promise<void> {
    this.truncating ??= this.doTruncate(keep).finally(() => {
      this.truncating = undefined;
    });
    return this.truncating;
  }

  /**
   * Waits for the background jobs queued so far (head compaction, block
   * compaction, retention), and for those they queued in turn.
   */
  async settle(): Promise<void> {
    let last: Promise<void> | undefined;
    while (last !== this.maintenance) {
      last = this.maintenance;
      await last;
    }
  }

  /** Runs a maintenance pass now (what the timer does every minute) and waits for it. */
  async maintain(): Promise<void> {
    this.runMaintenance();
    await this.settle();
  }

  /** Bytes on disk: WAL, head chunk files and blocks. */
  diskBytes(): { wal: number; chunks: number; blocks: number } {
    return { wal: this.wal.diskBytes(), chunks: this.chunks.diskBytes(), blocks: this.blocks.sizeBytes() };
  }

  /** fsyncs the WAL now. */
  sync(): Promise<void> {
    return this.wal.sync();
  }

  /**
   * Stops the background jobs (one already running finishes), flushes the
   * head (every open chunk to the chunk files, then a checkpoint that
   * leaves the WAL empty, so the next start has nothing to replay and the
   * data sits on disk compressed), fsyncs everything and closes the files.
   */
  async close(opts: { flush?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    clearInterval(this.quietTimer);
    this.health.stop();
    await this.maintenance;
    await this.truncating;
    // While writes are refused the disk would not take the flush: the WAL holds what was acknowledged.
    if ((opts.flush ?? true) && this.health.refusing === undefined) {
      await this.flushHead();
      if (this.opts.memorySnapshotOnShutdown !== false) await this.snapshotHead(this.walFirstSegment);
    }
    await this.chunks.close();
    await this.wal.close();
    this.unlock();
  }

  /** After a failed WAL fsync: appends go to a new segment, and the head is made durable without the old one. */
  private async restoreWal(): Promise<void> {
    while (this.truncating !== undefined) await this.truncating.catch(() => {});
    if (this.oooCuts.busy) await this.oooCuts.idle();
    const next = this.wal.restartAfterFailure();
    await checkpointBefore(this.head, this.chunks, this.wal, next, true, this.exemplars);
    this.walFirstSegment = next;
    this.log.info({ checkpoint: next }, 'head made durable after a failed WAL fsync');
  }

  /** Cuts every open chunk into the chunk files, fsyncs them, and checkpoints the WAL past everything. */
  private async flushHead(): Promise<void> {
    const next = this.wal.roll();
    await checkpointBefore(this.head, this.chunks, this.wal, next, true, this.exemplars);
    this.walFirstSegment = next;
  }

  /**
   * Writes the head snapshot for checkpoint `next` (flushHead's): on close
   * only, with appends stopped. A failure is logged, not thrown: the
   * checkpoint already holds everything, the next start replays it.
   */
  private async snapshotHead(next: number): Promise<void> {
    const started = Date.now();
    try {
      const files = this.chunks.files();
      const w = await writeHeadSnapshot(this.opts.dataDir, this.head, next, files === undefined ? undefined : { files, floor: this.blocks.end });
      this.log.info({ ...w, ms: Date.now() - started }, 'head snapshot written');
    } catch (err) {
      this.log.error({ err }, 'head snapshot not written: the next start replays the WAL');
    }
  }

  /** Hands the head's cut chunks to the chunk files; a disk that does not take them stops writes until it does (write-health.ts). */
  private storeCuts(): void {
    storeCuts(this.head, this.chunks, false);
    this.health.flushChunks();
  }

  /** Decides on the out-of-order samples the head listed (ooo-append.ts) and logs those kept. */
  private appendOutOfOrder(batch: ArrayBuffer, list: Uint32Array, result: AppendResult, entryBase: number): void {
    const record = this.oooRecord;
    record.reset();
    appendOutOfOrder({
      head: this.head, files: this.chunks, cutting: this.oooCuts.cut?.store, blocks: this.blocks.readers, blocksEnd: this.blocks.end,
    }, batch, list, result, record, entryBase);
    if (!record.empty) this.logRecord(RECORD_OOO_SAMPLES, record.payload());
  }

  /** Appends a WAL record of what the head took; one the disk refuses is held and written later (write-health.ts). */
  private logRecord(type: number, payload: Uint8Array): void {
    this.health.logRecord(type, payload);
  }

  /**
   * Prometheus' head compaction rule, decided as soon as a sample makes it
   * true: while the head spans more than 1.5 block ranges, the range
   * boundaries before newest - 1.5 ranges are closed for writing (samples
   * there are too old), and what lies before them is cut into blocks.
   */
  private advanceFloor(): void {
    const r = this.rangeMs;
    const max = this.headMaxT;
    if (max === -Infinity || max - this.headMinTime <= (r * 3) / 2) return;
    const boundary = Math.ceil((max - (r * 3) / 2) / r) * r;
    if (boundary > this.floor) this.floor = boundary;
    if (this.headMinTime < this.floor) this.scheduleHeadCompaction();
  }

  private scheduleHeadCompaction(): void {
    if (this.headCompactionQueued || this.closed || !(this.headMinTime < this.floor) || Date.now() < this.compactHeadAfter) return;
    this.headCompactionQueued = true;
    this.enqueue(async () => {
      this.headCompactionQueued = false;
      try {
        await this.compactHead();
      } catch (err) {
        this.compactHeadAfter = Date.now() + RETRY_AFTER_FAILURE_MS;
        this.health.backgroundFailed('block', err);
        throw err;
      }
    });
  }

  /** Runs `job` after the jobs queued before it; a failure is logged, never thrown at the caller. */
  private enqueue(job: () => Promise<void>): void {
    this.maintenance = this.maintenance.then(async () => {
      if (this.closed) return;
      try {
        await job();
      } catch (err) {
        this.log.error({ err }, 'background storage job failed');
      }
    });
  }

  /**
   * Once appends have stopped for a look (QUIET_RELEASE_MS), gives the
   * head module memory's free pages back to the OS: the chunk buffers and
   * batches the writes freed stay resident otherwise.
   */
  private releaseWhenQuiet(): void {
    if (this.closed) return;
    const n = this.appends;
    if (n !== this.appendsSeen) {
      this.appendsSeen = n;
      return;
    }
    if (n === this.appendsReleased) return;
    this.appendsReleased = n;
    const started = performance.now();
    const bytes = this.head.releaseFreeMemory();
    if (bytes > 0) this.log.info({ bytes, ms: Math.round((performance.now() - started) * 10) / 10 }, 'free module memory given back to the OS');
  }

  private runMaintenance(): void {
    if (this.closed) return;
    this.applyRetentionNow();
    this.scheduleHeadCompaction();
    this.enqueue(() => this.compactBlocks());
  }

  /**
   * Cuts the oldest block range before the floor out of the head; then
   * queues block compaction, and itself again while ranges remain, so the
   * two take turns.
   */
  private async compactHead(): Promise<void> {
    if (this.closed || !(this.headMinTime < this.floor)) return;
    const r = this.rangeMs;
    const minTime = this.headMinTime;
    const end = Math.min(Math.floor(minTime / r) * r + r, this.floor);
    const started = Date.now();
    // Out-of-order samples older than `end` go into blocks with it
    // (ooo-cuts.ts); no checkpoint runs while they are being written.
    if (this.head.ooo.minTime < end) while (this.truncating !== undefined) await this.truncating;
    const cut = this.oooCuts.begin(end);
    let metas;
    try {
      metas = await writeHeadBlocks({
        head: this.head, files: this.chunks, storeCuts: () => this.storeCuts(),
        blocksDir: this.blocks.dir, end, thanosLabels: this.opts.blockLabels, splitBy: this.opts.blockPerTenant,
        rangeMs: r, ...(cut === undefined ? {} : { ooo: cut }),
      });
    } catch (err) {
      this.oooCuts.abort();
      throw err;
    }
    this.oooCuts.written();
    // Writing the block read the range's chunks through the head chunk files' maps.
    this.chunks.releaseResidentPages();
    for (const meta of metas) {
      await this.blocks.add(meta.ulid);
      this.counters.headBlocks++;
      this.log.info({
        block: meta.ulid, minTime: meta.minTime, maxTime: meta.maxTime, series: meta.stats.numSeries,
        samples: meta.stats.numSamples, labels: meta.thanos?.labels, ms: Date.now() - started,
      }, 'head range written as a block');
    }
    this.oooCuts.hide();
    if (metas.length > 0) this.opts.onBlocks?.(metas);
    // Reads that began before the block was there still read these chunks
    // from the head; on close the next start truncates instead.
    const epoch = this.reads.epoch;
    if (this.closed) return;
    if (!(await this.reads.drained(epoch, READ_DRAIN_TIMEOUT_MS))) {
      this.log.warn({ end }, 'reads begun before the new block still run; the head lets go of its data anyway');
    }
    // Appends go on during the truncation (all newer than `end`): the head's
    // new oldest is the truncation's, or an append's.
    this.appendedMinT = Infinity;
    const { dropped, minTime: oldest } = await truncateChunksBefore(this.head, this.chunks, end);
    // Merges of late samples into chunks the head let go of are not read again.
    this.head.merged.clear();
    this.oooCuts.release();
    this.headMinT = Math.min(oldest, this.appendedMinT);
    this.headMinTDirty = false;
    this.log.info({ end, droppedSeries: dropped, series: this.head.seriesCount }, 'head truncated');
    this.head.releaseFreeMemory();
    // The block's buffers and the dropped series are garbage now: give their memory back to the OS.
    collectSoon();
    if (this.opts.compaction !== false) this.enqueue(() => this.compactBlocks());
    this.scheduleHeadCompaction();
  }

  /** Leveled compaction of blocks, as Prometheus plans it; off when Thanos' compactor owns the blocks. */
  private async compactBlocks(): Promise<void> {
    if (this.opts.compaction === false) return;
    await compactBlocks({
      blocks: this.blocks,
      rangeMs: this.rangeMs,
      retentionMs: this.retentionMs,
      thanosLabels: this.opts.blockLabels,
      failed: this.failedCompactions,
      closed: () => this.closed,
      log: this.log,
      onCompacted: (parents) => {
        this.counters.compactions++;
        return this.deleteBlocks(parents, 'compaction');
      },
      onFailed: () => {
        this.counters.compactionFailures++;
      },
    });
    collectSoon();
  }

  /** Deletes the blocks past retention, as they stand when the job runs. */
  private async retainBlocks(cutoff: number): Promise<void> {
    const plan = this.retentionPlan(cutoff);
    const may = this.opts.mayDelete ?? (() => true);
    const kept = [...plan.byTime, ...plan.bySize].filter((u) => !may(u));
    if (kept.length > 0) this.log.warn({ blocks: kept }, 'retention keeps blocks not shipped to the bucket yet');
    const byTime = plan.byTime.filter(may);
    const bySize = plan.bySize.filter(may);
    this.counters.blocksDeletedByTime += byTime.length;
    this.counters.blocksDeletedBySize += bySize.length;
    await this.deleteBlocks(new Set(byTime), 'retention by time');
    await this.deleteBlocks(new Set(bySize), 'retention by size');
  }

  private retentionPlan(cutoff: number): RetentionPlan {
    const disk = this.diskBytes();
    const blocks = this.blocks.readers.map((r) => r.block);
    return blocksPastRetention(blocks, cutoff, this.opts.retentionBytes ?? 0, disk.wal + disk.chunks);
  }

  private async deleteBlocks(ulids: ReadonlySet<string>, why: string): Promise<void> {
    if (ulids.size === 0) return;
    await this.blocks.remove(ulids);
    this.log.info({ blocks: [...ulids], reason: why }, 'blocks deleted');
  }

  private maybeTruncateWal(): void {
    const keep = this.opts.walSegmentsKept ?? 3;
    if (this.truncating === undefined && this.wal.segment - this.walFirstSegment > keep && Date.now() >= this.truncateAfter) {
      this.truncateWal(keep).catch((err: unknown) => {
        this.truncateAfter = Date.now() + RETRY_AFTER_FAILURE_MS;
        this.health.backgroundFailed('checkpoint', err);
        this.log.error({ err }, 'WAL truncation failed; it is tried again later');
      });
    }
  }

  private async doTruncate(keep: number): Promise<void> {
    // A checkpoint holds the out-of-order head as it stands: never while a cut is being written (ooo-cuts.ts).
    if (this.oooCuts.busy) await this.oooCuts.idle();
    const target = this.wal.segment - keep + 1;
    if (target <= this.walFirstSegment) return;
    const cut = await checkpointBefore(this.head, this.chunks, this.wal, target, false, this.exemplars);
    this.walFirstSegment = target;
    this.log.info({ checkpoint: target, cutChunks: cut, series: this.head.seriesCount }, 'WAL truncated');
  }

  private recomputeHeadTimes(): void {
    let max = -Infinity;
    let min = Infinity;
    for (const s of this.head.all()) {
      const newest = this.head.newest(s);
      if (newest !== undefined && newest > max) max = newest;
      const oldest = this.head.oldest(s);
      if (oldest !== undefined && oldest < min) min = oldest;
    }
    this.headMaxT = max;
    this.headMinT = min;
    this.headMinTDirty = false;
  }

  private recomputeHeadMinTime(): void {
    let min = Infinity;
    for (const s of this.head.all()) {
      const t = this.head.oldest(s);
      if (t !== undefined && t < min) min = t;
    }
    this.headMinT = min;
    this.headMinTDirty = false;
  }

  private assertWritable(): void {
    if (this.closed) throw storeUnavailable('the store is closed');
    const why = this.health.refusing;
    if (why !== undefined) throw storeUnavailable(why);
  }

  /** Damaged stretches of the WAL that the replay at open skipped (their records are lost, no others). */
  get walDamage(): number {
    return this.wal.damaged.length;
  }

  /** Blocks moved to DATA/quarantine because they could not be opened (this start's and earlier ones'). */
  get quarantinedBlocks(): number {
    return quarantinedBlocks(join(this.opts.dataDir, QUARANTINE_DIR)).length;
  }

  /** Damaged stretches of the head chunk files that the open skipped (their chunks are lost, no others). */
  get chunkFileDamage(): number {
    return this.chunks.damaged.length;
  }

  /** Why writes are refused now (a full or failing disk), undefined while they are stored: for readiness. */
  get writeRefusal(): string | undefined {
    return this.health.refusing;
  }

  /** Write errors met by the engine's writers since open, and how often writes stopped and resumed: for metrics. */
  writeFaults(): { errors: WriteErrorCount[]; refusals: number; recoveries: number; reserveBytes: number } {
    return { errors: this.health.errorCounts(), refusals: this.health.refusals, recoveries: this.health.recoveries, reserveBytes: this.reserve.held ? this.reserve.bytes : 0 };
  }

  /** Tries now what the engine tries every second while it refuses writes; true once they are stored again. */
  tryResumeWrites(): Promise<boolean> {
    return this.health.heal();
  }
}
