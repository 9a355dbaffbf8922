import { join } from 'node:path';
import { listBlockDirs } from '../blocks/block-reader.js';
import { readMetaFile } from '../blocks/meta.js';
import type { BlockMeta } from '../blocks/types.js';
import type { Bucket } from '../objstore/bucket.js';
import { SHIPPER_FILENAME, readShipperFile, writeShipperFile } from './shipper-file.js';
import { BLOCK_FILES_IN_FLIGHT, FileLanes } from './upload-files.js';
import { isHeldBack, uploadBlock, type ShipLabels } from './upload.js';

export interface ShipperLog {
  info(o: object, msg: string): void;
  warn(o: object, msg: string): void;
  error(o: object, msg: string): void;
}

/** Counters as Thanos' shipper names them (thanos_shipper_*), plus what Strata adds. */
export interface ShipperCounters {
  dirSyncs: number;
  dirSyncFailures: number;
  uploads: number;
  uploadFailures: number;
  corruptedBlocks: number;
  /** Bytes uploaded since start. */
  uploadedBytes: number;
}

export interface ShipperOptions {
  bucket: Bucket;
  /** The directory holding the blocks (Strata's DATA/blocks, or a Prometheus' data directory). */
  blocksDir: string;
  /** Where `thanos.shipper.json` lives (the data directory). */
  metaDir: string;
  /** The labels and source to stamp, read at each upload (a Prometheus' external labels may change). */
  ship: () => ShipLabels;
  /** Ship compacted blocks too (Thanos' --shipper.upload-compacted); default: level 1 only. */
  uploadCompacted?: boolean;
  /**
   * Files uploaded at once over a pass (Thanos' --shipper.upload-concurrency,
   * where 0, Thanos' default, sends one at a time: so do 0 and 1 here).
   * Default BLOCK_FILES_IN_FLIGHT (2).
   */
  uploadConcurrency?: number;
  /** Seconds between passes when nothing else asks for one (Thanos: 30 s). */
  intervalMs?: number;
  /** Longest wait between retries after failures (doubling from 1 s). */
  maxBackoffMs?: number;
  /** Called when a block's data is uploaded and its meta.json is next (tests stop the process there). */
  beforeMeta?: () => void;
  log: ShipperLog;
}

/**
 * Thanos' shipper: uploads every new level-1 block of a directory to a
 * bucket, once. `thanos.shipper.json` records what was shipped (Thanos'
 * format, written durably), so a restart ships nothing twice; a block
 * whose meta.json is already in the bucket (an upload that ended, then a
 * crash before the record was written) is recorded, not uploaded again. A
 * block half uploaded when the process died has no meta.json in the
 * bucket and is uploaded again whole. Passes run one at a time in the
 * background; a failure backs off (1 s doubling to maxBackoffMs) and never
 * holds up writes or reads.
 */
export class Shipper {
  readonly counters: ShipperCounters = { dirSyncs: 0, dirSyncFailures: 0, uploads: 0, uploadFailures: 0, corruptedBlocks: 0, uploadedBytes: 0 };
  private shipped = new Set<string>();
  private pendingBlocks = 0;
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = false;
  private readonly metaPath: string;

  constructor(private readonly opts: ShipperOptions) {
    this.metaPath = join(opts.metaDir, SHIPPER_FILENAME);
  }

  /** Reads what was shipped before, then runs a pass now and every intervalMs. */
  async start(): Promise<void> {
    const meta = await readShipperFile(this.metaPath, (err) => this.opts.log.warn({ err: err.message }, 'shipper record unreadable; the bucket will be asked instead'));
    this.shipped = new Set(meta.uploaded);
    this.trigger();
  }

  /** Whether block `ulid` is in the bucket (then retention may delete it locally). */
  isShipped(ulid: string): boolean {
    return this.shipped.has(ulid);
  }

  /** Blocks waiting to be shipped after the last pass. */
  get pending(): number {
    return this.pendingBlocks;
  }

  /** Asks for a pass soon (a new block exists); passes never overlap. */
  trigger(): void {
    if (this.stopped) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.pass().finally(() => {
      this.running = undefined;
      if (this.stopped) return;
      if (this.again) {
        this.again = false;
        this.trigger();
        return;
      }
      const backoff = this.failures === 0 ? (this.opts.intervalMs ?? 30_000) : Math.min(1000 * 2 ** (this.failures - 1), this.opts.maxBackoffMs ?? 300_000);
      this.timer = setTimeout(() => this.trigger(), backoff);
      this.timer.unref();
    });
  }

  /** Runs one pass and waits for it (and any pass running), for tests and shutdown. */
  async syncNow(): Promise<void> {
    while (this.running !== undefined) await this.running;
    this.trigger();
    while (this.running !== undefined) await this.running;
  }

  /** Stops the timer and waits for a pass in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    while (this.running !== undefined) await this.running;
  }

  private async pass(): Promise<void> {
    const { log } = this.opts;
    try {
      const ok = await this.sync();
      this.counters.dirSyncs++;
      this.failures = ok ? 0 : this.failures + 1;
    } catch (err) {
      this.counters.dirSyncFailures++;
      this.failures++;
      log.error({ err: (err as Error).message, bucket: this.opts.bucket.name }, 'shipper pass failed; retrying with backoff');
    }
  }

  /**
   * One pass, as Thanos' Shipper.Sync: every block not recorded as shipped,
   * oldest first, is looked up in the bucket and uploaded when missing; the
   * first upload that fails ends the pass (blocks go in order). A block's
   * data goes up while the block before finishes (its last part,
   * CompleteMultipartUpload, its meta.json), over lanes shared by the pass
   * (uploadConcurrency files in flight at most), but its meta.json only after that
   * block's: at most two blocks in flight. Returns false when an upload
   * failed.
   */
  private async sync(): Promise<boolean> {
    const { bucket, log } = this.opts;
    const metas: Array<{ dir: string; meta: BlockMeta }> = [];
    for (const dir of listBlockDirs(this.opts.blocksDir)) {
      try {
        metas.push({ dir, meta: await readMetaFile(dir) });
      } catch (err) {
        // A block being deleted, or a broken one: counted, left alone.
        this.counters.corruptedBlocks++;
        log.warn({ dir, err: (err as Error).message }, 'shipper skips a block it cannot read');
      }
    }
    metas.sort((a, b) => a.meta.minTime - b.meta.minTime || (a.meta.ulid < b.meta.ulid ? -1 : 1));
    const shipped = new Set<string>();
    const lanes = new FileLanes(bucket, Math.max(1, this.opts.uploadConcurrency ?? BLOCK_FILES_IN_FLIGHT));
    let ok = true;
    let pending = 0;
    let previous: { ulid: string; started: number; done: Promise<number> } | undefined;
    const failed = (ulid: string, err: unknown): void => {
      ok = false;
      pending++;
      this.counters.uploadFailures++;
      log.error({ block: ulid, err: (err as Error).message, bucket: bucket.name }, 'block upload failed; it stays local and is retried');
    };
    /** Waits for the block in flight and counts how it went. */
    const settle = async (): Promise<void> => {
      const b = previous;
      if (b === undefined) return;
      previous = undefined;
      try {
        const bytes = await b.done;
        shipped.add(b.ulid);
        this.shipped.add(b.ulid);
        this.counters.uploads++;
        this.counters.uploadedBytes += bytes;
        log.info({ block: b.ulid, bytes, ms: Date.now() - b.started, bucket: bucket.name }, 'block shipped');
      } catch (err) {
        if (!isHeldBack(err)) return failed(b.ulid, err);
        // Held back behind a failed block: pending, not a failure of its own.
        ok = false;
        pending++;
      }
    };
    for (const { dir, meta } of metas) {
      if (this.shipped.has(meta.ulid)) {
        shipped.add(meta.ulid);
        continue;
      }
      if (meta.stats.numSamples === 0) continue;
      if (meta.compaction.level > 1 && this.opts.uploadCompacted !== true) continue;
      if (!ok) {
        pending++;
        continue;
      }
      let there: boolean;
      try {
        there = await bucket.exists(`${meta.ulid}/meta.json`);
      } catch (err) {
        await settle();
        failed(meta.ulid, err);
        continue;
      }
      if (there) {
        shipped.add(meta.ulid);
        this.shipped.add(meta.ulid);
        continue;
      }
      const before = previous;
      const current = {
        ulid: meta.ulid,
        started: Date.now(),
        done: uploadBlock(bucket, dir, meta, this.opts.ship(), { beforeMeta: this.opts.beforeMeta, lanes, ...(before !== undefined ? { after: before.done } : {}) }),
      };
      current.done.catch(() => {});
      // The block before settles while this one's data goes up.
      await settle();
      previous = current;
    }
    await settle();
    this.pendingBlocks = pending;
    // Only blocks that still exist locally stay in the record, as in Thanos.
    this.shipped = shipped;
    await writeShipperFile(this.metaPath, { version: 1, uploaded: [...shipped] });
    return ok;
  }
}
