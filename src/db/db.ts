import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ChunkSegments } from '../chunks/chunk-segments.js';
import { threadCodec } from '../codec/index.js';
import { Head } from '../head/head.js';
import type { HeadAppendStats } from '../head/head.js';
import { storeUnavailable } from '../head/errors.js';
import type { Series } from '../head/series.js';
import { PostingsIndex } from '../index/postings-index.js';
import { Wal } from '../wal/index.js';
import { DEFAULT_CHUNK_RANGE_MS, DEFAULT_RETENTION_MS, silentLog } from './options.js';
import type { DbLog, DbOptions } from './options.js';
import { RECORD_SAMPLES, RECORD_SERIES, RECORD_SERIES_SNAPPY, SeriesRecordBuilder, readSeriesRecord } from './wal-records.js';
import { compressSync, uncompressSync } from 'snappy';
import { Querier } from './querier.js';
import { lockDataDir } from './dir-lock.js';

/** What an append did: counts of samples, and where rejections started. */
export type AppendResult = HeadAppendStats;

/** Running totals since open, for metrics. */
export interface DbCounters {
  samplesAppended: number;
  samplesIgnored: number;
  outOfOrder: number;
  conflict: number;
  tooOld: number;
  seriesCreated: number;
}

/** What a retention pass deleted. */
export interface RetentionResult {
  cutoff: number;
  deletedFiles: number;
  droppedSeries: number;
}

const CHECKPOINT_SERIES_PER_RECORD = 10_000;
/** Long passes over every series give the event loop a turn this often. */
const YIELD_EVERY_SERIES = 20_000;
const yieldToEventLoop = (): Promise<void> => new Promise((done) => setImmediate(done));

/**
 * The storage engine: a head of open chunks in module memory, full chunks
 * in memory-mapped segment files, a write-ahead log, and an index of
 * label pairs. One writer: call every method from one thread.
 *
 * Durability: append() returns once its WAL record is in the OS (it
 * survives kill -9); the WAL is fsynced on an interval and on close.
 *
 * @example
 * const db = await Db.open({ dataDir: 'data' });
 * const result = db.append(batch);   // AppendBatchBuilder.finish()
 * const series = db.querier().select([{ type: MatchType.EQ, name: 'job', value: 'node' }], 0, Date.now());
 */
export class Db {
  readonly head: Head;
  private chunks!: ChunkSegments;
  private wal!: Wal;
  private readonly log: DbLog;
  private readonly retentionMs: number;
  private minT = Infinity;
  private maxT = -Infinity;
  private minTDirty = false;
  private walFirstSegment = 0;
  private truncating: Promise<void> | undefined;
  private retentionTimer: NodeJS.Timeout | undefined;
  private broken: unknown;
  private closed = false;
  private readonly seriesRecord = new SeriesRecordBuilder();
  private unlock: () => void = () => {};
  /** Running totals since open. */
  readonly counters: DbCounters = { samplesAppended: 0, samplesIgnored: 0, outOfOrder: 0, conflict: 0, tooOld: 0, seriesCreated: 0 };

  private constructor(private readonly opts: DbOptions) {
    this.log = opts.log ?? silentLog;
    this.retentionMs = opts.retentionMs ?? DEFAULT_RETENTION_MS;
    this.head = new Head(new PostingsIndex(), { chunkRangeMs: opts.chunkRangeMs ?? DEFAULT_CHUNK_RANGE_MS });
  }

  /**
   * Opens the data directory: reopens the chunk segments, replays the WAL
   * (see the recovery rules in docs/format/wal.md and chunks-head.md),
   * applies retention, and starts the background jobs.
   */
  static async open(opts: DbOptions): Promise<Db> {
    const db = new Db(opts);
    mkdirSync(opts.dataDir, { recursive: true });
    db.unlock = lockDataDir(opts.dataDir);
    try {
      await db.recover();
    } catch (err) {
      db.unlock();
      throw err;
    }
    db.applyRetentionNow();
    const every = opts.retentionIntervalMs ?? 60_000;
    db.retentionTimer = setInterval(() => db.applyRetentionNow(), every);
    db.retentionTimer.unref();
    return db;
  }

  /** Oldest timestamp held, Infinity when empty. */
  get minTime(): number {
    if (this.minTDirty) this.recomputeMinTime();
    return this.minT;
  }

  /** Newest timestamp held, -Infinity when empty. */
  get maxTime(): number {
    return this.maxT;
  }

  get seriesCount(): number {
    return this.head.seriesCount;
  }

  /**
   * The oldest timestamp a sample may have: the newest held minus the
   * retention; anything older would be deleted at once. An empty store
   * accepts any timestamp.
   */
  get minValidTime(): number {
    return this.maxT === -Infinity ? -Infinity : this.maxT - this.retentionMs;
  }

  /** Reads of the data; see Querier. */
  querier(): Querier {
    return new Querier(this.head, this.chunks, this);
  }

  /**
   * Appends a batch (AppendBatchBuilder / the pool's parser make them).
   * Every valid sample is stored even when others are rejected; the result
   * counts both (rejectionError() turns it into the typed error). Returns
   * after the WAL record reached the OS.
   */
  append(batch: ArrayBuffer): AppendResult {
    this.assertWritable();
    const walSeg = this.wal.segment;
    const series = this.seriesRecord;
    series.reset();
    const result = this.head.append(batch, this.minValidTime, walSeg, (s, bytes) => series.add(s.id, bytes));
    try {
      if (!series.empty) this.wal.append(RECORD_SERIES, series.payload());
      const samples = this.head.walPayload();
      if (samples.length > 0) this.wal.append(RECORD_SAMPLES, samples);
    } catch (err) {
      // The head holds samples the WAL does not: stop taking writes; a
      // restart recovers exactly what was acknowledged.
      this.broken = err;
      this.log.error({ err }, 'WAL write failed; the store takes no more writes');
      throw storeUnavailable(`WAL write failed: ${(err as Error).message}`);
    }
    this.storeCuts();
    const c = this.counters;
    c.samplesAppended += result.appended;
    c.samplesIgnored += result.ignored;
    c.outOfOrder += result.outOfOrder;
    c.conflict += result.conflict;
    c.tooOld += result.tooOld;
    c.seriesCreated += result.created;
    if (result.appended > 0) {
      if (result.minT < this.minT) this.minT = result.minT;
      if (result.maxT > this.maxT) this.maxT = result.maxT;
    }
    this.maybeTruncateWal();
    return result;
  }

  /**
   * Deletes data older than the retention window, by whole chunk files,
   * and drops series left with no data.
   */
  applyRetentionNow(): RetentionResult {
    if (this.maxT === -Infinity || this.closed) return { cutoff: -Infinity, deletedFiles: 0, droppedSeries: 0 };
    const cutoff = this.maxT - this.retentionMs;
    const gone = this.chunks.deleteEndingBefore(cutoff);
    const drop: number[] = [];
    for (const s of this.head.all()) {
      // Chunks ending before the cutoff are gone for readers now; their bytes
      // go when their whole file does.
      if (s.chunks.length > 0 && s.chunks[2]! < cutoff) s.chunks = keepChunks(s.chunks, cutoff);
      const open = this.head.openChunk(s);
      if (open !== undefined && open.maxT < cutoff) this.head.dropOpen(s);
      if (s.chunks.length === 0 && (open === undefined || open.maxT < cutoff)) drop.push(s.id);
    }
    this.head.drop(Uint32Array.from(drop));
    if (gone.length > 0 || drop.length > 0) {
      this.minTDirty = true;
      this.log.info({ cutoff, deletedFiles: gone.length, droppedSeries: drop.length }, 'retention deleted old data');
    }
    return { cutoff, deletedFiles: gone.length, droppedSeries: drop.length };
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

  /** Bytes on disk: WAL and chunk segments. */
  diskBytes(): { wal: number; chunks: number } {
    return { wal: this.wal.diskBytes(), chunks: this.chunks.diskBytes() };
  }

  /** fsyncs the WAL now. */
  sync(): Promise<void> {
    return this.wal.sync();
  }

  /**
   * Stops the background jobs, flushes the head (every open chunk to the
   * chunk files, then a checkpoint that leaves the WAL empty, so the next
   * start has nothing to replay and the data sits on disk compressed),
   * fsyncs everything and closes the files.
   */
  async close(opts: { flush?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.retentionTimer);
    await this.truncating;
    if ((opts.flush ?? true) && this.broken === undefined) await this.flushHead();
    await this.chunks.close();
    await this.wal.close();
    this.unlock();
  }

  /** Cuts every open chunk into the chunk files, fsyncs them, and checkpoints the WAL past everything. */
  private async flushHead(): Promise<void> {
    let visited = 0;
    for (const s of this.head.all()) {
      this.head.cutOpen(s);
      if (++visited % YIELD_EVERY_SERIES === 0) this.storeCuts();
    }
    this.storeCuts();
    await this.chunks.sync();
    const next = this.wal.roll();
    await this.wal.checkpoint(next, this.checkpointRecords());
    this.walFirstSegment = next;
  }

  private async recover(): Promise<void> {
    const dir = this.opts.dataDir;
    mkdirSync(dir, { recursive: true });
    const pending = new Map<number, number[]>();
    const started = Date.now();
    this.chunks = ChunkSegments.open(
      { dir: join(dir, 'chunks_head'), segmentBytes: this.opts.chunkSegmentBytes, log: this.log },
      (id, ref, minT, maxT) => {
        let list = pending.get(id);
        if (list === undefined) pending.set(id, (list = []));
        list.push(ref, minT, maxT);
      },
    );
    let firstSegment = Infinity;
    let records = 0;
    const onSeries = (id: number, bytes: Uint8Array): void => {
      const s = this.head.createFromBytes(id, bytes);
      if (s === undefined) return;
      const chunks = pending.get(id);
      if (chunks !== undefined) {
        s.chunks = chunks;
        pending.delete(id);
        this.restoreNewest(s);
      }
    };
    this.wal = await Wal.open(
      { dir: join(dir, 'wal'), segmentBytes: this.opts.walSegmentBytes, fsyncIntervalMs: this.opts.walFsyncIntervalMs, log: this.log },
      (type, payload, segment) => {
        records++;
        if (segment < firstSegment) firstSegment = segment;
        if (type === RECORD_SERIES || type === RECORD_SERIES_SNAPPY) {
          const plain = type === RECORD_SERIES ? payload : (uncompressSync(payload, { copyOutputData: true }) as Buffer);
          if (!readSeriesRecord(plain, onSeries)) throw new Error(`WAL segment ${segment}: malformed series record`);
        } else if (type === RECORD_SAMPLES) {
          if (!this.head.replay(payload, segment)) throw new Error(`WAL segment ${segment}: malformed samples record`);
          this.storeCuts();
        }
      },
    );
    this.walFirstSegment = Number.isFinite(firstSegment) ? firstSegment : this.wal.segment;
    // Chunks of series no WAL record names belong to series retention dropped.
    const orphans = pending.size;
    // A series record whose samples never reached the WAL (a crash between the
    // two writes, or every sample rejected) leaves a series without data.
    const empty: number[] = [];
    for (const s of this.head.all()) if (this.head.newest(s) === undefined) empty.push(s.id);
    this.head.drop(Uint32Array.from(empty));
    this.recomputeTimes();
    this.log.info({
      series: this.head.seriesCount, walRecords: records, orphanSeriesChunks: orphans, ms: Date.now() - started,
    }, 'storage recovered');
  }

  /** After a restart a series whose data is all in chunk files needs its newest sample back. */
  private restoreNewest(s: Series): void {
    const n = s.chunks.length;
    if (n === 0) return;
    const data = this.chunks.read(s.chunks[n - 3]!);
    const samples = threadCodec().decode(data);
    const last = samples.timestamps.length - 1;
    if (last < 0) return;
    this.head.setNewest(s, Number(samples.timestamps[last]!), samples.values.subarray(last));
  }

  private storeCuts(): void {
    const head = this.head;
    const chunks = this.chunks;
    head.drainCuts((c) => {
      const s = head.get(c.id);
      const ref = chunks.add(c.id, c.minT, c.maxT, c.data);
      s?.chunks.push(ref, c.minT, c.maxT);
    });
    chunks.flush();
  }

  private maybeTruncateWal(): void {
    const keep = this.opts.walSegmentsKept ?? 3;
    if (this.truncating === undefined && this.wal.segment - this.walFirstSegment > keep) {
      this.truncateWal(keep).catch((err: unknown) => this.log.error({ err }, 'WAL truncation failed'));
    }
  }

  private async doTruncate(keep: number): Promise<void> {
    const target = this.wal.segment - keep + 1;
    if (target <= this.walFirstSegment) return;
    let cut = 0;
    let visited = 0;
    for (const s of this.head.all()) {
      if (this.head.openChunkWalSeg(s) < target && this.head.cutOpen(s)) cut++;
      if (++visited % YIELD_EVERY_SERIES === 0) {
        this.storeCuts();
        await yieldToEventLoop();
      }
    }
    this.storeCuts();
    await this.chunks.sync();
    await this.wal.checkpoint(target, this.checkpointRecords());
    this.walFirstSegment = target;
    this.log.info({ checkpoint: target, cutChunks: cut, series: this.head.seriesCount }, 'WAL truncated');
  }

  /** SERIES records of every live series, yielding to the event loop between records. */
  private async *checkpointRecords(): AsyncIterableIterator<{ type: number; payload: Uint8Array }> {
    const b = new SeriesRecordBuilder();
    let n = 0;
    for (const s of this.head.all()) {
      b.add(s.id, this.head.labelBytes(s));
      if (++n === CHECKPOINT_SERIES_PER_RECORD) {
        yield { type: RECORD_SERIES_SNAPPY, payload: compressSync(b.payload(), { copyOutputData: true }) };
        b.reset();
        n = 0;
        await yieldToEventLoop();
      }
    }
    if (!b.empty) yield { type: RECORD_SERIES_SNAPPY, payload: compressSync(b.payload(), { copyOutputData: true }) };
  }

  private recomputeTimes(): void {
    let max = -Infinity;
    for (const s of this.head.all()) {
      const t = this.head.newest(s);
      if (t !== undefined && t > max) max = t;
    }
    this.maxT = max;
    this.recomputeMinTime();
  }

  private recomputeMinTime(): void {
    let min = Infinity;
    for (const s of this.head.all()) {
      const t = this.head.oldest(s);
      if (t !== undefined && t < min) min = t;
    }
    this.minT = min;
    this.minTDirty = false;
  }

  private assertWritable(): void {
    if (this.closed) throw storeUnavailable('the store is closed');
    if (this.broken !== undefined) throw storeUnavailable(`an earlier WAL write failed: ${(this.broken as Error).message}`);
  }
}

function keepChunks(chunks: number[], cutoff: number): number[] {
  const kept: number[] = [];
  for (let i = 0; i < chunks.length; i += 3) {
    if (chunks[i + 2]! < cutoff) continue;
    kept.push(chunks[i]!, chunks[i + 1]!, chunks[i + 2]!);
  }
  return kept;
}
