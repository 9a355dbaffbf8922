/**
 * The out-of-order head: samples accepted older than their series' newest
 * (or older than the head's floor) within the out-of-order window, kept
 * apart from the in-order chunks as Prometheus keeps them, until the
 * block of their range is written.
 *
 * Per series, samples are held with at most one per timestamp as plain
 * columns (8 bytes of time, 8 of value bits a sample) that grow by
 * doubling: a sorted part, then up to TAIL samples in the order they came.
 * An insert is a binary search of the sorted part and a scan of the tail
 * (for a sample at that time), then an append; a full tail is sorted and
 * merged into the sorted part, one move of the samples after its oldest
 * for TAIL inserts, where an insert in place moved half the series' samples
 * each time (issue 26: 0.4 µs of memory traffic a scattered insert,
 * the columns of 10,000 series being far larger than the caches). Nothing
 * is decoded or encoded: Prometheus keeps its open out-of-order chunk as a
 * sorted slice and XOR-encodes it once full; here nothing is encoded until
 * read. Anything that reads a series (view, lookup, ...) sorts its tail
 * first. A sender catching up in time order appends to the sorted part.
 *
 * Readers get the columns themselves (view: head-reader.ts merges them
 * with the in-order chunks, merge-columns.ts), or chunks encoded from them
 * when read (encodeChunks, up to 120 samples a chunk).
 *
 * One writer (the engine's thread); what readers get is encoded bytes or
 * views that are valid until the next change (use them at once).
 */
import { lowerBound } from '../chunkenc/columns.js';
import type { SampleColumns } from '../chunkenc/columns.js';

/** Room a series' columns start with. */
const FIRST_CAPACITY = 8;

/** What an insert did. */
export const INSERT_ADDED = 0;
/** The same timestamp with the same value bits is held: nothing changed. */
export const INSERT_SAME = 1;
/** The same timestamp with other value bits is held: refused. */
export const INSERT_CONFLICT = 2;
export type InsertResult = typeof INSERT_ADDED | typeof INSERT_SAME | typeof INSERT_CONFLICT;

/** Samples an unsorted tail holds at most before it is merged. */
const TAIL = 32;

/**
 * One series' samples: columns, distinct times, [0, sorted) sorted by
 * time, [sorted, n) the tail; the arrays may be longer than `n`. `stamp`
 * changes whenever its samples do (from one clock for every head).
 */
interface OooSeries extends SampleColumns {
  sorted: number;
  stamp: number;
}

/** Source of stamps: never the same twice in a process. */
let clock = 0;

const NONE: SampleColumns = { t: new Float64Array(0), v: new Uint32Array(0), n: 0 };

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

  /** Bytes of the sample columns held (capacity included), for memory accounting. */
  get columnBytes(): number {
    let n = 0;
    for (const s of this.bySeries.values()) n += s.t.byteLength + s.v.byteLength;
    return n;
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
    if (s === undefined) {
      s = { t: new Float64Array(FIRST_CAPACITY), v: new Uint32Array(2 * FIRST_CAPACITY), n: 0, sorted: 0, stamp: 0 };
      this.bySeries.set(id, s);
    }
    const n = s.n;
    const sorted = s.sorted;
    const ct = s.t;
    // In time order (a sender catching up): the end of the sorted part, found without a search.
    const inOrder = sorted === n && (n === 0 || ct[n - 1]! < t);
    if (!inOrder) {
      let at = -1;
      if (sorted > 0 && t <= ct[sorted - 1]!) {
        const pos = lowerBound(ct, sorted, t);
        if (ct[pos] === t) at = pos;
      }
      for (let k = sorted; k < n && at < 0; k++) if (ct[k] === t) at = k;
      if (at >= 0) return s.v[2 * at] === lo && s.v[2 * at + 1] === hi ? INSERT_SAME : INSERT_CONFLICT;
    }
    if (n === ct.length) grow(s);
    s.t[n] = t;
    s.v[2 * n] = lo;
    s.v[2 * n + 1] = hi;
    s.n = n + 1;
    s.stamp = ++clock;
    if (inOrder) s.sorted = n + 1;
    else if (n + 1 - sorted >= TAIL) settle(s);
    this.total++;
    if (t < this.min) this.min = t;
    if (t > this.max) this.max = t;
    return INSERT_ADDED;
  }

  /** Whether series `id` holds timestamp `t`; if so its value bits go to out[0] (low) and out[1] (high). */
  lookup(id: number, t: number, out: Uint32Array): boolean {
    const s = this.settled(id);
    if (s === undefined) return false;
    const pos = lowerBound(s.t, s.n, t);
    if (pos >= s.n || s.t[pos] !== t) return false;
    out[0] = s.v[2 * pos]!;
    out[1] = s.v[2 * pos + 1]!;
    return true;
  }

  /** Whether series `id` holds a sample in [minT, maxT]. */
  overlaps(id: number, minT: number, maxT: number): boolean {
    const s = this.settled(id);
    if (s === undefined) return false;
    const pos = lowerBound(s.t, s.n, minT);
    return pos < s.n && s.t[pos]! <= maxT;
  }

  /**
   * Series `id`'s samples in [minT, maxT] as views of the columns held
   * (sorted, distinct): valid until the next change to this head, so use
   * them at once.
   */
  view(id: number, minT = -Infinity, maxT = Infinity): SampleColumns {
    const s = this.settled(id);
    if (s === undefined) return NONE;
    const from = minT === -Infinity ? 0 : lowerBound(s.t, s.n, minT);
    const to = maxT === Infinity ? s.n : lowerBound(s.t, s.n, maxT + 1);
    if (to <= from) return NONE;
    return { t: s.t.subarray(from, to), v: s.v.subarray(2 * from, 2 * to), n: to - from };
  }

  /**
   * Series `id`'s columns themselves (sorted, distinct; the arrays may be
   * longer than `n`), or undefined: as view() without making views, for a
   * reader that searches its range itself. Valid until the next change;
   * `stamp` changes whenever the series' samples do.
   */
  held(id: number): (SampleColumns & { readonly stamp: number }) | undefined {
    return this.settled(id);
  }

  /** Series `id`'s samples in [minT, maxT] as new columns (sorted, distinct). */
  columns(id: number, minT = -Infinity, maxT = Infinity): SampleColumns {
    const cols = this.view(id, minT, maxT);
    return { t: cols.t.slice(), v: cols.v.slice(), n: cols.n };
  }

  /**
   * Moves every sample older than `end` into a new head and returns it.
   * Synchronous, so that it happens at one point of the write-ahead log.
   */
  splitBefore(end: number): OooHead {
    const moved = new OooHead();
    for (const [id, s] of this.bySeries) {
      settle(s);
      if (s.n === 0 || !(s.t[0]! < end)) continue;
      const k = lowerBound(s.t, s.n, end);
      if (k === s.n) {
        // All of them: the columns move as they are.
        this.bySeries.delete(id);
        moved.adopt(id, s);
      } else {
        moved.adopt(id, { t: s.t.slice(0, k), v: s.v.slice(0, 2 * k), n: k, sorted: k, stamp: ++clock });
        s.t.copyWithin(0, k, s.n);
        s.v.copyWithin(0, 2 * k, 2 * s.n);
        s.n -= k;
        s.sorted = s.n;
        s.stamp = ++clock;
      }
      this.total -= k;
    }
    this.boundsDirty = true;
    return moved;
  }

  /** Adds every sample of `other` (the same timestamp and bits held already: kept once), of the series `keep` names. */
  absorb(other: OooHead, keep: (id: number) => boolean = () => true): void {
    for (const id of other.ids()) {
      if (!keep(id)) continue;
      const cols = other.view(id);
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
    this.total -= s.n;
    this.bySeries.delete(id);
    this.boundsDirty = true;
  }

  /** Series `id` with its tail merged into its sorted part. */
  private settled(id: number): OooSeries | undefined {
    const s = this.bySeries.get(id);
    if (s !== undefined && s.sorted !== s.n) settle(s);
    return s;
  }

  private adopt(id: number, s: OooSeries): void {
    this.bySeries.set(id, s);
    this.total += s.n;
    if (s.t[0]! < this.min) this.min = s.t[0]!;
    if (s.t[s.n - 1]! > this.max) this.max = s.t[s.n - 1]!;
  }

  private recomputeBounds(): void {
    let min = Infinity;
    let max = -Infinity;
    for (const s of this.bySeries.values()) {
      if (s.n === 0) continue;
      settle(s);
      if (s.t[0]! < min) min = s.t[0]!;
      if (s.t[s.n - 1]! > max) max = s.t[s.n - 1]!;
    }
    this.min = min;
    this.max = max;
    this.boundsDirty = false;
  }
}

/** Scratch of settle(): a tail sorted. */
const tailT = new Float64Array(TAIL);
const tailV = new Uint32Array(2 * TAIL);

/**
 * Sorts the series' tail and merges it into its sorted part: the tail is
 * sorted into scratch (insertion sort: at most TAIL samples), then both are
 * merged from the back, in place, so that only the sorted samples newer
 * than the tail's oldest move.
 */
function settle(s: OooSeries): void {
  const sorted = s.sorted;
  const m = s.n - sorted;
  if (m === 0) return;
  const t = s.t;
  const v = s.v;
  for (let k = 0; k < m; k++) {
    const x = t[sorted + k]!;
    const lo = v[2 * (sorted + k)]!;
    const hi = v[2 * (sorted + k) + 1]!;
    let j = k;
    for (; j > 0 && tailT[j - 1]! > x; j--) {
      tailT[j] = tailT[j - 1]!;
      tailV[2 * j] = tailV[2 * j - 2]!;
      tailV[2 * j + 1] = tailV[2 * j - 1]!;
    }
    tailT[j] = x;
    tailV[2 * j] = lo;
    tailV[2 * j + 1] = hi;
  }
  let i = sorted - 1;
  let j = m - 1;
  for (let k = s.n - 1; j >= 0; k--) {
    if (i >= 0 && t[i]! > tailT[j]!) {
      t[k] = t[i]!;
      v[2 * k] = v[2 * i]!;
      v[2 * k + 1] = v[2 * i + 1]!;
      i--;
    } else {
      t[k] = tailT[j]!;
      v[2 * k] = tailV[2 * j]!;
      v[2 * k + 1] = tailV[2 * j + 1]!;
      j--;
    }
  }
  s.sorted = s.n;
}

/** Doubles a series' room. */
function grow(s: OooSeries): void {
  const t = new Float64Array(2 * s.t.length);
  const v = new Uint32Array(2 * t.length);
  t.set(s.t.subarray(0, s.n));
  v.set(s.v.subarray(0, 2 * s.n));
  s.t = t;
  s.v = v;
}
