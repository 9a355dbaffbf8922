import { instantiateHeadWasm, type HeadWasm } from '../wasm/head.js';
import { MergedChunkCache } from './merged-cache.js';
import { CUT, ENTRY, OOO_ENTRY, SLOT, SLOT_HAS_DATA, STAT } from '../wasm/layout.js';
import { WasmMemory } from '../wasm/memory.js';
import { releaseFreePages } from '../wasm/free-pages.js';
import { ENCODING_XOR } from '../chunkenc/encoding.js';
import { viewAppendBatch } from '../record/append-batch.js';
import type { LabelIndex } from './label-index.js';
import type { Series } from './series.js';
import type { ByteArena } from '../query/byte-arena.js';
import { OooHead } from './ooo-head.js';
import { HistogramHead } from './histogram-head.js';
import { NO_CHUNKS } from './series.js';

/** A chunk cut from a series' open chunk; `data` is valid until the next head call. */
export interface CutChunk {
  id: number;
  minT: number;
  maxT: number;
  data: Uint8Array;
}

/** Which samples an append takes (ms; -Infinity / Infinity where there is no bound). */
export interface AppendBounds {
  /** Older samples are too old, unless the out-of-order window takes them. */
  minValidT: number;
  /** Newer samples are too far in the future. */
  maxValidT: number;
  /**
   * The out-of-order window's start (Infinity: no window): samples at or
   * after it that are older than minValidT or than their series' newest
   * are not appended but listed (oooList) for the out-of-order head.
   */
  oooMinT: number;
}

/** Entries [from, to) of a batch. */
export interface EntryRange {
  from: number;
  to: number;
}

/** Bounds that take every sample in order, and none out of order. */
export const NO_BOUNDS: AppendBounds = { minValidT: -Infinity, maxValidT: Infinity, oooMinT: Infinity };

/** What one append did. Counts are of samples. */
export interface HeadAppendStats {
  /** Samples stored: in order, and (oooAppended of them) in the out-of-order head. */
  appended: number;
  /** Of `appended`, samples kept in the out-of-order head (the engine's count; 0 from the head). */
  oooAppended: number;
  /** Same timestamp and value as one held: accepted, stored once. */
  ignored: number;
  outOfOrder: number;
  conflict: number;
  tooOld: number;
  /** Newer than now + --tsdb.too-far-in-future.time-window (out of bounds). */
  tooFarInFuture: number;
  /** Series created by this append. */
  created: number;
  /** Oldest and newest timestamps appended in order (Infinity / -Infinity when none). */
  minT: number;
  maxT: number;
  /** For each rejection reason seen: the batch entry and timestamp of its first sample. */
  first: Partial<Record<RejectKey, { entry: number; t: number }>>;
}

/** The rejection counts of HeadAppendStats. */
export type RejectKey = 'outOfOrder' | 'conflict' | 'tooOld' | 'tooFarInFuture';

const TWO_32 = 4294967296;

/** Label bytes a loadSeries batch copies into module memory at most (one series may exceed it alone). */
const LOAD_BATCH_BYTES = 4 << 20;

/** Samples of entries whose series was not created because none could be taken. */
interface Refused {
  tooOld: number;
  tooFar: number;
  /** The first such entry and its first sample's time, per reason. */
  oldEntry: number;
  oldT: number;
  farEntry: number;
  farT: number;
}

/** oooList() when there is none: no allocation on the in-order path. */
const NO_OOO = new Uint32Array(0);

/**
 * The float value bits the float state holds as a series' newest value
 * while its newest sample is a histogram: a NaN whose payload spells
 * "HISTOG", which neither Prometheus (stale marker 0x7ff0000000000002,
 * its NaN 0x7ff8000000000001) nor JavaScript (0x7ff8000000000000) makes.
 * A float sample at that time is then a conflict; only a float of exactly
 * these bits would be taken for a duplicate.
 */
const HISTOGRAM_NEWEST_WORDS = new Uint32Array([0x53544f47, 0x7ffc4849]);

/** Bytes of merged chunks the head keeps for reads by default: about 100,000 merges of 240 samples. */
const DEFAULT_MERGED_CACHE_BYTES = 32 * 1024 * 1024;

/** An append bound as the module's i64 (infinities as its extremes). */
function i64Bound(t: number): bigint {
  if (t === -Infinity) return -(2n ** 63n);
  if (t === Infinity) return 2n ** 63n - 1n;
  return BigInt(t);
}

/**
 * The in-memory head: series by label hash and by id, the postings index,
 * open chunks and append state in module memory (assembly/head.ts).
 * One writer: every method runs on the thread that owns the head.
 */
export class Head {
  readonly wasm: HeadWasm;
  /** Samples accepted out of order, apart from the in-order chunks (ooo-head.ts). */
  readonly ooo = new OooHead();
  /** Chunks reads made by merging late samples in, for the next read (merged-cache.ts). */
  readonly merged: MergedChunkCache;
  /** Native histogram chunks and state of the series that hold histograms (histogram-head.ts). */
  readonly histograms: HistogramHead;
  private readonly byId: (Series | undefined)[] = [];
  private nextId = 1;
  private live = 0;
  private batchBlock = 0;
  private batchBlockSize = 0;
  private listBlock = 0;
  private listBlockSize = 0;
  /** Views of the module's memory: fetch them again after any call that may allocate there. */
  private readonly mem: WasmMemory;

  constructor(readonly index: LabelIndex, opts: { chunkRangeMs: number; samplesPerChunk?: number; oooReadCacheBytes?: number | undefined }, wasm?: HeadWasm) {
    this.merged = new MergedChunkCache(opts.oooReadCacheBytes ?? DEFAULT_MERGED_CACHE_BYTES);
    this.wasm = wasm ?? instantiateHeadWasm();
    this.mem = new WasmMemory(this.wasm);
    this.wasm.headInit(BigInt(opts.chunkRangeMs), opts.samplesPerChunk ?? 120);
    this.histograms = new HistogramHead({ chunkRangeMs: opts.chunkRangeMs, samplesPerChunk: opts.samplesPerChunk ?? 120 });
  }

  get seriesCount(): number {
    return this.live;
  }

  /** The series with this id, if it exists. */
  get(id: number): Series | undefined {
    return this.byId[id];
  }

  /**
   * Every live series, in id order. One result object serves every step
   * (a generator made one per series: a million small objects per walk of
   * the head); the protocol lets a for-of or a spread consume it so.
   */
  all(): IterableIterator<Series> {
    const byId = this.byId;
    let i = 0;
    const step: { value: Series | undefined; done: boolean } = { value: undefined, done: false };
    const result = step as IteratorResult<Series>;
    const iterator: IterableIterator<Series> = {
      next(): IteratorResult<Series> {
        while (i < byId.length) {
          const s = byId[i++];
          if (s !== undefined) {
            step.value = s;
            return result;
          }
        }
        step.value = undefined;
        step.done = true;
        return result;
      },
      [Symbol.iterator](): IterableIterator<Series> {
        return iterator;
      },
    };
    return iterator;
  }

  /** The next id a new series gets; recovery raises it past every id seen. */
  reserveIds(next: number): void {
    if (next > this.nextId) this.nextId = next;
  }

  /**
   * Appends a batch (see src/record/append-batch.ts). Series that do not exist are
   * created and passed to `onCreate` with their canonical label bytes
   * (valid during the call) before their samples are appended. Afterwards
   * walPayload() holds the accepted samples, cuts() the chunks cut and
   * oooList() the samples out of order within the window, which the head
   * has not taken: the caller decides on them (the engine checks them
   * against all it holds and keeps them in `ooo`).
   */
  append(batch: ArrayBuffer, bounds: AppendBounds, walSeg: number, onCreate: (s: Series, labelBytes: Uint8Array) => void, ids?: Uint32Array, range?: EntryRange): HeadAppendStats {
    const v = viewAppendBatch(batch);
    const w = this.wasm;
    const from = range?.from ?? 0;
    const n = (range?.to ?? v.entries) - from;
    const base = this.ensureBatchBlock(v.size);
    const mem = this.mem;
    mem.u8().set(new Uint8Array(batch, 0, v.size), base);
    // Entries hold offsets into the label area and indices into the sample
    // columns of the whole batch: a range is its entries, nothing else moves.
    const entries = base + v.entriesAt + from * ENTRY.size;
    const labels = base + v.labelsAt;
    const ts = base + v.timestampsAt;
    const vals = base + v.valuesAt;
    const minValid = i64Bound(bounds.minValidT);
    const maxValid = i64Bound(bounds.maxValidT);
    const oooMin = i64Bound(bounds.oooMinT);
    w.headStatsReset();
    w.headWalReset();
    const missing = w.headAppend(entries, n, 0, 0, labels, ts, vals, minValid, maxValid, oooMin, walSeg, 1);
    let created = 0;
    const refused: Refused = { tooOld: 0, tooFar: 0, oldEntry: -1, oldT: 0, farEntry: -1, farT: 0 };
    if (missing > 0) {
      const list = this.ensureListBlock(missing * 4);
      mem.u8().copyWithin(list, w.headMissingPtr(), w.headMissingPtr() + missing * 4);
      for (let j = 0; j < missing; j++) {
        const u32 = mem.u32();
        const idx = u32[(list >>> 2) + j]!;
        const e = entries + idx * ENTRY.size;
        const off = labels + u32[(e + ENTRY.labelsOff) >>> 2]!;
        const len = u32[(e + ENTRY.labelsLen) >>> 2]!;
        const hash = this.readU64(e + ENTRY.hash);
        if (w.headFind(hash, off, len) !== 0) continue;
        // A series none of whose samples may be taken is not created (as
        // Prometheus checks the time before it creates a series): it would
        // sit in the head with no data.
        if (this.noneTaken(e, ts, bounds, idx, refused)) continue;
        const s = this.create(this.nextId, off, len, hash);
        created++;
        onCreate(s, mem.u8().subarray(off, off + len));
      }
      w.headAppend(entries, n, list, missing, labels, ts, vals, minValid, maxValid, oooMin, walSeg, 1);
    }
    if (ids !== undefined) this.entryIds(entries, n, from === 0 ? ids : ids.subarray(from));
    return this.stats(created, refused, from);
  }

  /** Each entry's series as id + 1 (0: none) into `ids`, from the slots the append found (ENTRY_SIZE's scratch word). */
  private entryIds(entries: number, n: number, ids: Uint32Array): void {
    const u32 = this.mem.u32();
    for (let i = 0; i < n; i++) {
      const slot = u32[(entries + i * ENTRY.size + ENTRY.slot) >>> 2]!;
      ids[i] = slot === 0 ? 0 : u32[(slot + SLOT.id) >>> 2]! + 1;
    }
  }

  /**
   * The last append's samples out of order within the window, in batch
   * order: triples of (series id, batch entry, sample index). A copy.
   */
  oooList(): Uint32Array {
    const n = this.wasm.headOooCount();
    if (n === 0) return NO_OOO;
    const at = this.wasm.headOooPtr();
    return this.mem.u32().slice(at >>> 2, (at >>> 2) + n * (OOO_ENTRY.size >>> 2));
  }

  /**
   * Whether no sample of entry `e` (index `idx`) may be taken, in order or
   * out of order; if so they are counted in `refused` as too old or too
   * far in the future.
   */
  private noneTaken(e: number, ts: number, b: AppendBounds, idx: number, refused: Refused): boolean {
    if (b.minValidT === -Infinity && b.maxValidT === Infinity) return false;
    const u32 = this.mem.u32();
    const start = u32[(e + ENTRY.start) >>> 2]!;
    const count = u32[(e + ENTRY.count) >>> 2]!;
    if (count === 0) return false;
    const lowest = Math.min(b.minValidT, b.oooMinT);
    for (let k = 0; k < count; k++) {
      const q = (ts >>> 2) + (start + k) * 2;
      const t = readI64(u32, q);
      if (t >= lowest && t <= b.maxValidT) return false;
    }
    for (let k = 0; k < count; k++) {
      const q = (ts >>> 2) + (start + k) * 2;
      const t = readI64(u32, q);
      if (t > b.maxValidT) {
        refused.tooFar++;
        if (refused.farEntry < 0) {
          refused.farEntry = idx;
          refused.farT = t;
        }
      } else {
        refused.tooOld++;
        if (refused.oldEntry < 0) {
          refused.oldEntry = idx;
          refused.oldT = t;
        }
      }
    }
    return true;
  }

  /**
   * Replays a WAL samples payload: samples at or before a series' newest are
   * skipped (the chunk files hold them), and so are samples older than
   * `minValidT` (blocks hold them); nothing is rejected. Returns false if
   * the payload is malformed.
   */
  replay(payload: Uint8Array, walSeg: number, minValidT = -Infinity): boolean {
    const ptr = this.ensureBatchBlock(payload.length);
    this.mem.u8().set(payload, ptr);
    const floor = minValidT === -Infinity ? -(2n ** 63n) : BigInt(minValidT);
    return this.wasm.headReplay(ptr, payload.length, walSeg, floor) === 0;
  }

  /** The WAL payload of the last append's accepted samples; valid until the next head call. */
  walPayload(): Uint8Array {
    const ptr = this.wasm.headWalPtr();
    return this.mem.u8().subarray(ptr, ptr + this.wasm.headWalLen());
  }

  /**
   * Visits the chunks cut since the last call (their bytes valid during the
   * visit only), then frees them.
   */
  drainCuts(visit: (c: CutChunk) => void): number {
    const w = this.wasm;
    const n = w.headCutsCount();
    if (n === 0) return 0;
    const at = w.headCutsPtr();
    for (let i = 0; i < n; i++) {
      // Again for every chunk: a visit may allocate in the module.
      const u32 = this.mem.u32();
      const c = at + i * CUT.size;
      const q = c >>> 2;
      const buf = u32[q + (CUT.buf >>> 2)]!;
      const len = u32[q + (CUT.len >>> 2)]!;
      visit({
        id: u32[q + (CUT.id >>> 2)]!,
        minT: readI64(u32, q + (CUT.minT >>> 2)),
        maxT: readI64(u32, q + (CUT.maxT >>> 2)),
        data: this.mem.u8().subarray(buf, buf + len),
      });
    }
    w.headCutsRelease();
    return n;
  }

  /** Creates a series from canonical label bytes (replay of a WAL series record). */
  createFromBytes(id: number, labelBytes: Uint8Array): Series | undefined {
    if (this.byId[id] !== undefined) return undefined;
    const ptr = this.ensureBatchBlock(labelBytes.length + 8);
    this.mem.u8().set(labelBytes, ptr);
    const hash = this.wasm.xxh64(ptr, labelBytes.length, 0n);
    const s = this.create(id, ptr, labelBytes.length, hash);
    this.reserveIds(id + 1);
    return s;
  }

  /**
   * Creates series in bulk (a head snapshot's load, src/db/snapshot-load.ts):
   * series i has id `ids[i]` and the canonical label bytes
   * `labels[offs[i], offs[i + 1])`; ids ascending, none in the head yet.
   * The index is not told: the caller loads it whole. Returns the series.
   */
  loadSeries(ids: Uint32Array, offs: Uint32Array, labels: Uint8Array): Series[] {
    const n = ids.length;
    const out: Series[] = new Array<Series>(n);
    this.wasm.headReserve(n);
    // In batches of about LOAD_BATCH_BYTES, so the scratch block stays small.
    let i = 0;
    while (i < n) {
      let j = i + 1;
      while (j < n && offs[j + 1]! - offs[i]! <= LOAD_BATCH_BYTES) j++;
      const k = j - i;
      const labelLen = offs[j]! - offs[i]!;
      const base = this.ensureBatchBlock(12 * k + 4 + labelLen);
      const u32 = this.mem.u32();
      const idsAt = base;
      const offsAt = base + 4 * k;
      const slotsAt = offsAt + 4 * (k + 1);
      const labelsAt = slotsAt + 4 * k;
      u32.set(ids.subarray(i, j), idsAt >>> 2);
      for (let q = 0; q <= k; q++) u32[(offsAt >>> 2) + q] = offs[i + q]! - offs[i]!;
      this.mem.u8().set(labels.subarray(offs[i]!, offs[j]!), labelsAt);
      this.wasm.headLoadSeries(idsAt, offsAt, labelsAt, k, slotsAt);
      const slots = this.mem.u32();
      for (let q = 0; q < k; q++) {
        const id = ids[i + q]!;
        const s: Series = { id, slot: slots[(slotsAt >>> 2) + q]!, chunks: NO_CHUNKS };
        this.byId[id] = s;
        out[i + q] = s;
      }
      i = j;
    }
    this.live += n;
    if (n > 0) this.reserveIds(ids[n - 1]! + 1);
    return out;
  }

  /**
   * The series with the canonical label bytes [off, off + len) of `bytes`
   * and their xxh64 hash (from a batch) given as two words (low first), if
   * the head holds it. No view and no BigInt made: the histogram path
   * looks up an entry at a time.
   */
  lookupWords(lo: number, hi: number, bytes: Uint8Array, off: number, len: number): Series | undefined {
    const ptr = this.ensureBatchBlock(len + 8);
    const u8 = this.mem.u8();
    for (let i = 0; i < len; i++) u8[ptr + i] = bytes[off + i]!;
    const slot = this.wasm.headFindWords(lo, hi, ptr, len);
    if (slot === 0) return undefined;
    return this.byId[this.mem.u32()[(slot + SLOT.id) >>> 2]!];
  }

  /** Creates a series (not in the head yet) from canonical label bytes and their hash, with the next id. */
  createSeries(labelBytes: Uint8Array, hash: bigint): Series {
    const ptr = this.ensureBatchBlock(labelBytes.length + 8);
    this.mem.u8().set(labelBytes, ptr);
    return this.create(this.nextId, ptr, labelBytes.length, hash);
  }

  /** The series with these canonical label bytes (name 0xFF value 0xFF ...), if the head holds it. */
  find(labelBytes: Uint8Array): Series | undefined {
    const ptr = this.ensureBatchBlock(labelBytes.length + 8);
    this.mem.u8().set(labelBytes, ptr);
    const hash = this.wasm.xxh64(ptr, labelBytes.length, 0n);
    const slot = this.wasm.headFind(hash, ptr, labelBytes.length);
    if (slot === 0) return undefined;
    return this.byId[this.mem.u32()[(slot + SLOT.id) >>> 2]!];
  }

  /** xxh64 (seed 0) of `bytes`: of canonical label bytes, Prometheus' labels.Hash(). */
  hash(bytes: Uint8Array): bigint {
    const ptr = this.ensureBatchBlock(bytes.length + 8);
    this.mem.u8().set(bytes, ptr);
    return this.wasm.xxh64(ptr, bytes.length, 0n);
  }

  /** Gives the whole free pages of the module's memory back to the OS (src/wasm/free-pages.ts); answers the bytes. */
  releaseFreeMemory(): number {
    return releaseFreePages(this.wasm);
  }

  /** The canonical label bytes of a series (a copy). */
  labelBytes(s: Series): Uint8Array {
    const u32 = this.mem.u32();
    const ptr = s.slot + SLOT.size;
    const len = u32[(s.slot + SLOT.labelsLen) >>> 2]!;
    return this.mem.u8().slice(ptr, ptr + len);
  }

  /** Length of a series' canonical label bytes. */
  labelBytesLength(s: Series): number {
    return this.mem.u32()[(s.slot + SLOT.labelsLen) >>> 2]!;
  }

  /** Copies a series' canonical label bytes into `dst` at `at`; returns their length. */
  copyLabelBytes(s: Series, dst: Uint8Array, at: number): number {
    const u32 = this.mem.u32();
    const ptr = s.slot + SLOT.size;
    const len = u32[(s.slot + SLOT.labelsLen) >>> 2]!;
    dst.set(this.mem.u8().subarray(ptr, ptr + len), at);
    return len;
  }

  /**
   * Copies a series' newest sample state to `t[i]` (its time; NaN when it
   * has none) and `bits[2i, 2i + 1]` (its value's bits, low word first:
   * a NaN's payload, stale markers included, kept as stored).
   */
  newestInto(s: Series, t: Float64Array, bits: Uint32Array, i: number): void {
    const u32 = this.mem.u32();
    const q = s.slot >>> 2;
    t[i] = (u32[q + (SLOT.flags >>> 2)]! & SLOT_HAS_DATA) === 0 ? NaN : readI64(u32, q + (SLOT.maxT >>> 2));
    bits[2 * i] = u32[q + (SLOT.lastV >>> 2)]!;
    bits[2 * i + 1] = u32[q + (SLOT.lastV >>> 2) + 1]!;
  }

  /**
   * Sets a series' newest sample (time and value bits) when its data comes
   * from chunk files only, so the sample rules hold after a restart.
   */
  setNewest(s: Series, t: number, valueBits: Float64Array): void {
    const w = new Uint32Array(valueBits.buffer, valueBits.byteOffset, 2);
    this.setNewestWords(s, t, w[0]!, w[1]!);
  }

  /** setNewest with the value's bits as two words (low first): no view to make per series. */
  setNewestWords(s: Series, t: number, lo: number, hi: number): void {
    const u32 = this.mem.u32();
    const q = s.slot >>> 2;
    writeI64(u32, q + (SLOT.maxT >>> 2), t);
    u32[q + (SLOT.lastV >>> 2)] = lo;
    u32[q + (SLOT.lastV >>> 2) + 1] = hi;
    u32[q + (SLOT.flags >>> 2)] = u32[q + (SLOT.flags >>> 2)]! | SLOT_HAS_DATA;
  }

  /** Whether newest value bits (low word, high word) are those a histogram newest sample leaves (setNewestHistogram). */
  static isHistogramNewest(lo: number, hi: number): boolean {
    return lo === HISTOGRAM_NEWEST_WORDS[0] && hi === HISTOGRAM_NEWEST_WORDS[1];
  }

  /**
   * Records that a series' newest sample is a histogram at `t` (the float
   * state keeps every series' newest time, whatever its kind).
   */
  setNewestHistogram(s: Series, t: number): void {
    this.setNewestWords(s, t, HISTOGRAM_NEWEST_WORDS[0]!, HISTOGRAM_NEWEST_WORDS[1]!);
  }

  /** Newest timestamp of a series, or undefined when it has none. */
  newest(s: Series): number | undefined {
    const u32 = this.mem.u32();
    const q = s.slot >>> 2;
    if ((u32[q + (SLOT.flags >>> 2)]! & SLOT_HAS_DATA) === 0) return undefined;
    return readI64(u32, q + (SLOT.maxT >>> 2));
  }

  /** Whether a series holds any sample, in order or out of order. */
  hasData(s: Series): boolean {
    return this.oldest(s) !== undefined || this.ooo.has(s.id);
  }

  /** Oldest timestamp held in order for a series (first chunk or open chunk), undefined when none. */
  oldest(s: Series): number | undefined {
    if (s.chunks.length > 0) return s.chunks[1];
    const u32 = this.mem.u32();
    const q = s.slot >>> 2;
    let min = u32[q + (SLOT.buf >>> 2)] === 0 ? Infinity : readI64(u32, q + (SLOT.minT >>> 2));
    const h = this.histograms.open(s.id);
    if (h !== undefined && h.minT < min) min = h.minT;
    return min === Infinity ? undefined : min;
  }

  /**
   * The span of the series' open chunks (its float chunk and its histogram
   * chunk, when both are open: the histogram one is the older), their
   * sample count and the WAL segment of their first sample; undefined
   * when there is none.
   */
  openChunk(s: Series): { minT: number; maxT: number; count: number; walSeg: number } | undefined {
    const f = this.floatOpenChunk(s);
    const h = this.histograms.open(s.id);
    if (h === undefined) return f;
    if (f === undefined) return { minT: h.minT, maxT: h.maxT, count: h.count, walSeg: h.walSeg };
    return { minT: Math.min(f.minT, h.minT), maxT: Math.max(f.maxT, h.maxT), count: f.count + h.count, walSeg: Math.min(f.walSeg, h.walSeg) };
  }

  /** The open float (XOR) chunk's span and sample count, undefined when there is none. */
  floatOpenChunk(s: Series): { minT: number; maxT: number; count: number; walSeg: number } | undefined {
    const u32 = this.mem.u32();
    const q = s.slot >>> 2;
    if (u32[q + (SLOT.buf >>> 2)] === 0) return undefined;
    return {
      minT: readI64(u32, q + (SLOT.minT >>> 2)),
      maxT: readI64(u32, q + (SLOT.lastT >>> 2)),
      count: u32[q + (SLOT.count >>> 2)]!,
      walSeg: u32[q + (SLOT.walSeg >>> 2)]!,
    };
  }

  /** WAL segment of the open chunks' first sample; Infinity when there is no open chunk. */
  openChunkWalSeg(s: Series): number {
    const u32 = this.mem.u32();
    const q = s.slot >>> 2;
    const f = u32[q + (SLOT.buf >>> 2)] === 0 ? Infinity : u32[q + (SLOT.walSeg >>> 2)]!;
    const h = this.histograms.open(s.id)?.walSeg ?? Infinity;
    return Math.min(f, h);
  }

  /**
   * The open float chunk as a stored chunk (encoding 1, XOR; its bytes a
   * copy) when it has samples overlapping [minT, maxT]; one read of the
   * slot, no call into the module.
   */
  openChunkIn(s: Series, minT: number, maxT: number, arena?: ByteArena): { minT: number; maxT: number; encoding: number; data: Uint8Array } | undefined {
    const u32 = this.mem.u32();
    const q = s.slot >>> 2;
    const buf = openChunkBuf(u32, q);
    if (buf === 0) return undefined;
    const cMin = readI64(u32, q + (SLOT.minT >>> 2));
    const cMax = readI64(u32, q + (SLOT.lastT >>> 2));
    if (cMax < minT || cMin > maxT) return undefined;
    const len = openChunkLength(u32, q);
    const u8 = this.mem.u8();
    return { minT: cMin, maxT: cMax, encoding: ENCODING_XOR, data: arena === undefined ? u8.slice(buf, buf + len) : arena.copy(u8, buf, buf + len) };
  }

  /**
   * The open float (XOR) chunk's bytes as they stand when it may hold a
   * sample at `t`: a view of the module's memory, valid until the next
   * call into the head (copy it before). Undefined when its span does not
   * hold `t`; null when the span does but the chunk cannot: `t` falls
   * among its first samples that are evenly spaced (the appender counts
   * them as it encodes: SLOT.even, SLOT.step) and off their grid. One read of the
   * slot, no call into the module, no copy: the out-of-order append's
   * duplicate check, which then needs no seek for a late sample between
   * in-order ones.
   */
  openChunkHolding(s: Series, t: number): Uint8Array | null | undefined {
    const u32 = this.mem.u32();
    const q = s.slot >>> 2;
    const buf = openChunkBuf(u32, q);
    if (buf === 0) return undefined;
    const minT = readI64(u32, q + (SLOT.minT >>> 2));
    if (t < minT || t > readI64(u32, q + (SLOT.lastT >>> 2))) return undefined;
    const even = u32[q + (SLOT.even >>> 2)]!;
    const step = u32[q + (SLOT.step >>> 2)]!;
    if (even >= 2 && step !== 0 && t <= minT + (even - 1) * step && (t - minT) % step !== 0) return null;
    return this.mem.u8().subarray(buf, buf + openChunkLength(u32, q));
  }

  /**
   * Cuts the open chunks (the histogram one first: it is the older),
   * which join the cut lists (storeCuts in head-chunks.ts hands them to
   * the chunk files in that order); true if there was one.
   */
  cutOpen(s: Series): boolean {
    const h = this.histograms.cutOpen(s.id);
    return (this.wasm.headCutOpen(s.id) === 1) || h;
  }

  /** Cuts the open float (XOR) chunk only; true if there was one. */
  cutFloatOpen(s: Series): boolean {
    return this.wasm.headCutOpen(s.id) === 1;
  }

  /** Whether the series has an open float (XOR) chunk. */
  hasFloatOpen(s: Series): boolean {
    return this.mem.u32()[(s.slot + SLOT.buf) >>> 2] !== 0;
  }

  /** Frees the open chunks without keeping them (retention). */
  dropOpen(s: Series): void {
    this.wasm.headDropOpen(s.id);
    this.histograms.dropOpen(s.id);
  }

  /** Removes series (ascending ids) from the head and the index. */
  drop(ids: Uint32Array): void {
    if (ids.length === 0) return;
    this.release(ids);
    this.index.delete(ids);
  }

  /**
   * drop() in the background: the series leave the head at once (reads
   * and appends no longer find them), then the index lets go of them in
   * steps, calling `tick` as it goes.
   */
  async dropAsync(ids: Uint32Array, tick: (work: number) => Promise<void> | undefined): Promise<void> {
    if (ids.length === 0) return;
    this.release(ids);
    await this.index.deleteAsync(ids, tick);
  }

  /** Told of series about to leave the head (their labels still readable). */
  onRelease: ((ids: Uint32Array) => void) | undefined;

  /** Frees the series' slots: reads and appends no longer find them. */
  private release(ids: Uint32Array): void {
    this.onRelease?.(ids);
    for (const id of ids) {
      if (this.byId[id] === undefined) continue;
      this.wasm.headDropSeries(id);
      this.ooo.drop(id);
      this.histograms.drop(id);
      this.byId[id] = undefined;
      this.live--;
    }
  }

  private create(id: number, labelsPtr: number, len: number, hash: bigint): Series {
    const slot = this.wasm.headNewSeries(id, labelsPtr, len, hash);
    const s: Series = { id, slot, chunks: NO_CHUNKS };
    this.byId[id] = s;
    this.live++;
    if (id >= this.nextId) this.nextId = id + 1;
    // From the bytes: the index makes strings for names and values new to it only.
    this.index.addBytes(id, this.mem.u8(), labelsPtr, labelsPtr + len);
    return s;
  }

  /**
   * The labels of a series, [name, value, ...] in name order, decoded
   * from its canonical bytes in module memory: a new array each call.
   */
  labelsOf(s: Series): string[] {
    const u32 = this.mem.u32();
    const labels = this.decodeLabels(s.slot + SLOT.size, u32[(s.slot + SLOT.labelsLen) >>> 2]!);
    // The index's copies: reads compare and key by them as when series held them.
    this.index.share(labels);
    return labels;
  }

  /** ASCII text comes as slices of one decode (a read's labels are short-lived). */
  private decodeLabels(ptr: number, len: number): string[] {
    const u8 = this.mem.u8();
    const text = this.mem.buffer();
    const end = ptr + len;
    let high = 0;
    for (let i = ptr; i < end; i++) {
      const c = u8[i]!;
      if (c !== 0xff) high |= c;
    }
    // Most label text is ASCII: then one latin1 decode of the whole and a
    // split (two native calls instead of one a string; the separator 0xFF
    // decodes to U+00FF, which no ASCII text holds).
    if (high < 0x80) {
      const out = text.toString('latin1', ptr, end).split('\u00ff');
      out.pop();
      return out;
    }
    const out: string[] = [];
    let start = ptr;
    for (let i = ptr; i < end; i++) {
      if (u8[i] !== 0xff) continue;
      out.push(text.toString('utf8', start, i));
      start = i + 1;
    }
    return out;
  }


  /** The last append's stats; entries named by index are counted from `from` (the range's start). */
  private stats(created: number, refused: Refused, from: number): HeadAppendStats {
    const w = this.wasm;
    const first: HeadAppendStats['first'] = {};
    const minT = w.headBatchMinT();
    const maxT = w.headBatchMaxT();
    const keys = [['outOfOrder', STAT.outOfOrder], ['conflict', STAT.conflict], ['tooOld', STAT.tooOld], ['tooFarInFuture', STAT.tooFar]] as const;
    for (const [key, stat] of keys) {
      if (w.headStat(stat) > 0) first[key] = { entry: from + w.headFirstEntry(stat), t: Number(w.headFirstT(stat)) };
    }
    // Samples of series not created: the earliest entry named first.
    if (refused.tooOld > 0 && (first.tooOld === undefined || from + refused.oldEntry < first.tooOld.entry)) {
      first.tooOld = { entry: from + refused.oldEntry, t: refused.oldT };
    }
    if (refused.tooFar > 0 && (first.tooFarInFuture === undefined || from + refused.farEntry < first.tooFarInFuture.entry)) {
      first.tooFarInFuture = { entry: from + refused.farEntry, t: refused.farT };
    }
    const appended = w.headStat(STAT.appended);
    return {
      appended,
      oooAppended: 0,
      ignored: w.headStat(STAT.ignored),
      outOfOrder: w.headStat(STAT.outOfOrder),
      conflict: w.headStat(STAT.conflict),
      tooOld: w.headStat(STAT.tooOld) + refused.tooOld,
      tooFarInFuture: w.headStat(STAT.tooFar) + refused.tooFar,
      created,
      minT: appended > 0 ? Number(minT) : Infinity,
      maxT: appended > 0 ? Number(maxT) : -Infinity,
      first,
    };
  }

  private readU64(ptr: number): bigint {
    const u32 = this.mem.u32();
    return (BigInt(u32[(ptr >>> 2) + 1]!) << 32n) | BigInt(u32[ptr >>> 2]!);
  }

  private ensureBatchBlock(size: number): number {
    if (size > this.batchBlockSize) {
      if (this.batchBlock !== 0) this.wasm.free(this.batchBlock);
      this.batchBlockSize = Math.max(65536, 2 ** Math.ceil(Math.log2(size)));
      this.batchBlock = this.wasm.alloc(this.batchBlockSize);
    }
    return this.batchBlock;
  }

  private ensureListBlock(size: number): number {
    if (size > this.listBlockSize) {
      if (this.listBlock !== 0) this.wasm.free(this.listBlock);
      this.listBlockSize = Math.max(4096, 2 ** Math.ceil(Math.log2(size)));
      this.listBlock = this.wasm.alloc(this.listBlockSize);
    }
    return this.listBlock;
  }
}

/**
 * The i64 at word `q` of module memory (low word first) as a number, exact
 * within ±2^53. The high word is read signed (`| 0`), as an Int32Array
 * would: one view serves every read of the head.
 */
function readI64(u32: Uint32Array, q: number): number {
  return (u32[q + 1]! | 0) * TWO_32 + u32[q]!;
}

/** Writes `n` (an integer within ±2^53) as the i64 at word `q`: a negative high word is stored as its two's complement bits. */
function writeI64(u32: Uint32Array, q: number, n: number): void {
  const hi = Math.floor(n / TWO_32);
  u32[q] = n - hi * TWO_32;
  u32[q + 1] = hi;
}

/** The open float chunk's buffer (a module address) from its slot (word `q`); 0 when there is none or it holds no sample. */
function openChunkBuf(u32: Uint32Array, q: number): number {
  const buf = u32[q + (SLOT.buf >>> 2)]!;
  return buf !== 0 && u32[q + (SLOT.count >>> 2)] !== 0 ? buf : 0;
}

/** The open float chunk's length in bytes from its slot (word `q`), as appenderBytes: the bits rounded up, plus Prometheus' spare zero byte. */
function openChunkLength(u32: Uint32Array, q: number): number {
  return ((u32[q + (SLOT.bitPos >>> 2)]! + 7) >>> 3) + u32[q + (SLOT.padByte >>> 2)]!;
}
