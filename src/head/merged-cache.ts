/**
 * Chunks a read made by merging a series' late samples into its in-order
 * chunks (head-reader.ts, merge-columns.ts), kept for the next read of the
 * same series, so that a dashboard refreshing a panel does not decode,
 * merge and encode the same samples again (issue 26: that merge is about
 * 3/4 of such a read).
 *
 * A series' entry holds what the merges gave while its out-of-order
 * samples stay as they were (OooHead.held().stamp: every insert or split
 * changes it; the entry is emptied at its next read then). Each merge is
 * keyed by the in-order chunk (its first and last time and its length: a
 * series' chunks never overlap, a closed chunk never changes and the open
 * one grows with every append, so a new in-order sample changes the key)
 * and the range of late samples merged into it. Merges are kept from a
 * series' second read in the same state on (the first read after a change
 * keeps nothing). Bounded in bytes: the oldest series leave first, unless
 * read since (second chance). Emptied when out-of-order samples are cut
 * into blocks (ooo-cuts.ts) and when the head is truncated (Db).
 * One thread: the engine's.
 */
import type { MergeMemo } from '../chunkenc/merge-columns.js';
import type { MergeableChunk, MergedChunk } from '../chunkenc/merge-chunks.js';
import { ENCODING_XOR } from '../chunkenc/encoding.js';

/** Bytes counted for a chunk beyond its data (its object and the entry's list). */
const CHUNK_OVERHEAD = 96;
/**
 * Kept chunks' bytes are copied into blocks of this size. A block lives
 * while any chunk in it is kept: the bound counts chunks' bytes, so memory
 * may exceed it by the blocks' unused and evicted parts (oldest-first
 * eviction frees whole blocks in the order they were filled).
 */
const BLOCK_BYTES = 64 * 1024;

/** One merge: its key and the chunks it gave. */
interface Merge {
  minT: number;
  maxT: number;
  len: number;
  from: number;
  to: number;
  chunks: MergedChunk[];
  /** Bytes counted for it. */
  bytes: number;
}

/** A series' merges, valid while its series and stamp are the ones read. */
interface Entry {
  series: object;
  stamp: number;
  merges: Merge[];
  bytes: number;
  /** Answered a read since eviction last passed it (a second chance: no reordering on every read). */
  read: boolean;
  /** Read before in this state: only then are its merges kept. */
  again: boolean;
}

/** Counters for the metrics (src/metrics/strata-metrics.ts). */
export interface MergedCacheStats {
  readonly bytes: number;
  readonly hits: number;
  readonly misses: number;
}

export class MergedChunkCache implements MergeMemo<MergeableChunk>, MergedCacheStats {
  private readonly bySeries = new Map<number, Entry>();
  private current: Entry | undefined;
  private block = new Uint8Array(0);
  private blockAt = 0;
  bytes = 0;
  hits = 0;
  misses = 0;

  /** @param maxBytes bytes held at most (0: nothing is kept). */
  constructor(readonly maxBytes: number) {}

  /**
   * Selects series `id` (its object `series`, its out-of-order samples'
   * stamp) for the recall() and keep() calls that follow; its entry goes if
   * either changed since it was made.
   */
  select(id: number, series: object, stamp: number): void {
    let e = this.bySeries.get(id);
    if (e === undefined) {
      e = { series, stamp, merges: [], bytes: 0, read: false, again: false };
      this.bySeries.set(id, e);
    } else if (e.series !== series || e.stamp !== stamp) {
      // Emptied in place: a Map delete and set for every changed series rehashed the Map.
      this.bytes -= e.bytes;
      e.series = series;
      e.stamp = stamp;
      e.merges.length = 0;
      e.bytes = 0;
      e.again = false;
    } else {
      e.again = true;
    }
    this.current = e;
  }

  recall(chunk: MergeableChunk | undefined, from: number, to: number, out: { push(c: MergedChunk): unknown }): boolean {
    const m = this.find(chunk, from, to);
    if (m === undefined) {
      this.misses++;
      return false;
    }
    this.hits++;
    this.current!.read = true;
    for (const c of m.chunks) out.push(c);
    return true;
  }

  keep(chunk: MergeableChunk | undefined, from: number, to: number, out: ReadonlyArray<MergedChunk | MergeableChunk>, first: number): void {
    const e = this.current;
    // Kept from the second read of a series in the same state on: keeping
    // costs the first read after every change about a third more (the
    // copies, and objects that outlive the read for the GC to move), which
    // a series read once between changes would pay for nothing.
    if (e === undefined || !e.again || this.maxBytes === 0) return;
    let len = 0;
    for (let k = first; k < out.length; k++) len += out[k]!.data.length;
    const bytes = len + (out.length - first) * CHUNK_OVERHEAD;
    if (bytes > this.maxBytes) return;
    // Their bytes were in a read's arena: copied into blocks of our own.
    const data = this.room(len);
    const chunks: MergedChunk[] = [];
    let at = 0;
    for (let k = first; k < out.length; k++) {
      const c = out[k]!;
      data.set(c.data, at);
      chunks.push({ minT: c.minT, maxT: c.maxT, encoding: c.encoding ?? ENCODING_XOR, data: data.subarray(at, at + c.data.length) });
      at += c.data.length;
    }
    const minT = chunk?.minT ?? NaN;
    const maxT = chunk?.maxT ?? NaN;
    const clen = chunk?.data.length ?? -1;
    // The same chunk merged with another range of late samples (a narrower
    // read), or an older state of the open chunk: the newer merge replaces it.
    const merges = e.merges;
    for (let k = 0; k < merges.length; k++) {
      const m = merges[k]!;
      // A series' chunks never share a first time: one merge a chunk (the open one's older states go).
      if (chunk === undefined ? m.len !== -1 || m.from !== from : m.minT !== minT) continue;
      e.bytes -= m.bytes;
      this.bytes -= m.bytes;
      merges.splice(k, 1);
      break;
    }
    merges.push({ minT, maxT, len: clen, from, to, chunks, bytes });
    e.bytes += bytes;
    this.bytes += bytes;
    this.evict();
  }

  /**
   * `len` bytes to copy into: a piece of a shared block (one ArrayBuffer
   * for many merges; an allocation each cost about as much as the merge's
   * encoding), or an array of their own when large.
   */
  private room(len: number): Uint8Array {
    if (len > BLOCK_BYTES / 4) return new Uint8Array(len);
    if (this.blockAt + len > this.block.length) {
      this.block = new Uint8Array(BLOCK_BYTES);
      this.blockAt = 0;
    }
    const out = this.block.subarray(this.blockAt, this.blockAt + len);
    this.blockAt += len;
    return out;
  }

  /** Drops everything. */
  clear(): void {
    this.bySeries.clear();
    this.current = undefined;
    this.bytes = 0;
    this.block = new Uint8Array(0);
    this.blockAt = 0;
  }

  private find(chunk: MergeableChunk | undefined, from: number, to: number): Merge | undefined {
    const e = this.current;
    if (e === undefined) return undefined;
    const len = chunk?.data.length ?? -1;
    for (const m of e.merges) {
      if (m.from !== from || m.to !== to || m.len !== len) continue;
      if (chunk === undefined || (m.minT === chunk.minT && m.maxT === chunk.maxT)) return m;
    }
    return undefined;
  }

  /** Oldest first, but a series read since it was last passed goes to the end once (second chance). */
  private evict(): void {
    for (const [id, e] of this.bySeries) {
      if (this.bytes <= this.maxBytes) return;
      if (e.read && e !== this.current) {
        e.read = false;
        this.bySeries.delete(id);
        this.bySeries.set(id, e);
      } else {
        this.remove(id, e);
      }
    }
  }

  private remove(id: number, e: Entry): void {
    this.bySeries.delete(id);
    this.bytes -= e.bytes;
    if (this.current === e) this.current = undefined;
  }
}
