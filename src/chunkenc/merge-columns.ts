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

/** This thread's merger, made on first use. */
let merger: XorMerger | undefined;

/**
 * `chunks` with samples [from, to) of `cols` merged in, by time, not
 * overlapping; undefined when this cannot be done so (chunks overlapping
 * one another, or samples in the span of a chunk that is not XOR): the
 * caller merges as chunks then (merge-chunks.ts). `chunks` is sorted in
 * place by min time. New chunks' bytes go to `bytes` when given (a read's
 * arena), else each is a slice of its own.
 */
export function mergeColumnsInto<C extends MergeableChunk>(chunks: C[], cols: SampleColumns, from = 0, to = cols.n, bytes?: MergedBytes): Array<C | MergedChunk> | undefined {
  if (chunks.length > 1) chunks.sort(byMinT);
  merger ??= new XorMerger(threadCodec());
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
    if (before > i) merger.mergeInto(undefined, ct, cols.v, i, before, ENCODED_CHUNK_SAMPLES, out, bytes);
    // Samples within its span.
    const within = before < to && ct[before]! <= c.maxT ? lowerBound(ct, to, c.maxT + 1, before) : before;
    i = within;
    if (within === before) {
      out.push(c);
      continue;
    }
    if ((c.encoding ?? ENCODING_XOR) !== ENCODING_XOR) return undefined;
    merger.mergeInto(c.data, ct, cols.v, before, within, ENCODED_CHUNK_SAMPLES, out, bytes);
  }
  if (i < to) merger.mergeInto(undefined, ct, cols.v, i, to, ENCODED_CHUNK_SAMPLES, out, bytes);
  return out;
}

const byMinT = (a: MergeableChunk, b: MergeableChunk): number => a.minT - b.minT;

