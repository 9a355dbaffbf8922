/**
 * The record store: RecordStore over append-only, memory-mapped segment
 * files in one directory. Writes go to the active segment with a plain
 * write (so the index can point at them at once) and are acknowledged by a
 * shared fsync; reads come from the maps.
 */
import { closeSync, ftruncateSync, mkdirSync, openSync } from 'node:fs';
import { syncData, syncFd } from '../files/durable.js';
import type { CompactionHost } from './compaction.js';
import { Compactor } from './compactor.js';
import { encodeOp } from './encode-op.js';
import { commitTooLarge, storeClosed, storeFailed, unknownCollection } from './errors.js';
import { collectionCode, FRAME_HEADER_SIZE, HEADER_SIZE, MAX_PAYLOAD } from './format.js';
import { GroupCommit } from './group-commit.js';
import { encodeOpsFrame, frameSize, opSize } from './ops-codec.js';
import { resolveOptions, type RecordStoreOptions, type ResolvedOptions } from './options.js';
import { RecordIndex, type CollectionIndex, type Location } from './record-index.js';
import { recover } from './recovery.js';
import { scanCollection } from './scan.js';
import { Segment } from './segment.js';
import { isDiskFault } from '../files/disk-reserve.js';
import { storeUnavailable } from '../errors/errors.js';
import type { Collection, RecordStore, RecordValue, WriteOp } from './types.js';

/** Counters, for tests and metrics. */
export interface RecordStoreStats {
  /** fsync/fdatasync calls made to acknowledge commits (files and directory). */
  fsyncs: number;
  /** Group-commit rounds: each acknowledged every commit made before it began. */
  syncRounds: number;
  /** Commits written. */
  commits: number;
  /** Segment files, the active one included. */
  segments: number;
  /** Compactions finished. */
  compactions: number;
  /** Bytes of ops in all segments, and of those, dead (superseded or deleted). */
  opBytes: number;
  deadBytes: number;
}

/**
 * Opens (creating if need be) the record store in `dir`, normally
 * `DATA/records`. Recovers first: replays every segment, truncates a torn
 * tail of the last one (logged), and throws RecordsCorruptError naming the
 * file and offset of any other damage.
 *
 * @example
 * const store = await openRecordStore(join(dataDir, 'records'), { logger });
 * await store.commit([{ op: 'put', collection: 'tasks', id: store.lastId('tasks') + 1, value: task }]);
 * await store.close();
 */
export async function openRecordStore(dir: string, options?: RecordStoreOptions): Promise<SegmentRecordStore> {
  return SegmentRecordStore.open(dir, options);
}

export class SegmentRecordStore implements RecordStore {
  private readonly index = new RecordIndex();
  private segments: Segment[] = [];
  private closing = false;
  private maxNum = 0;
  private active: Segment | undefined;
  private readonly dirty = new Set<Segment>();
  private dirDirty = false;
  private readonly group: GroupCommit;
  private readonly compactor: Compactor;
  private failure: { err: unknown } | undefined;
  private closed: Promise<void> | undefined;
  private counts = { fsyncs: 0, commits: 0 };

  private constructor(
    private readonly dir: string,
    private readonly dirFd: number,
    private readonly opts: ResolvedOptions,
  ) {
    this.group = new GroupCommit(() => this.syncDirty(), (err) => this.fail(err));
    this.compactor = new Compactor(this.compactionHost(), () => this.failure !== undefined);
    this.index.onDead = (seg) => this.compactor.consider(seg);
  }

  /** See openRecordStore. */
  static async open(dir: string, options?: RecordStoreOptions): Promise<SegmentRecordStore> {
    const opts = resolveOptions(options);
    mkdirSync(dir, { recursive: true });
    const dirFd = openSync(dir, 'r');
    const store = new SegmentRecordStore(dir, dirFd, opts);
    try {
      const { segments, maxNum } = recover(dir, opts, store.index);
      store.segments = segments;
      store.maxNum = maxNum;
      const last = segments[segments.length - 1];
      if (last !== undefined && !last.sealed) store.active = last;
      else store.startSegment();
      await store.group.request();
    } catch (err) {
      closeSync(dirFd);
      throw err;
    }
    store.compactor.schedule();
    return store;
  }

  lastId(collection: Collection): number {
    return this.collection(collection).lastId;
  }

  get(collection: Collection, id: number): RecordValue | undefined {
    const loc = this.collection(collection).byId.get(id);
    return loc === undefined ? undefined : parse(loc);
  }

  getJson(collection: Collection, id: number): Uint8Array | undefined {
    const loc = this.collection(collection).byId.get(id);
    return loc === undefined ? undefined : view(loc);
  }

  scan(collection: Collection, afterId = 0): IterableIterator<[number, RecordValue]> {
    return scanCollection(this.collection(collection), afterId, parse);
  }

  /**
   * Like scan, but yields each record's stored JSON, a view as getJson
   * returns: a list can be answered without parsing and re-serializing.
   */
  scanJson(collection: Collection, afterId = 0): IterableIterator<[number, Uint8Array]> {
    return scanCollection(this.collection(collection), afterId, view);
  }

  count(collection: Collection): number {
    return this.collection(collection).byId.size;
  }

  commit(ops: readonly WriteOp[]): Promise<void> {
    if (this.closing) throw storeClosed();
    if (this.failure) throw storeFailed(this.failure.err);
    if (ops.length === 0) return Promise.resolve();
    const encoded = ops.map(encodeOp);
    const bytes = frameSize(encoded);
    if (bytes - FRAME_HEADER_SIZE > MAX_PAYLOAD) throw commitTooLarge(bytes, MAX_PAYLOAD);
    const { frame, valueAt } = encodeOpsFrame(encoded);
    let seg: Segment;
    let at: number;
    try {
      seg = this.segmentFor(frame.length);
      at = seg.append(frame);
    } catch (err) {
      // Cut back: nothing of this commit is on disk or in memory.
      if (this.active?.broken === true) {
        this.fail(err);
        throw storeFailed(err);
      }
      if (isDiskFault(err)) throw storeUnavailable(`the JSON records could not be written (${(err as NodeJS.ErrnoException).code}); writes resume once the disk takes them`);
      throw err;
    }
    encoded.forEach((op, i) => {
      if (op.json === undefined) this.index.delete(op.code, op.id, seg, opSize(op.id, undefined));
      else this.index.put(op.code, op.id, seg, at + valueAt[i]!, op.json.length, opSize(op.id, op.json.length));
    });
    this.dirty.add(seg);
    this.counts.commits++;
    return this.group.request();
  }

  /**
   * Compacts now every sealed segment holding any garbage, after any
   * compaction already running. For tests and maintenance; background
   * compaction needs no call.
   */
  compactNow(): Promise<void> {
    return this.compactor.now();
  }

  stats(): RecordStoreStats {
    let opBytes = 0;
    let deadBytes = 0;
    for (const s of this.segments) {
      opBytes += s.opBytes;
      deadBytes += s.deadBytes;
    }
    return {
      fsyncs: this.counts.fsyncs,
      syncRounds: this.group.rounds,
      commits: this.counts.commits,
      segments: this.segments.length,
      compactions: this.compactor.done,
      opBytes,
      deadBytes,
    };
  }

  close(): Promise<void> {
    this.closed ??= this.shutDown();
    return this.closed;
  }

  private async shutDown(): Promise<void> {
    this.closing = true;
    await this.compactor.idle();
    await this.group.idle();
    const active = this.active;
    if (active !== undefined && this.failure === undefined) {
      // Leave the file at its data's length; the next open preallocates again.
      ftruncateSync(active.fd, active.size);
      await syncData(active.fd);
    }
    for (const seg of this.segments) if (seg.syncing === 0) seg.closeFd();
    closeSync(this.dirFd);
  }

  private collection(collection: Collection): CollectionIndex {
    const code = collectionCode(collection);
    if (code === 0) throw unknownCollection(collection);
    return this.index.of(code);
  }

  /** The active segment, rolled or grown so that `bytes` more fit. */
  private segmentFor(bytes: number): Segment {
    let seg = this.active;
    if (seg !== undefined && seg.size > HEADER_SIZE && seg.size + bytes > this.opts.segmentBytes) {
      this.seal(seg);
      seg = undefined;
    }
    seg ??= this.startSegment();
    if (!seg.fits(bytes)) seg.grow(seg.size + bytes);
    return seg;
  }

  /**
   * Makes a new active segment. Its header holds the last ids, and every
   * id written later lands in its ops: this is what keeps last ids from
   * going down when compaction deletes older files. The next sync (which a
   * compaction awaits before deleting anything) makes it durable.
   */
  private startSegment(): Segment {
    const num = ++this.maxNum;
    const seg = Segment.create(this.dir, { flags: 0, num, first: num, last: num, lastIds: this.index.lastIds() }, this.opts.segmentBytes);
    this.segments.push(seg);
    this.active = seg;
    this.dirty.add(seg);
    this.dirDirty = true;
    return seg;
  }

  private seal(seg: Segment): void {
    this.dirty.delete(seg);
    this.active = undefined;
    try {
      seg.seal();
    } catch (err) {
      this.fail(err);
      throw storeFailed(err);
    }
    this.compactor.sealed(seg);
  }

  /** One group-commit round: fdatasync every segment written since the last, and the directory if it changed. */
  private async syncDirty(): Promise<void> {
    const segs = [...this.dirty];
    this.dirty.clear();
    const dir = this.dirDirty;
    this.dirDirty = false;
    await Promise.all(segs.map(async (seg) => {
      seg.syncing++;
      try {
        await syncData(seg.fd);
      } finally {
        if (--seg.syncing === 0 && seg.sealed) seg.closeFd();
      }
    }));
    if (dir) await syncFd(this.dirFd);
    this.counts.fsyncs += segs.length + (dir ? 1 : 0);
  }

  private fail(err: unknown): void {
    if (this.failure) return;
    this.failure = { err };
    this.opts.onFatal(err);
  }

  /** What compaction sees of the store. */
  private compactionHost(): CompactionHost {
    const store = this;
    return {
      dir: this.dir,
      opts: this.opts,
      index: this.index,
      get segments() { return store.segments; },
      get closing() { return store.closing; },
      allocateNum: () => ++this.maxNum,
      barrier: () => this.group.request(),
      syncDir: () => syncFd(this.dirFd),
    };
  }
}

function parse(loc: Location): RecordValue {
  return JSON.parse(loc.seg.map.toString('utf8', loc.at, loc.at + loc.len)) as RecordValue;
}

function view(loc: Location): Uint8Array {
  return loc.seg.map.subarray(loc.at, loc.at + loc.len);
}
