import type { ChunkSegments } from '../chunks/chunk-segments.js';
import type { Head } from '../head/head.js';
import { compareLabels, compareLabelsNative, compareUtf8 } from '../head/series.js';
import type { Series } from '../head/series.js';
import { ByteArena } from '../head/byte-arena.js';
import type { LabelMatcher } from '../index/types.js';

/** A chunk as stored: raw XOR bytes, never re-encoded. */
export interface StoredChunk {
  minT: number;
  maxT: number;
  /**
   * The chunk's bytes. For a closed chunk a view of a memory map, readable
   * for as long as it is held; for the open head chunk a copy. Read-only.
   */
  data: Uint8Array;
}

export interface SelectedSeries {
  /** [name, value, ...] in name order. */
  labels: readonly string[];
  /** Chunks overlapping the range, by min time; empty with skipChunks. */
  chunks: StoredChunk[];
}

export interface SelectOptions {
  /** Labels only: chunks are not read (series still need data in the range). */
  skipChunks?: boolean;
}

/** What the querier needs to know of the whole store. */
export interface TimeBounds {
  readonly minTime: number;
  readonly maxTime: number;
}

/**
 * Reads of the engine: series by matchers and time range, label names and
 * values. Answers are consistent at the moment of the call (one writer,
 * same thread); chunk views stay valid after later writes.
 */
export class Querier {
  constructor(private readonly head: Head, private readonly chunks: ChunkSegments, private readonly bounds: TimeBounds) {}

  /**
   * Series matching every matcher that hold data in [minT, maxT] (ms,
   * inclusive), sorted by labels, each with its chunks overlapping the
   * range (open head chunk included) in time order.
   */
  select(matchers: readonly LabelMatcher[], minT: number, maxT: number, opts: SelectOptions = {}): SelectedSeries[] {
    const out: SelectedSeries[] = [];
    const arena = new ByteArena();
    for (const s of this.matching(matchers, minT, maxT)) {
      if (opts.skipChunks) {
        out.push({ labels: s.labels, chunks: [] });
        continue;
      }
      const chunks = this.chunksOf(s, minT, maxT, arena);
      if (chunks.length > 0) out.push({ labels: s.labels, chunks });
    }
    const compare = this.head.index.hasSurrogates() ? compareLabels : compareLabelsNative;
    return out.sort((a, b) => compare(a.labels, b.labels));
  }

  /**
   * The series select() would answer, sorted by labels, without reading
   * their chunks: for answers streamed slice by slice, each slice reading
   * chunks (chunksIn) just before it is sent. A series whose data in the
   * range lies in a gap between chunks is listed and then has no chunks.
   */
  selectLazily(matchers: readonly LabelMatcher[], minT: number, maxT: number): Series[] {
    const out = [...this.matching(matchers, minT, maxT)];
    const compare = this.head.index.hasSurrogates() ? compareLabels : compareLabelsNative;
    return out.sort((a, b) => compare(a.labels, b.labels));
  }

  /** A series' chunks overlapping the range, in time order; open chunks copied into `arena`. */
  chunksIn(s: Series, minT: number, maxT: number, arena: ByteArena): StoredChunk[] {
    return this.chunksOf(s, minT, maxT, arena);
  }

  /** Label names of the series matching `matchers` with data in the range, sorted. */
  labelNames(matchers: readonly LabelMatcher[], minT: number, maxT: number): string[] {
    if (!this.overlaps(minT, maxT)) return [];
    if (matchers.length === 0 && this.coversAll(minT, maxT)) return this.head.index.labelNames();
    const names = new Set<string>();
    for (const s of this.matching(matchers, minT, maxT)) {
      for (let i = 0; i < s.labels.length; i += 2) names.add(s.labels[i]!);
    }
    return [...names].sort(compareUtf8);
  }

  /** Values of label `name` among the series matching `matchers` with data in the range, sorted. */
  labelValues(name: string, matchers: readonly LabelMatcher[], minT: number, maxT: number): string[] {
    if (!this.overlaps(minT, maxT)) return [];
    if (matchers.length === 0 && this.coversAll(minT, maxT)) return this.head.index.labelValues(name);
    const values = new Set<string>();
    const all = matchers.length === 0 ? [{ type: 1, name, value: '' } as LabelMatcher] : matchers;
    for (const s of this.matching(all, minT, maxT)) {
      const v = valueOf(s.labels, name);
      if (v !== undefined) values.add(v);
    }
    return [...values].sort(compareUtf8);
  }

  /** Series matching every matcher (all series when there is none) with data in the range, in id order. */
  private *matching(matchers: readonly LabelMatcher[], minT: number, maxT: number): IterableIterator<Series> {
    if (!this.overlaps(minT, maxT)) return;
    const all = this.coversAll(minT, maxT);
    const ids = matchers.length === 0 ? this.head.index.allPostings().slice() : this.head.index.select(matchers);
    for (const id of ids) {
      const s = this.head.get(id);
      if (s === undefined) continue;
      if (all || this.holdsDataIn(s, minT, maxT)) yield s;
    }
  }

  private holdsDataIn(s: Series, minT: number, maxT: number): boolean {
    const oldest = this.head.oldest(s);
    const newest = this.head.newest(s);
    return oldest !== undefined && newest !== undefined && oldest <= maxT && newest >= minT;
  }

  private chunksOf(s: Series, minT: number, maxT: number, arena: ByteArena): StoredChunk[] {
    const out: StoredChunk[] = [];
    const c = s.chunks;
    for (let i = 0; i < c.length; i += 3) {
      const cMin = c[i + 1]!;
      const cMax = c[i + 2]!;
      if (cMax < minT) continue;
      if (cMin > maxT) break;
      out.push({ minT: cMin, maxT: cMax, data: this.chunks.read(c[i]!) });
    }
    const open = this.head.openChunkIn(s, minT, maxT, arena);
    if (open !== undefined) out.push(open);
    return out;
  }

  private overlaps(minT: number, maxT: number): boolean {
    return minT <= maxT && this.bounds.maxTime >= minT && this.bounds.minTime <= maxT;
  }

  private coversAll(minT: number, maxT: number): boolean {
    return minT <= this.bounds.minTime && maxT >= this.bounds.maxTime;
  }
}

function valueOf(labels: readonly string[], name: string): string | undefined {
  for (let i = 0; i < labels.length; i += 2) if (labels[i] === name) return labels[i + 1];
  return undefined;
}
