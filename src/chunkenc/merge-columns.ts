/**
 * One series' chunks (sorted, not overlapping one another) merged with
 * samples held as columns (sorted, distinct: the out-of-order head's), the
 * way Prometheus' out-of-order read path merges its out-of-order chunks
 * with the in-order ones: a chunk holding none of the samples' times in
 * its span passes through as stored; each XOR chunk that does is decoded
 * once, merged with those samples and encoded again (a time held by both
 * keeps the chunk's sample); samples between chunks become chunks of their
 * own. No sample is encoded only to be decoded again, and no chunk is
 * decoded unless samples fall in its span (issue 26: merging encoded
 * out-of-order chunks cost 25x a read of chunks as stored). The decode,
 * merge and encode run in the codec's module (xor/wasm-merge.ts).
 */
import { lowerBound, type SampleColumns } from './columns.js';
import { ENCODING_XOR } from './encoding.js';
import { ENCODED_CHUNK_SAMPLES } from './chunk-samples.js';
import type { MergeableChunk, MergedChunk } from './merge-chunks.js';
import { threadCodec } from './xor/impl.js';
import { XorMerger, type MergedBytes } from './xor/wasm-merge.js';

/**
 * Merges remembered from earlier reads (src/head/merged-cache.ts): keyed by
 * the chunk (undefined: late samples between chunks) and the range
 * [from, to) of the columns, which the caller vouches have not changed.
 */
export interface MergeMemo<C> {
  /** Pushes to `out` what merging `chunk` with samples [from, to) gave before; false when not held. */
  recall(chunk: C | undefined, from: number, to: number, out: { push(c: MergedChunk): unknown }): boolean;
  /** Remembers out[first, out.length) as what merging `chunk` with samples [from, to) gives. */
  keep(chunk: C | undefined, from: number, to: number, out: ReadonlyArray<MergedChunk | C>, first: number): void;
}

/** This thread's merger, made on first use. */
let merger: XorMerger | undefined;

/**
 * `chunks` with samples [from, to) of `cols` merged in, by time, not
 * overlapping; undefined when this cannot be done so (chunks overlapping
 * one another, or samples in the span of a chunk that is not XOR): the
 * caller merges as chunks then (merge-chunks.ts). `chunks` is sorted in
 * place by min time. New chunks' bytes go to `bytes` when given (a read's
 * arena), else each is a slice of its own; `memo`, when given, answers
 * merges made before and remembers new ones.
 */
export function mergeColumnsInto<C extends MergeableChunk>(chunks: C[], cols: SampleColumns, from = 0, to = cols.n, bytes?: MergedBytes, memo?: MergeMemo<C>): Array<C | MergedChunk> | undefined {
  if (chunks.length > 1) chunks.sort(byMinT);
  const out: Array<C | MergedChunk> = [];
  const ct = cols.t;
  let i = from;
  let prevMax = -Infinity;
  for (let k = 0; k < chunks.length; k++) {
    const c = chunks[k]!;
    if (c.minT <= prevMax) return undefined;
    prevMax = c.maxT;
    // Samples before the chunk: chunks of their own.
    const before = i < to && ct[i]! < c.minT ? lowerBound(ct, to, c.minT, i) : i;
    if (before > i) mergeRange(undefined, cols, i, before, out, bytes, memo);
    // Samples within its span.
    const within = before < to && ct[before]! <= c.maxT ? lowerBound(ct, to, c.maxT + 1, before) : before;
    i = within;
    if (within === before) {
      out.push(c);
      continue;
    }
    if ((c.encoding ?? ENCODING_XOR) !== ENCODING_XOR) return undefined;
    mergeRange(c, cols, before, within, out, bytes, memo);
  }
  if (i < to) mergeRange(undefined, cols, i, to, out, bytes, memo);
  return out;
}

/** `chunk` (none: undefined) merged with samples [from, to) of `cols` onto `out`, remembered by `memo`. A function of its own, not a closure: a read calls it for every series. */
function mergeRange<C extends MergeableChunk>(chunk: C | undefined, cols: SampleColumns, from: number, to: number, out: Array<C | MergedChunk>, bytes: MergedBytes | undefined, memo: MergeMemo<C> | undefined): void {
  if (memo !== undefined && memo.recall(chunk, from, to, out)) return;
  const first = out.length;
  merger ??= new XorMerger(threadCodec());
  merger.mergeInto(chunk?.data, cols.t, cols.v, from, to, ENCODED_CHUNK_SAMPLES, out, bytes);
  memo?.keep(chunk, from, to, out, first);
}

const byMinT = (a: MergeableChunk, b: MergeableChunk): number => a.minT - b.minT;

