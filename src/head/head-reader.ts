import type { ChunkSegments } from '../chunks/chunk-segments.js';
import { MatchType, type LabelMatcher } from '../index/types.js';
import type { ReaderSeries, SeriesReader, StoredChunk } from '../query/types.js';
import { TransientArena, type ByteArena } from '../query/byte-arena.js';
import type { Head } from './head.js';
import { compareLabels, compareLabelsNative, compareUtf8 } from '../encoding/utf8.js';
import { encodeChunks, withoutOverlaps } from '../chunkenc/merge-chunks.js';
import { mergeColumnsInto } from '../chunkenc/merge-columns.js';
import { lowerBound, mergeSorted, type SampleColumns } from '../chunkenc/columns.js';
import type { OooHead } from './ooo-head.js';
import type { Series } from './series.js';

/** The head's time bounds, kept by the engine. */
export interface HeadBounds {
  readonly headMinTime: number;
  readonly headMaxTime: number;
}

/**
 * The head as one more reader: its series, their closed chunks (views of
 * the head chunk files) and open chunks (copies). Handles are the head's
 * Series objects; a series that left the head since reads as no chunks.
 *
 * `visibleFrom` is where the blocks end when the reader is made: older
 * chunks still in the head (a block was just written from them, and the
 * head lets go of them once earlier reads are done) are not answered, so
 * no sample comes from both a block and the head.
 *
 * Chunks carry their encoding (StoredChunk.encoding, Prometheus'
 * numbers): a series' closed chunks as the head chunk files record it (1
 * XOR, 2 histogram, 3 float histogram); its open float chunk 1; its open
 * native histogram chunk (a copy, as the float one) 2 or 3. The read side
 * passes histogram chunks on as stored with that encoding (Store API
 * Chunk.Encoding HISTOGRAM 1 / FLOAT_HISTOGRAM 2, remote read 2 / 3). A
 * series' chunks never overlap and come in time order, whatever their
 * encodings (where a series switches between floats and histograms a new
 * chunk starts); histogram-only series are series like any other for the
 * label APIs and matchers.
 *
 * Out-of-order samples (the head's `ooo`, and `cutting`: those being
 * written into blocks, until the blocks are read instead) are answered
 * whatever their age. A series holding some gets them merged into its
 * chunks (src/chunkenc/merge-columns.ts): chunks whose span holds none of
 * them as stored, the others decoded, merged and encoded again, so that
 * every sample comes once, in time order, in chunks that do not overlap,
 * as Prometheus' out-of-order read path answers. Series without out-of-order
 * samples are read as before: chunks as stored, no copy.
 */
export class HeadReader implements SeriesReader {
  constructor(
    private readonly head: Head,
    private readonly files: ChunkSegments,
    private readonly bounds: HeadBounds,
    private readonly visibleFrom = -Infinity,
    private readonly cutting?: OooHead,
  ) {}

  get minTime(): number {
    return Math.min(Math.max(this.bounds.headMinTime, this.visibleFrom), this.head.ooo.minTime, this.cutting?.minTime ?? Infinity);
  }

  get maxTime(): number {
    return Math.max(this.bounds.headMaxTime, this.head.ooo.maxTime, this.cutting?.maxTime ?? -Infinity);
  }

  hasSurrogates(): boolean {
    return this.head.index.hasSurrogates();
  }

  series(matchers: readonly LabelMatcher[], minT: number, maxT: number): ReaderSeries[] {
    const out: ReaderSeries[] = [];
    if (!this.overlaps(minT, maxT)) return out;
    // matching() as a plain loop (no generator step per series), over a
    // view of the postings: nothing changes the index during this loop.
    const all = this.coversAll(minT, maxT);
    const ids = matchers.length === 0 ? this.head.index.allPostings() : this.head.index.select(matchers);
    for (let i = 0; i < ids.length; i++) {
      const s = this.head.get(ids[i]!);
      if (s !== undefined && (all || this.holdsDataIn(s, minT, maxT))) out.push({ labels: this.head.labelsOf(s), reader: this, handle: s });
    }
    return sortByLabels(out, this.hasSurrogates());
  }

  chunks(handle: unknown, minT: number, maxT: number, arena: ByteArena): StoredChunk[] {
    const s = handle as Series;
    if (this.head.get(s.id) !== s) return [];
    const from = Math.max(minT, this.visibleFrom);
    const out: StoredChunk[] = [];
    const c = s.chunks;
    for (let i = 0; i < c.length; i += 3) {
      const cMin = c[i + 1]!;
      const cMax = c[i + 2]!;
      if (cMax < from) continue;
      if (cMin > maxT) break;
      out.push({ minT: cMin, maxT: cMax, encoding: this.files.encodingOf(c[i]!), data: this.files.read(c[i]!) });
    }
    // Both open chunks: the histogram one first, as it is the older when both are open.
    const hist = this.head.histograms.openChunkIn(s.id, from, maxT, arena);
    if (hist !== undefined) out.push(hist);
    const late = this.mayHoldOoo(s) ? this.oooColumns(s.id, minT, maxT) : undefined;
    // With late samples the open chunk is read as a view: the merge usually
    // decodes it (then a copy would be thrown away); copied below if not.
    const open = this.head.openChunkIn(s, from, maxT, late === undefined ? arena : VIEWS);
    if (open !== undefined) out.push(open);
    if (late === undefined) return out;
    // Merges are kept for the next read while the series' late samples stay
    // as they are (not while a cut holds some: its columns are a copy).
    const memo = this.head.merged;
    const cached = memo.maxBytes > 0 && late === range;
    if (cached) memo.select(s.id, s, range.stamp);
    const merged = mergeColumnsInto(out, late, late.from, late.to, arena, cached ? memo : undefined);
    if (merged !== undefined) {
      for (let k = merged.length - 1; open !== undefined && k >= 0; k--) if (merged[k] === open) open.data = arena.copy(open.data, 0, open.data.length);
      return merged;
    }
    if (open !== undefined) open.data = arena.copy(open.data, 0, open.data.length);
    // A histogram chunk spanning out-of-order samples: merged as chunks.
    const cols = late.from === 0 ? late : this.head.ooo.view(s.id, minT, maxT);
    for (const c of encodeChunks(cols.t, cols.v, cols.n)) out.push(c);
    return withoutOverlaps(out);
  }

  /**
   * The series' out-of-order samples in [minT, maxT] (the head's, and the
   * cut's), sorted, as columns and the range [from, to) of them; undefined
   * when there are none. The head's own columns (no views made) while no
   * cut holds any of the series' samples; valid during this call.
   */
  private oooColumns(id: number, minT: number, maxT: number): (SampleColumns & { from: number; to: number }) | undefined {
    const cut = this.cutting?.view(id, minT, maxT);
    if (cut !== undefined && cut.n > 0) {
      const held = this.head.ooo.view(id, minT, maxT);
      const all = held.n === 0 ? cut : mergeSorted(held, cut);
      return { t: all.t, v: all.v, n: all.n, from: 0, to: all.n };
    }
    const held = this.head.ooo.held(id);
    if (held === undefined) return undefined;
    // A range holding every sample (the usual read) needs no binary search:
    // its probes are cache misses on columns the merge then reads in order.
    const from = held.t[0]! >= minT ? 0 : lowerBound(held.t, held.n, minT);
    const to = held.t[held.n - 1]! <= maxT ? held.n : lowerBound(held.t, held.n, maxT + 1, from);
    if (to <= from) return undefined;
    range.t = held.t;
    range.v = held.v;
    range.n = held.n;
    range.from = from;
    range.to = to;
    range.stamp = held.stamp;
    return range;
  }

  labelNames(matchers: readonly LabelMatcher[], minT: number, maxT: number): string[] {
    if (!this.overlaps(minT, maxT)) return [];
    const ids = this.selected(matchers);
    if (this.everySeries(ids) && this.coversAll(minT, maxT)) return this.head.index.labelNames();
    const names = new Set<string>();
    for (const s of this.matching(ids, minT, maxT)) {
      const labels = this.head.labelsOf(s);
      for (let i = 0; i < labels.length; i += 2) names.add(labels[i]!);
    }
    return [...names].sort(compareUtf8);
  }

  labelValues(name: string, matchers: readonly LabelMatcher[], minT: number, maxT: number): readonly string[] {
    if (!this.overlaps(minT, maxT)) return [];
    const ids = this.selected(matchers);
    if (this.everySeries(ids) && this.coversAll(minT, maxT)) return this.head.index.labelValues(name);
    const values = new Set<string>();
    const withName = ids === ALL ? this.head.index.select([{ type: MatchType.NEQ, name, value: '' }]) : ids;
    for (const s of this.matching(withName, minT, maxT)) {
      const v = valueOf(this.head.labelsOf(s), name);
      if (v !== undefined) values.add(v);
    }
    return [...values].sort(compareUtf8);
  }

  /** Ids of the series matching every matcher; ALL, uncomputed, when there is no matcher. */
  private selected(matchers: readonly LabelMatcher[]): Uint32Array {
    return matchers.length === 0 ? ALL : this.head.index.select(matchers);
  }

  /**
   * Whether `ids` (from selected()) are every series of the head (no
   * matchers, or the tenant label of a store with one tenant): then the
   * index answers label questions without a series read.
   */
  private everySeries(ids: Uint32Array): boolean {
    return ids === ALL || ids.length === this.head.index.allPostings().length;
  }

  /** Series among `ids` (ALL: every series) with data in the range, in id order. */
  private *matching(ids: Uint32Array, minT: number, maxT: number): IterableIterator<Series> {
    if (!this.overlaps(minT, maxT)) return;
    const all = this.coversAll(minT, maxT);
    if (ids === ALL) ids = this.head.index.allPostings().slice();
    for (const id of ids) {
      const s = this.head.get(id);
      if (s === undefined) continue;
      if (all || this.holdsDataIn(s, minT, maxT)) yield s;
    }
  }

  /** Whether a chunk of the series overlaps the range (a gap between chunks holds nothing). */
  private holdsDataIn(s: Series, minT: number, maxT: number): boolean {
    if (this.mayHoldOoo(s) && (this.head.ooo.overlaps(s.id, minT, maxT) || this.cutting?.overlaps(s.id, minT, maxT) === true)) return true;
    if (minT < this.visibleFrom) minT = this.visibleFrom;
    const oldest = this.head.oldest(s);
    const newest = this.head.newest(s);
    if (oldest === undefined || newest === undefined || oldest > maxT || newest < minT) return false;
    const c = s.chunks;
    for (let i = 0; i < c.length; i += 3) {
      if (c[i + 2]! < minT) continue;
      return c[i + 1]! <= maxT;
    }
    const open = this.head.openChunk(s);
    return open !== undefined && open.minT <= maxT && open.maxT >= minT;
  }

  private overlaps(minT: number, maxT: number): boolean {
    return minT <= maxT && this.maxTime >= minT && this.minTime <= maxT;
  }

  /** Whether every sample of the head is in the range and visible (then no series needs a check). */
  private coversAll(minT: number, maxT: number): boolean {
    const oooMin = Math.min(this.head.ooo.minTime, this.cutting?.minTime ?? Infinity);
    return Math.max(minT, this.visibleFrom) <= this.bounds.headMinTime && minT <= oooMin && maxT >= this.maxTime;
  }

  /** Whether the series may hold out-of-order samples (two map lookups; none while no series holds any). */
  private mayHoldOoo(s: Series): boolean {
    return (this.head.ooo.seriesCount > 0 && this.head.ooo.has(s.id)) || this.cutting?.has(s.id) === true;
  }
}

/** oooColumns' answer for the head's own columns, reused (a read uses it at once). */
const range: SampleColumns & { from: number; to: number; stamp: number } = { t: new Float64Array(0), v: new Uint32Array(0), n: 0, from: 0, to: 0, stamp: 0 };

/** Views of the head's memory for the open chunk, valid until the head next runs (chunks() copies what it answers). */
const VIEWS = new TransientArena();

/** The marker for "every series of the head" (compared by identity). */
const ALL = new Uint32Array(0);

// Comparators fixed at module level, so the sort can inline them.
interface Labelled {
  readonly labels: readonly string[];
}
const byLabels = (a: Labelled, b: Labelled): number => compareLabels(a.labels, b.labels);
const byLabelsNative = (a: Labelled, b: Labelled): number => compareLabelsNative(a.labels, b.labels);

/**
 * Sorts series by their labels (compareLabels' order), in place. The
 * head's series come in id order, and a selection usually spans few
 * metric names: when every set starts with the same label name (as
 * `__name__`), the series are grouped by that label's value first and
 * each group sorted alone, which takes about half the comparisons of one
 * sort of all (for 10,000 series of 100 names, a sort was 15-19% of a
 * Series read's time on the server).
 */
export function sortByLabels<T extends Labelled>(series: T[], surrogates: boolean): T[] {
  const byAll = surrogates ? byLabels : byLabelsNative;
  if (series.length < 64) return series.sort(byAll);
  const first = series[0]!.labels[0];
  const groups = new Map<string, T[]>();
  for (let i = 0; i < series.length; i++) {
    const l = series[i]!.labels;
    if (l.length < 2 || l[0] !== first) return series.sort(byAll);
    const value = l[1]!;
    const g = groups.get(value);
    if (g === undefined) groups.set(value, [series[i]!]);
    else g.push(series[i]!);
  }
  if (groups.size === 1) return series.sort(byAll);
  const values = [...groups.keys()].sort(surrogates ? compareUtf8 : undefined);
  let at = 0;
  for (const v of values) {
    const g = groups.get(v)!.sort(byAll);
    for (let i = 0; i < g.length; i++) series[at++] = g[i]!;
  }
  return series;
}

function valueOf(labels: readonly string[], name: string): string | undefined {
  for (let i = 0; i < labels.length; i += 2) if (labels[i] === name) return labels[i + 1];
  return undefined;
}
