import { ByteArena } from './byte-arena.js';
import { withoutOverlaps } from '../chunkenc/merge-chunks.js';
import { compareLabels, compareLabelsNative } from '../encoding/utf8.js';
import { compareUtf8, type LabelMatcher } from '../index/index.js';
import type { PlannedSeries, SelectOptions, SelectedSeries, SeriesReader, StoredChunk } from './types.js';

/**
 * Reads over several readers at once (blocks, then the head): series
 * merged by labels, each with the chunks of every reader holding it, in
 * time order, as stored. Readers must be given oldest first; their time
 * ranges do not overlap except where blocks overlap (then chunks are
 * ordered by min time across readers).
 *
 * The view is the one of the moment the querier was made: readers closed
 * later (a block deleted by retention or compaction) still answer from
 * their memory maps while a query holds them.
 */
export class Querier {
  constructor(private readonly readers: readonly SeriesReader[]) {}

  /** Whether any reader's labels may hold surrogates (then sort with compareLabels). */
  hasSurrogates(): boolean {
    return this.readers.some((r) => r.hasSurrogates());
  }

  /**
   * Series matching every matcher with data in [minT, maxT] (ms,
   * inclusive), sorted by labels, each with its chunks overlapping the range
   * in time order.
   */
  select(matchers: readonly LabelMatcher[], minT: number, maxT: number, opts: SelectOptions = {}): SelectedSeries[] {
    const out: SelectedSeries[] = [];
    const arena = new ByteArena();
    for (const p of this.plan(matchers, minT, maxT)) {
      if (opts.skipChunks) {
        out.push({ labels: p.labels, chunks: [] });
        continue;
      }
      const chunks = this.chunksOf(p, minT, maxT, arena);
      if (chunks.length > 0) out.push({ labels: p.labels, chunks });
    }
    return out;
  }

  /**
   * The series select() answers, sorted by labels, without their chunks:
   * for answers streamed slice by slice, each slice reading its chunks
   * (chunksOf) just before it is sent.
   */
  plan(matchers: readonly LabelMatcher[], minT: number, maxT: number): PlannedSeries[] {
    const lists: PlannedSeries[][] = [];
    for (const r of this.readers) {
      if (!(minT <= maxT && r.maxTime >= minT && r.minTime <= maxT)) continue;
      const list = r.series(matchers, minT, maxT);
      if (list.length > 0) lists.push(list);
    }
    if (lists.length === 0) return [];
    if (lists.length === 1) return lists[0]!;
    const compare = this.hasSurrogates() ? compareLabels : compareLabelsNative;
    return lists.reduce((a, b) => mergeSorted(a, b, compare));
  }

  /**
   * The chunks of a planned series overlapping the range, by min time,
   * none overlapping another; open head chunks copied into `arena`. Each
   * reader answers chunks that do not overlap; where several readers'
   * do (overlapping blocks, out-of-order samples of a range a block holds),
   * those are merged into new chunks (src/chunkenc/merge-chunks.ts: a
   * timestamp held twice is answered once, the older reader's), as
   * Prometheus merges overlapping blocks at query time.
   */
  chunksOf(p: PlannedSeries, minT: number, maxT: number, arena: ByteArena): StoredChunk[] {
    const first = p.reader.chunks(p.handle, minT, maxT, arena);
    if (p.more === undefined) return first;
    const out = first.slice();
    for (const part of p.more) for (const c of part.reader.chunks(part.handle, minT, maxT, arena)) out.push(c);
    // Readers come oldest first: chunks in order unless readers overlap.
    for (let i = 1; i < out.length; i++) {
      if (out[i]!.minT <= out[i - 1]!.maxT) return withoutOverlaps(out);
    }
    return out;
  }

  /** Label names of the series matching `matchers` with data in the range, sorted. */
  labelNames(matchers: readonly LabelMatcher[], minT: number, maxT: number): readonly string[] {
    return this.unionOf((r) => r.labelNames(matchers, minT, maxT), minT, maxT);
  }

  /** Values of label `name` among the series matching `matchers` with data in the range, sorted. */
  labelValues(name: string, matchers: readonly LabelMatcher[], minT: number, maxT: number): readonly string[] {
    return this.unionOf((r) => r.labelValues(name, matchers, minT, maxT), minT, maxT);
  }

  private unionOf(of: (r: SeriesReader) => readonly string[], minT: number, maxT: number): readonly string[] {
    const lists: (readonly string[])[] = [];
    for (const r of this.readers) {
      if (!(minT <= maxT && r.maxTime >= minT && r.minTime <= maxT)) continue;
      const l = of(r);
      if (l.length > 0) lists.push(l);
    }
    if (lists.length <= 1) return lists[0] ?? [];
    // Each list is sorted: merge them, dropping repeats (linear, where a sort would not be).
    return lists.reduce(mergeUnique);
  }
}

/** Merges two sorted string lists (UTF-8 byte order) into one without repeats. */
function mergeUnique(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      out.push(x);
      i++;
      j++;
    } else if (compareUtf8(x, y) < 0) {
      out.push(x);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/** Merges two label-sorted lists; a series in both gets the parts of both, `a`'s first. */
function mergeSorted(a: PlannedSeries[], b: PlannedSeries[], compare: (x: readonly string[], y: readonly string[]) => number): PlannedSeries[] {
  const out: PlannedSeries[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = compare(a[i]!.labels, b[j]!.labels);
    if (c < 0) out.push(a[i++]!);
    else if (c > 0) out.push(b[j++]!);
    else {
      const x = a[i]!;
      const y = b[j]!;
      out.push({ labels: x.labels, reader: x.reader, handle: x.handle, more: [...(x.more ?? []), { reader: y.reader, handle: y.handle }, ...(y.more ?? [])] });
      i++;
      j++;
    }
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}
