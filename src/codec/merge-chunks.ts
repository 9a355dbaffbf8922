/**
 * One series' chunks made non-overlapping, as Prometheus' compacting chunk
 * merger does for overlapping blocks and its out-of-order read path for
 * the out-of-order head: chunks that overlap no other pass through as
 * stored (no copy, no decoding); each run of overlapping chunks is
 * decoded, merged by time and cut into new XOR chunks of up to 120
 * samples. Used by reads (several readers, or the head with out-of-order
 * data) and by block compaction and head blocks.
 */
import { decodeColumns, encodeColumns, type SampleColumns } from './columns.js';

/** Samples per chunk made by a merge: Prometheus' seriesToChunkEncoder splits at 120, as the head cuts. */
export const MERGED_CHUNK_SAMPLES = 120;
/** Prometheus' XOR encoding number. */
const XOR = 1;

/** What the merge needs of a chunk; absent encoding means XOR. */
export interface MergeableChunk {
  minT: number;
  maxT: number;
  encoding?: number;
  data: Uint8Array;
}

/** A chunk made by a merge. */
export interface MergedChunk {
  minT: number;
  maxT: number;
  encoding: 1;
  data: Uint8Array;
}

/** Whether any two of the chunks overlap in time (sorted by min time or not). */
export function overlapping(chunks: readonly MergeableChunk[]): boolean {
  if (chunks.length < 2) return false;
  let sorted = true;
  for (let i = 1; i < chunks.length; i++) {
    if (chunks[i]!.minT < chunks[i - 1]!.minT) sorted = false;
    else if (chunks[i]!.minT <= chunks[i - 1]!.maxT) return true;
  }
  if (sorted) return false;
  const s = [...chunks].sort((a, b) => a.minT - b.minT);
  let maxT = s[0]!.maxT;
  for (let i = 1; i < s.length; i++) {
    if (s[i]!.minT <= maxT) return true;
    if (s[i]!.maxT > maxT) maxT = s[i]!.maxT;
  }
  return false;
}

/**
 * The chunks by min time, with no two overlapping. A timestamp held by
 * several chunks keeps the sample of the chunk that comes first by min
 * time, then by its place in `chunks` (put the older source first).
 * Overlapping chunks must be XOR; `chunks` is sorted in place.
 */
export function withoutOverlaps<C extends MergeableChunk>(chunks: C[]): Array<C | MergedChunk> {
  // Array.prototype.sort is stable: equal min times keep their given order.
  chunks.sort((a, b) => a.minT - b.minT);
  let any = false;
  for (let i = 1; i < chunks.length && !any; i++) if (chunks[i]!.minT <= chunks[i - 1]!.maxT) any = true;
  if (!any) {
    // Sorted by min time without overlap between neighbours: a chunk may
    // still reach over a later one only through a neighbour, which it
    // would overlap too. Nothing to merge.
    return chunks;
  }
  const out: Array<C | MergedChunk> = [];
  let run: C[] = [];
  let runMax = -Infinity;
  const flush = (): void => {
    if (run.length === 1) out.push(run[0]!);
    else if (run.length > 1) for (const c of mergeRun(run)) out.push(c);
    run = [];
  };
  for (const c of chunks) {
    if (run.length > 0 && c.minT > runMax) flush();
    runMax = run.length === 0 ? c.maxT : Math.max(runMax, c.maxT);
    run.push(c);
  }
  flush();
  return out;
}

/** Decodes overlapping XOR chunks, merges their samples by time (first chunk wins a tie) and cuts them into chunks. */
export function mergeRun(run: readonly MergeableChunk[]): MergedChunk[] {
  let merged: SampleColumns | undefined;
  for (const c of run) {
    if ((c.encoding ?? XOR) !== XOR) throw new Error(`overlapping chunks of encoding ${c.encoding} cannot be merged (only XOR)`);
    const part = decodeColumns(c.data);
    merged = merged === undefined ? part : merge2(merged, part);
  }
  return merged === undefined ? [] : encodeChunks(merged.t, merged.v, merged.n);
}

/**
 * Two sorted column sets merged into new ones; a time in both keeps `a`'s
 * sample. Pairwise merges of a run's few chunks are tight loops over typed
 * arrays (a sort with a comparator, or a k-way pick, measured 2-4x slower).
 */
function merge2(a: SampleColumns, b: SampleColumns): SampleColumns {
  const t = new Float64Array(a.n + b.n);
  const v = new Uint32Array(2 * (a.n + b.n));
  const at = a.t;
  const bt = b.t;
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.n || j < b.n) {
    let from: SampleColumns;
    let k: number;
    if (j >= b.n || (i < a.n && at[i]! <= bt[j]!)) {
      if (j < b.n && at[i] === bt[j]) j++;
      from = a;
      k = i++;
    } else {
      from = b;
      k = j++;
    }
    t[n] = from.t[k]!;
    v[2 * n] = from.v[2 * k]!;
    v[2 * n + 1] = from.v[2 * k + 1]!;
    n++;
  }
  return { t, v, n };
}

/** Sorted, distinct samples cut into XOR chunks of up to MERGED_CHUNK_SAMPLES. */
export function encodeChunks(t: Float64Array, v: Uint32Array, n: number): MergedChunk[] {
  const out: MergedChunk[] = [];
  for (let from = 0; from < n; from += MERGED_CHUNK_SAMPLES) {
    const to = Math.min(n, from + MERGED_CHUNK_SAMPLES);
    out.push({ minT: t[from]!, maxT: t[to - 1]!, encoding: XOR, data: encodeColumns(t, v, from, to) });
  }
  return out;
}
