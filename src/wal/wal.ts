/**
 * The write-ahead log: payload-agnostic typed records in numbered segment
 * files, replayed on open, cut short by checkpoints. Format and recovery
 * rules: docs/format/wal.md.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeCheckpointFile } from './checkpoint-file.js';
import { syncDir } from '../files/durable.js';
import { badCheckpoint, walClosed, walFailed } from './errors.js';
import { FILE_HEADER_BYTES, FRAME_HEADER_BYTES, checkpointName, segmentName } from './format.js';
import { allocFrameHeader, encodeFrameHeader } from './frame.js';
import { resolveWalOptions } from './options.js';
import type { ResolvedWalOptions, WalOptions } from './options.js';
import { checkRecordType, payloadLength } from './record-input.js';
import type { WalPayload, WalRecord } from './record-input.js';
import { replayWalDir } from './replay.js';
import type { ReplayResult, ReplaySink, WalDamage, WalFileSize } from './replay.js';
import { SegmentFile } from './segment-file.js';

/** Counters for metrics; they only grow. */
export interface WalStats {
  /** Records appended since open. */
  appends: number;
  /** Bytes appended since open, frame headers included. */
  appendedBytes: number;
  /** Completed fdatasyncs of segment files (directory syncs not counted). */
  fsyncs: number;
  /** Segments started since open, the one open() starts included. */
  segmentsCreated: number;
}

const NO_BYTES = new Uint8Array(0);

/**
 * A write-ahead log in one directory, owned by one writer on one thread
 * (append, roll, checkpoint, close); any number of callers may await
 * sync() at once. Nothing stops a second process from opening the same
 * directory: the engine's data-directory lock must.
 *
 * @example
 * const wal = await Wal.open({ dir: 'data/wal' }, (type, payload) => head.replay(type, payload));
 * wal.append(RECORD_SAMPLES, [batchHeader, batchBody]); // in the OS: survives kill -9
 * await wal.sync();                                      // on disk: survives power loss
 */
export class Wal {
  private cur: SegmentFile;
  /** Sizes of the closed segments still on disk, by number. */
  private readonly older = new Map<number, number>();
  private olderBytes = 0;
  private ckpt: WalFileSize | undefined;
  /** Closes of full segments (fsync, then close) still running. */
  private readonly retiring = new Set<Promise<void>>();
  /** Directory entries created / made durable, to know when the directory needs an fsync. */
  private dirChanges = 0;
  private dirSynced = 0;
  private failure: unknown;
  /** What replay at open found damaged and skipped. */
  readonly damaged: readonly WalDamage[];
  private state: 'open' | 'closing' | 'closed' = 'open';
  private timer: NodeJS.Timeout | undefined;
  private checkpointChain: Promise<void> = Promise.resolve();
  private closing: Promise<void> | undefined;
  private readonly header = allocFrameHeader();
  /** Reused writev list for a one-part payload: header, payload. */
  private readonly oneOf: [Uint8Array, Uint8Array] = [this.header, NO_BYTES];
  private readonly counters: WalStats = { appends: 0, appendedBytes: 0, fsyncs: 0, segmentsCreated: 0 };
  private readonly countSync = (): void => {
    this.counters.fsyncs++;
  };

  private constructor(private readonly o: ResolvedWalOptions, replayed: ReplayResult) {
    for (const s of replayed.segments) {
      this.older.set(s.n, s.bytes);
      this.olderBytes += s.bytes;
    }
    this.ckpt = replayed.checkpoint;
    this.damaged = replayed.damaged;
    this.cur = SegmentFile.createWhenPossible(this.o.dir, replayed.next, this.countSync);
    this.dirChanges++;
    this.counters.segmentsCreated++;
  }

  /**
   * Opens the WAL in `opts.dir` (creating the directory) and replays it:
   * `onRecord` is called for every record of the newest checkpoint, then
   * of every segment after it, in the order they were written. The
   * `payload` view is valid only during the call. `segment` is the
   * record's segment number; records of checkpoint N come with N - 1.
   *
   * A torn tail of the last segment is cut off (logged with file, offset,
   * bytes dropped). Other damage (a record failing its checks anywhere, a
   * damaged file header, missing segments) is skipped, logged and listed
   * in `damaged`: replay goes on at the next whole record, so only the
   * damaged records are lost. After a successful replay, what a crash left is
   * removed: a half-written checkpoint, checkpoints older than the newest,
   * segments it covers. An exception thrown by `onRecord` rejects the open.
   *
   * Appends then go to a new segment.
   */
  static async open(opts: WalOptions, onRecord: ReplaySink): Promise<Wal> {
    const o = resolveWalOptions(opts);
    const replayed = await replayWalDir(o.dir, o.log, onRecord, { progress: o.replayProgress });
    const wal = new Wal(o, replayed);
    try {
      await wal.syncDirIfChanged();
    } catch (err) {
      wal.cur.closeNow();
      throw err;
    }
    wal.startTimer();
    return wal;
  }

  /** Number of the segment appends go to. */
  get segment(): number {
    return this.cur.n;
  }

  /**
   * Appends one record of `type` (1..255) whose payload is `payload`, or
   * its parts written back to back (a header and a body need no
   * concatenation). Returns the number of the segment it went to.
   *
   * When this returns, the record is in the operating system (one pwritev,
   * no copy of the payload) and survives kill -9 of the process; it is
   * durable against power loss after the next fsync (see sync()). The
   * payload buffers may be reused as soon as this returns. Records are
   * replayed in the order of their appends.
   *
   * Throws a WalError on a bad type, an oversized payload, a closed WAL, or
   * after a failed fsync; a failed write throws its error and leaves the
   * segment as it was.
   */
  append(type: number, payload: WalPayload): number {
    this.assertWritable();
    checkRecordType(type);
    const length = payloadLength(payload);
    const total = FRAME_HEADER_BYTES + length;
    if (this.cur.size > FILE_HEADER_BYTES && this.cur.size + total > this.o.segmentBytes) this.startNextSegment();
    encodeFrameHeader(this.header, type, payload, length);
    let parts: readonly Uint8Array[];
    if (payload instanceof Uint8Array) {
      this.oneOf[1] = payload;
      parts = this.oneOf;
    } else {
      parts = [this.header, ...payload];
    }
    try {
      this.cur.write(parts, total);
    } catch (err) {
      if (this.cur.broken) this.fail(err, 'a failed WAL write could not be undone');
      throw err;
    } finally {
      this.oneOf[1] = NO_BYTES;
    }
    this.counters.appends++;
    this.counters.appendedBytes += total;
    if (this.o.fsyncIntervalMs === 0) this.sync().catch(() => {});
    return this.cur.n;
  }

  /** Whether an fsync failed: appends are refused until restartAfterFailure(). */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /**
   * After a failed fsync: leaves the open segment as it is (without the
   * fsync that failed: the kernel may have dropped its pages) and takes
   * appends again in a new one, whose number is returned. Records of the
   * old segment may not be on disk: the caller must make what they held
   * durable another way before it relies on them (the engine checkpoints
   * its whole head at the returned number, which deletes the old segment).
   */
  restartAfterFailure(): number {
    if (this.failure === undefined) return this.cur.n;
    const bad = this.cur;
    bad.closeNow();
    this.older.set(bad.n, bad.size);
    this.olderBytes += bad.size;
    this.cur = SegmentFile.createWhenPossible(this.o.dir, bad.n + 1, this.countSync);
    this.dirChanges++;
    this.counters.segmentsCreated++;
    this.failure = undefined;
    this.startTimer();
    this.o.log.warn({ dir: this.o.dir, segment: this.cur.n, abandoned: bad.path }, 'WAL takes appends again after a failed fsync');
    return this.cur.n;
  }

  /**
   * Starts a new segment unless the open one holds no record yet, and
   * returns the number appends now go to. Every record appended before is
   * in a lower-numbered segment: the cut a checkpoint needs.
   */
  roll(): number {
    this.assertWritable();
    if (this.cur.size > FILE_HEADER_BYTES) this.startNextSegment();
    return this.cur.n;
  }

  /**
   * Resolves when every record appended before the call is durable (its
   * segment fdatasynced on the libuv pool, new segment files' directory
   * entries too). Calls that overlap share fsyncs. Rejects with a WalError
   * if an fsync failed, now or earlier: the WAL then refuses appends.
   */
  async sync(): Promise<void> {
    if (this.state === 'closed') throw walClosed();
    const cur = this.cur;
    await Promise.all(this.retiring);
    try {
      await cur.sync();
      await this.syncDirIfChanged();
    } catch (err) {
      this.fail(err, 'WAL fsync failed');
    }
    if (this.failure !== undefined) throw walFailed(this.failure);
  }

  /**
   * Writes checkpoint `n` durably (temporary file, fsync, rename, fsync of
   * the directory) holding `records`, then deletes segments below `n` and
   * older checkpoints. Afterwards replay yields `records`, then the
   * segments from `n` on. `n` must be at most the current segment and at
   * least the newest checkpoint's; roll() gives a clean cut.
   *
   * `records` may be async; each payload is read before the iterator is
   * advanced, so one buffer may serve every record. Appends may go on
   * meanwhile; checkpoints run one at a time in call order.
   */
  checkpoint(n: number, records: Iterable<WalRecord> | AsyncIterable<WalRecord>): Promise<void> {
    try {
      this.assertWritable();
    } catch (err) {
      return Promise.reject(err);
    }
    const run = this.checkpointChain.then(() => this.writeCheckpoint(n, records));
    this.checkpointChain = run.catch(() => {});
    return run;
  }

  /** Bytes of the WAL's files on disk: segments and checkpoint. */
  diskBytes(): number {
    return this.olderBytes + this.cur.size + (this.ckpt?.bytes ?? 0);
  }

  /** A snapshot of the counters. */
  stats(): WalStats {
    return { ...this.counters };
  }

  /**
   * Waits for running checkpoints, fsyncs and closes every file. Appends
   * and new checkpoints are refused from the call on. Rejects (after
   * closing) if an fsync failed. Later calls return the same promise.
   */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.state = 'closing';
    clearInterval(this.timer);
    await this.checkpointChain;
    await Promise.all(this.retiring);
    try {
      await this.cur.close();
      await this.syncDirIfChanged();
    } catch (err) {
      this.fail(err, 'WAL fsync on close failed');
    }
    this.state = 'closed';
    if (this.failure !== undefined) throw walFailed(this.failure);
  }

  private assertWritable(): void {
    if (this.state !== 'open') throw walClosed();
    if (this.failure !== undefined) throw walFailed(this.failure);
  }

  private fail(err: unknown, msg: string): void {
    if (this.failure !== undefined) return;
    this.failure = err;
    clearInterval(this.timer);
    this.o.log.error({ err, dir: this.o.dir }, `${msg}; the WAL refuses writes from now on`);
  }

  private createSegment(n: number): SegmentFile {
    const seg = SegmentFile.create(this.o.dir, n, this.countSync);
    this.dirChanges++;
    this.counters.segmentsCreated++;
    return seg;
  }

  /** Makes the open segment the next one; the full one is fsynced and closed in the background. */
  private startNextSegment(): void {
    const full = this.cur;
    this.cur = this.createSegment(full.n + 1);
    this.older.set(full.n, full.size);
    this.olderBytes += full.size;
    const done = full.close().catch((err: unknown) => this.fail(err, `fsync of full WAL segment ${full.path} failed`));
    this.retiring.add(done);
    void done.then(() => this.retiring.delete(done));
  }

  private async syncDirIfChanged(): Promise<void> {
    const upTo = this.dirChanges;
    if (this.dirSynced >= upTo) return;
    await syncDir(this.o.dir);
    this.dirSynced = Math.max(this.dirSynced, upTo);
  }

  private startTimer(): void {
    if (this.o.fsyncIntervalMs === 0) return;
    this.timer = setInterval(() => {
      if (this.cur.dirty || this.dirSynced < this.dirChanges) this.sync().catch(() => {});
    }, this.o.fsyncIntervalMs);
    this.timer.unref();
  }

  private async writeCheckpoint(n: number, records: Iterable<WalRecord> | AsyncIterable<WalRecord>): Promise<void> {
    if (!Number.isSafeInteger(n) || n < 0) throw badCheckpoint(n, 'not a segment number');
    if (n > this.cur.n) throw badCheckpoint(n, `beyond the current segment ${this.cur.n}`);
    if (this.ckpt !== undefined && n < this.ckpt.n) throw badCheckpoint(n, `older than checkpoint ${this.ckpt.n}`);
    await this.sync();
    const bytes = await writeCheckpointFile(this.o.dir, n, records);
    const old = this.ckpt;
    this.ckpt = { n, bytes };
    // Past this point a crash is harmless: open() removes what is left.
    if (old !== undefined && old.n !== n) await rm(join(this.o.dir, checkpointName(old.n)), { force: true });
    const removed: number[] = [];
    for (const [s, size] of this.older) {
      if (s >= n) continue;
      await rm(join(this.o.dir, segmentName(s)), { force: true });
      this.older.delete(s);
      this.olderBytes -= size;
      removed.push(s);
    }
    this.o.log.info({ dir: this.o.dir, checkpoint: n, bytes, segmentsRemoved: removed.length }, 'WAL checkpoint written');
  }
}
