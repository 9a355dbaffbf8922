/**
 * One series' chunks made non-overlapping, as Prometheus' compacting chunk
 * merger does for overlapping blocks and its out-of-order read path for
 * the out-of-order head: chunks that overlap no other pass through as
 * stored (no copy, no decoding); each run of overlapping chunks is
 * decoded, merged by time and cut into new chunks, as Prometheus'
 * seriesToChunkEncoder cuts them: a new chunk where the sample type
 * changes (float, integer histogram, float histogram: XOR, HISTOGRAM and
 * FLOAT_HISTOGRAM chunks), after 120 samples, and within histograms where
 * the histogram chunker cuts (a counter reset, a bucket layout the chunk
 * cannot take: src/chunkenc/chunk-samples.ts). Used by reads (several
 * readers, or the head with out-of-order data) and by block compaction
 * and head blocks.
 */
import { ENCODED_CHUNK_SAMPLES, decodeHistogramChunk, encodeHistogramChunks, type AnyHistogram } from './chunk-samples.js';
import { decodeColumns, encodeColumns, mergeSorted, type SampleColumns } from './columns.js';
import { ENCODING_NONE, ENCODING_XOR, isHistogramEncoding, type HistogramEncoding } from './encoding.js';
import { RESET_GAUGE, RESET_UNKNOWN } from './histogram/types.js';

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
  /** 1 XOR, 2 histogram, 3 float histogram. */
  encoding: number;
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
 * time, then by its place in `chunks` (put the older source first), of
 * whatever type. Chunks of any encoding; `chunks` is sorted in place.
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

/** Decodes overlapping chunks, merges their samples by time (first chunk wins a tie) and cuts them into chunks. */
export function mergeRun(run: readonly MergeableChunk[]): MergedChunk[] {
  let xorOnly = true;
  for (const c of run) if ((c.encoding ?? ENCODING_XOR) !== ENCODING_XOR) xorOnly = false;
  if (!xorOnly) return mergeMixedRun(run);
  let merged: SampleColumns | undefined;
  for (const c of run) {
    const part = decodeColumns(c.data);
    merged = merged === undefined ? part : mergeSorted(merged, part);
  }
  return merged === undefined ? [] : encodeChunks(merged.t, merged.v, merged.n);
}

/** A decoded chunk of a mixed run: float columns, or histograms of one encoding. */
type Part =
  | { kind: typeof ENCODING_XOR; t: ArrayLike<number>; n: number; cols: SampleColumns }
  | { kind: HistogramEncoding; t: ArrayLike<number>; n: number; h: readonly AnyHistogram[] };

function decodePart(c: MergeableChunk): Part {
  const enc = c.encoding ?? ENCODING_XOR;
  if (enc === ENCODING_XOR) {
    const cols = decodeColumns(c.data);
    return { kind: ENCODING_XOR, t: cols.t, n: cols.n, cols };
  }
  if (!isHistogramEncoding(enc)) throw new Error(`chunk of unknown encoding ${enc} cannot be merged`);
  const d = decodeHistogramChunk(enc, c.data);
  return { kind: enc, t: d.t, n: d.t.length, h: d.h };
}

/**
 * A run holding histogram chunks: every chunk decoded, samples picked in
 * time order across them (a time held by several chunks: the first
 * chunk's sample, of whatever type), and each stretch of one sample type
 * encoded by its own codec. Runs are a few chunks: a linear pick among
 * them per sample is cheaper than a heap.
 */
function mergeMixedRun(run: readonly MergeableChunk[]): MergedChunk[] {
  const parts = run.map(decodePart);
  const at = new Array<number>(parts.length).fill(0);
  const out: MergedChunk[] = [];
  let kind: number = ENCODING_NONE;
  let ft: number[] = [];
  let fv: number[] = [];
  let ht: number[] = [];
  let hs: AnyHistogram[] = [];
  let prevPart = -1;
  let prevIndex = -1;
  const flush = (): void => {
    if (kind === ENCODING_XOR && ft.length > 0) {
      for (const c of encodeChunks(Float64Array.from(ft), Uint32Array.from(fv), ft.length)) out.push(c);
    } else if (ht.length > 0) {
      for (const c of encodeHistogramChunks(kind, ht, hs)) out.push(c);
    }
    ft = [];
    fv = [];
    ht = [];
    hs = [];
  };
  for (;;) {
    let best = -1;
    let bestT = Infinity;
    for (let p = 0; p < parts.length; p++) {
      const part = parts[p]!;
      if (at[p]! < part.n && part.t[at[p]!]! < bestT) {
        best = p;
        bestT = part.t[at[p]!]!;
      }
    }
    if (best < 0) break;
    const part = parts[best]!;
    const i = at[best]!;
    if (part.kind !== kind) {
      flush();
      kind = part.kind;
    }
    if (part.kind === ENCODING_XOR) {
      ft.push(bestT);
      // Value bits as two u32 words: a NaN payload never becomes a JS number.
      fv.push(part.cols.v[2 * i]!, part.cols.v[2 * i + 1]!);
    } else {
      ht.push(bestT);
      // As Prometheus' chainSampleIterator: a sample that does not follow
      // its neighbour in its own chunk says nothing about counter resets
      // any more (the chunker finds out); a gauge stays a gauge.
      const h = part.h[i]!;
      const consecutive = best === prevPart && i === prevIndex + 1;
      hs.push(consecutive || h.counterResetHint === RESET_GAUGE || h.counterResetHint === RESET_UNKNOWN ? h : { ...h, counterResetHint: RESET_UNKNOWN });
    }
    prevPart = best;
    prevIndex = i;
    // The same time in later chunks is dropped: the first chunk's sample wins.
    for (let p = 0; p < parts.length; p++) {
      const q = parts[p]!;
      while (at[p]! < q.n && q.t[at[p]!]! <= bestT) at[p] = at[p]! + 1;
    }
  }
  flush();
  return out;
}

/** Sorted, distinct samples cut into XOR chunks of up to ENCODED_CHUNK_SAMPLES (as histograms are). */
export function encodeChunks(t: Float64Array, v: Uint32Array, n: number): MergedChunk[] {
  const out: MergedChunk[] = [];
  for (let from = 0; from < n; from += ENCODED_CHUNK_SAMPLES) {
    const to = Math.min(n, from + ENCODED_CHUNK_SAMPLES);
    out.push({ minT: t[from]!, maxT: t[to - 1]!, encoding: ENCODING_XOR, data: encodeColumns(t, v, from, to) });
  }
  return out;
}
