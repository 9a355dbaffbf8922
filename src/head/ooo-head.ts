/**
 * The out-of-order head: samples accepted older than their series' newest
 * (or older than the head's floor) within the out-of-order window, kept
 * apart from the in-order chunks as Prometheus keeps them, until the
 * block of their range is written.
 *
 * Per series, samples are sorted by time with at most one per timestamp,
 * cut into chunks of up to 32 samples (Prometheus' out_of_order_cap_max)
 * that never overlap one another. At most one chunk per series is open,
 * held as columns (sorted insertion); the others are XOR-encoded. An
 * insert opens the chunk its timestamp falls in (closing the open one),
 * so a sender catching up in time order appends to one open chunk, and a
 * scattered insert costs one decode and one encode of 32 samples.
 * Prometheus lets its out-of-order chunks overlap (each is cut by arrival)
 * and detects duplicates only in the open one; keeping them disjoint makes
 * "one value per timestamp" exact and reads merge fewer chunks.
 *
 * One writer (the engine's thread); chunks handed to readers are copies or
 * immutable XOR bytes, valid for as long as they are held.
 */
import { decodeColumns, encodeColumns, lowerBound } from '../chunkenc/columns.js';
import type { SampleColumns } from '../chunkenc/columns.js';

/** Prometheus' default out_of_order_cap_max: samples per out-of-order chunk. */
export const OOO_CHUNK_SAMPLES = 32;
/** Open columns hold one more: a full chunk takes the sample, then splits. */
const OPEN_CAPACITY = OOO_CHUNK_SAMPLES + 1;

/** What an insert did. */
export const INSERT_ADDED = 0;
/** The same timestamp with the same value bits is held: nothing changed. */
export const INSERT_SAME = 1;
/** The same timestamp with other value bits is held: refused. */
export const INSERT_CONFLICT = 2;
export type InsertResult = typeof INSERT_ADDED | typeof INSERT_SAME | typeof INSERT_CONFLICT;

/** A chunk of one series' out-of-order samples: XOR bytes, or columns while open. */
interface OooChunk {
  minT: number;
  maxT: number;
  n: number;
  data: Uint8Array | undefined;
  t: Float64Array | undefined;
  v: Uint32Array | undefined;
}

interface OooSeries {
  /** Sorted by time, disjoint. */
  chunks: OooChunk[];
  open: OooChunk | undefined;
}

/** An out-of-order chunk as readers take it. */
export interface OooStoredChunk {
  minT: number;
  maxT: number;
  data: Uint8Array;
}

export class OooHead {
  private readonly bySeries = new Map<number, OooSeries>();
  private total = 0;
  private min = Infinity;
  private max = -Infinity;
  private boundsDirty = false;

  /** Samples held. */
  get samples(): number {
    return this.total;
  }

  /** Series holding samples. */
  get seriesCount(): number {
    return this.bySeries.size;
  }

  /** Oldest sample held, Infinity when empty. */
  get minTime(): number {
    if (this.boundsDirty) this.recomputeBounds();
    return this.min;
  }

  /** Newest sample held, -Infinity when empty. */
  get maxTime(): number {
    if (this.boundsDirty) this.recomputeBounds();
    return this.max;
  }

  has(id: number): boolean {
    return this.bySeries.has(id);
  }

  /** Ids of the series holding samples, in insertion order. */
  ids(): number[] {
    return [...this.bySeries.keys()];
  }

  /**
   * Adds sample (t, value bits lo/hi) to series `id`, unless the series
   * holds that timestamp already (INSERT_SAME with the same bits,
   * INSERT_CONFLICT with others: nothing changes).
   */
  insert(id: number, t: number, lo: number, hi: number): InsertResult {
    let s = this.bySeries.get(id);
    if (s === undefined) this.bySeries.set(id, (s = { chunks: [], open: undefined }));
    const cs = s.chunks;
    if (cs.length === 0) {
      const c = openColumns(t, lo, hi);
      cs.push(c);
      s.open = c;
      this.added(t);
      return INSERT_ADDED;
    }
    // The last chunk starting at or before t, or the first: t lies in it or in the gap after it.
    let i = chunkAtOrBefore(cs, t);
    if (i < 0) i = 0;
    // In the gap after a full chunk: the next one takes it at its start if it has room.
    if (t > cs[i]!.maxT && cs[i]!.n >= OOO_CHUNK_SAMPLES && i + 1 < cs.length && cs[i + 1]!.n < OOO_CHUNK_SAMPLES) i++;
    const c = cs[i]!;
    if (c !== s.open) {
      if (s.open !== undefined) close(s.open);
      reopen(c);
      s.open = c;
    }
    const ct = c.t!;
    const cv = c.v!;
    const pos = lowerBound(ct, c.n, t);
    if (pos < c.n && ct[pos] === t) return cv[2 * pos] === lo && cv[2 * pos + 1] === hi ? INSERT_SAME : INSERT_CONFLICT;
    ct.copyWithin(pos + 1, pos, c.n);
    cv.copyWithin(2 * pos + 2, 2 * pos, 2 * c.n);
    ct[pos] = t;
    cv[2 * pos] = lo;
    cv[2 * pos + 1] = hi;
    c.n++;
    c.minT = ct[0]!;
    c.maxT = ct[c.n - 1]!;
    if (c.n > OOO_CHUNK_SAMPLES) this.split(s, i, pos);
    this.added(t);
    return INSERT_ADDED;
  }

  /** Whether series `id` holds timestamp `t`; if so its value bits go to out[0] (low) and out[1] (high). */
  lookup(id: number, t: number, out: Uint32Array): boolean {
    const s = this.bySeries.get(id);
    if (s === undefined) return false;
    const i = chunkAtOrBefore(s.chunks, t);
    if (i < 0) return false;
    const c = s.chunks[i]!;
    if (t > c.maxT) return false;
    const cols = columnsOf(c);
    const pos = lowerBound(cols.t, cols.n, t);
    if (pos >= cols.n || cols.t[pos] !== t) return false;
    out[0] = cols.v[2 * pos]!;
    out[1] = cols.v[2 * pos + 1]!;
    return true;
  }

  /** Whether series `id` holds a sample in [minT, maxT]. */
  overlaps(id: number, minT: number, maxT: number): boolean {
    const s = this.bySeries.get(id);
    if (s === undefined) return false;
    for (const c of s.chunks) {
      if (c.maxT < minT) continue;
      return c.minT <= maxT;
    }
    return false;
  }

  /** Series `id`'s chunks holding samples in [minT, maxT], by time, disjoint; the open one encoded as a copy. */
  chunks(id: number, minT: number, maxT: number): OooStoredChunk[] {
    const s = this.bySeries.get(id);
    const out: OooStoredChunk[] = [];
    if (s === undefined) return out;
    for (const c of s.chunks) {
      if (c.maxT < minT) continue;
      if (c.minT > maxT) break;
      out.push({ minT: c.minT, maxT: c.maxT, data: c.data ?? encodeColumns(c.t!, c.v!, 0, c.n) });
    }
    return out;
  }

  /** Series `id`'s samples in [minT, maxT] as new columns (sorted, distinct). */
  columns(id: number, minT = -Infinity, maxT = Infinity): SampleColumns {
    const s = this.bySeries.get(id);
    const parts: SampleColumns[] = [];
    let n = 0;
    for (const c of s?.chunks ?? []) {
      if (c.maxT < minT) continue;
      if (c.minT > maxT) break;
      const cols = columnsOf(c);
      const from = lowerBound(cols.t, cols.n, minT);
      const to = maxT === Infinity ? cols.n : lowerBound(cols.t, cols.n, maxT + 1);
      parts.push({ t: cols.t.subarray(from, to), v: cols.v.subarray(2 * from, 2 * to), n: to - from });
      n += to - from;
    }
    const t = new Float64Array(n);
    const v = new Uint32Array(2 * n);
    let at = 0;
    for (const p of parts) {
      t.set(p.t, at);
      v.set(p.v, 2 * at);
      at += p.n;
    }
    return { t, v, n };
  }

  /**
   * Moves every sample older than `end` into a new head and returns it:
   * whole chunks move as they are, a chunk reaching past `end` is split.
   * Synchronous, so that it happens at one point of the write-ahead log.
   */
  splitBefore(end: number): OooHead {
    const moved = new OooHead();
    for (const [id, s] of this.bySeries) {
      const cs = s.chunks;
      if (cs.length === 0 || cs[0]!.minT >= end) continue;
      let k = 0;
      while (k < cs.length && cs[k]!.maxT < end) k++;
      const gone = cs.slice(0, k);
      if (k < cs.length && cs[k]!.minT < end) {
        const [left, right] = splitChunk(cs[k]!, end);
        gone.push(left);
        if (s.open === cs[k]) s.open = right.t === undefined ? undefined : right;
        cs[k] = right;
      }
      if (s.open !== undefined && gone.includes(s.open)) s.open = undefined;
      s.chunks = cs.slice(k);
      let n = 0;
      for (const c of gone) n += c.n;
      this.total -= n;
      moved.adopt(id, gone, n);
      if (s.chunks.length === 0) this.bySeries.delete(id);
    }
    this.boundsDirty = true;
    return moved;
  }

  /** Adds every sample of `other` (the same timestamp and bits held already: kept once), of the series `keep` names. */
  absorb(other: OooHead, keep: (id: number) => boolean = () => true): void {
    for (const id of other.ids()) {
      if (!keep(id)) continue;
      const cols = other.columns(id);
      for (let i = 0; i < cols.n; i++) this.insert(id, cols.t[i]!, cols.v[2 * i]!, cols.v[2 * i + 1]!);
    }
  }

  /** Drops samples older than `cutoff` (retention); returns the ids of series left with none. */
  expireBefore(cutoff: number): number[] {
    if (!(this.minTime < cutoff)) return [];
    return this.splitBefore(cutoff).ids().filter((id) => !this.bySeries.has(id));
  }

  /** Drops series `id` and its samples. */
  drop(id: number): void {
    const s = this.bySeries.get(id);
    if (s === undefined) return;
    this.total -= this.seriesSamples(s);
    this.bySeries.delete(id);
    this.boundsDirty = true;
  }

  private seriesSamples(s: OooSeries): number {
    let n = 0;
    for (const c of s.chunks) n += c.n;
    return n;
  }

  private adopt(id: number, chunks: OooChunk[], n: number): void {
    if (chunks.length === 0) return;
    for (const c of chunks) if (c.t !== undefined) close(c);
    this.bySeries.set(id, { chunks, open: undefined });
    this.total += n;
    if (chunks[0]!.minT < this.min) this.min = chunks[0]!.minT;
    if (chunks[chunks.length - 1]!.maxT > this.max) this.max = chunks[chunks.length - 1]!.maxT;
  }

  /** Splits the open chunk `i` of `s`, just grown past its capacity by a sample at `pos`. */
  private split(s: OooSeries, i: number, pos: number): void {
    const c = s.chunks[i]!;
    const n = c.n;
    // A sender catching up in time order (the new sample after all held)
    // fills chunks to the brim, as Prometheus cuts them; one going back in
    // time (before all held) does the same backwards; else halves, so that
    // chunks stay between 16 and 32 samples.
    const last = i === s.chunks.length - 1;
    const at = last && pos === n - 1 ? n - 1 : i === 0 && pos === 0 ? 1 : n >>> 1;
    const left = columnsChunk(c.t!, c.v!, 0, at);
    const right = columnsChunk(c.t!, c.v!, at, n);
    if (pos < at) {
      close(right);
      s.open = left;
    } else {
      close(left);
      s.open = right;
    }
    s.chunks.splice(i, 1, left, right);
  }

  private added(t: number): void {
    this.total++;
    if (t < this.min) this.min = t;
    if (t > this.max) this.max = t;
  }

  private recomputeBounds(): void {
    let min = Infinity;
    let max = -Infinity;
    for (const s of this.bySeries.values()) {
      const cs = s.chunks;
      if (cs.length === 0) continue;
      if (cs[0]!.minT < min) min = cs[0]!.minT;
      if (cs[cs.length - 1]!.maxT > max) max = cs[cs.length - 1]!.maxT;
    }
    this.min = min;
    this.max = max;
    this.boundsDirty = false;
  }
}

/** Index of the last chunk whose first sample is at or before `t`, -1 when none. */
function chunkAtOrBefore(cs: readonly OooChunk[], t: number): number {
  let lo = 0;
  let hi = cs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cs[mid]!.minT <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

function openColumns(t: number, lo: number, hi: number): OooChunk {
  const c: OooChunk = { minT: t, maxT: t, n: 1, data: undefined, t: new Float64Array(OPEN_CAPACITY), v: new Uint32Array(2 * OPEN_CAPACITY) };
  c.t![0] = t;
  c.v![0] = lo;
  c.v![1] = hi;
  return c;
}

/** A chunk holding columns [from, to) as open columns. */
function columnsChunk(t: Float64Array, v: Uint32Array, from: number, to: number): OooChunk {
  const ct = new Float64Array(OPEN_CAPACITY);
  const cv = new Uint32Array(2 * OPEN_CAPACITY);
  ct.set(t.subarray(from, to));
  cv.set(v.subarray(2 * from, 2 * to));
  return { minT: ct[0]!, maxT: ct[to - from - 1]!, n: to - from, data: undefined, t: ct, v: cv };
}

function close(c: OooChunk): void {
  if (c.t === undefined) return;
  c.data = encodeColumns(c.t, c.v!, 0, c.n);
  c.t = undefined;
  c.v = undefined;
}

function reopen(c: OooChunk): void {
  if (c.t !== undefined) return;
  const cols = decodeColumns(c.data!);
  c.t = new Float64Array(OPEN_CAPACITY);
  c.v = new Uint32Array(2 * OPEN_CAPACITY);
  c.t.set(cols.t.subarray(0, cols.n));
  c.v.set(cols.v.subarray(0, 2 * cols.n));
  c.data = undefined;
}

function columnsOf(c: OooChunk): SampleColumns {
  return c.t !== undefined ? { t: c.t, v: c.v!, n: c.n } : decodeColumns(c.data!);
}

/** Splits a chunk at `end`: samples before it, and the others (open again if it was open). */
function splitChunk(c: OooChunk, end: number): [OooChunk, OooChunk] {
  const cols = columnsOf(c);
  const at = lowerBound(cols.t, cols.n, end);
  const left = columnsChunk(cols.t, cols.v, 0, at);
  const right = columnsChunk(cols.t, cols.v, at, cols.n);
  close(left);
  if (c.t === undefined) close(right);
  return [left, right];
}
