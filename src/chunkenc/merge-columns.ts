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
 * out-of-order chunks cost 25x a read of chunks as stored).
 */
import { ColumnsBuffer, decodeColumnsInto, lowerBound, mergeSorted, type SampleColumns } from './columns.js';
import { ENCODING_XOR } from './encoding.js';
import { encodeChunks, type MergeableChunk, type MergedChunk } from './merge-chunks.js';

/** Scratch of this thread: a chunk decoded, and it merged with samples (encoded before the next use). */
const decoded = new ColumnsBuffer();
const merged = new ColumnsBuffer();

/**
 * `chunks` with the samples of `cols` merged in, by time, not
 * overlapping; undefined when this cannot be done so (chunks overlapping
 * one another, or samples in the span of a chunk that is not XOR): the
 * caller merges as chunks then (merge-chunks.ts). `chunks` is sorted in
 * place by min time.
 */
export function mergeColumnsInto<C extends MergeableChunk>(chunks: C[], cols: SampleColumns): Array<C | MergedChunk> | undefined {
  chunks.sort((a, b) => a.minT - b.minT);
  const out: Array<C | MergedChunk> = [];
  const ct = cols.t;
  let i = 0;
  let prevMax = -Infinity;
  for (const c of chunks) {
    if (c.minT <= prevMax) return undefined;
    prevMax = c.maxT;
    // Samples before the chunk: chunks of their own.
    const before = i < cols.n && ct[i]! < c.minT ? lowerBound(ct, cols.n, c.minT) : i;
    if (before > i) pushEncoded(out, cols, i, before);
    // Samples within its span.
    const within = before < cols.n && ct[before]! <= c.maxT ? lowerBound(ct, cols.n, c.maxT + 1) : before;
    i = within;
    if (within === before) {
      out.push(c);
      continue;
    }
    if ((c.encoding ?? ENCODING_XOR) !== ENCODING_XOR) return undefined;
    const m = mergeSorted(decodeColumnsInto(c.data, decoded), cols, before, within, merged);
    for (const x of encodeChunks(m.t, m.v, m.n)) out.push(x);
  }
  if (i < cols.n) pushEncoded(out, cols, i, cols.n);
  return out;
}

function pushEncoded(out: Array<MergeableChunk>, cols: SampleColumns, from: number, to: number): void {
  const part = encodeChunks(cols.t.subarray(from, to), cols.v.subarray(2 * from, 2 * to), to - from);
  for (const m of part) out.push(m);
}
