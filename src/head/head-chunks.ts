import type { ChunkSegments } from '../chunks/chunk-segments.js';
import { ENCODING_XOR, isHistogramEncoding } from '../chunkenc/encoding.js';
import { threadCodec } from '../chunkenc/index.js';
import { lastHistogramSample } from '../chunkenc/histogram/chunker.js';
import { Yielder } from '../background/yielder.js';
import type { Head } from './head.js';
import type { Series } from './series.js';

/**
 * The head's closed chunks: each series lists its chunks in the head chunk
 * files as [ref, minT, maxT] triples in time order, whatever their
 * encodings (XOR, histogram, float histogram: the chunk files record each
 * chunk's, ChunkSegments.encodingOf). These are the only places that
 * change those lists; readers take the list a series holds at the moment
 * (a change assigns a new list rather than editing the old).
 */

/**
 * Hands the chunks the head cut since the last call to the chunk files and
 * lists them on their series: histogram chunks first, then float chunks.
 * A series' histogram chunk still open when one of its float chunks is cut
 * is older than it (floats came after it): it is cut and stored first, so
 * that every list stays in time order.
 */
export function storeCuts(head: Head, files: ChunkSegments, flush = true): void {
  const hist = head.histograms;
  const storeHistogram = (c: { id: number; minT: number; maxT: number; encoding: number; data: Uint8Array }): void => {
    const ref = files.add(c.id, c.minT, c.maxT, c.data, c.encoding);
    const s = head.get(c.id);
    if (s !== undefined) addChunk(s, ref, c.minT, c.maxT);
  };
  hist.drainCuts(storeHistogram);
  head.drainCuts((c) => {
    const s = head.get(c.id);
    if (hist.hasOpen(c.id) && hist.cutOpen(c.id)) hist.drainCuts(storeHistogram);
    const ref = files.add(c.id, c.minT, c.maxT, c.data, ENCODING_XOR);
    if (s !== undefined) addChunk(s, ref, c.minT, c.maxT);
  });
  if (flush) files.flush();
}

/** Lists a chunk on its series (the newest: its list stays in time order). */
function addChunk(s: Series, ref: number, minT: number, maxT: number): void {
  if (s.chunks.length === 0) s.chunks = [ref, minT, maxT];
  else s.chunks.push(ref, minT, maxT);
}

/**
 * After a restart: gives a series the chunks recovery found for it, and,
 * as its newest sample may be in them only, takes that sample back (from
 * the last chunk, decoded as its encoding says).
 */
export function restoreChunks(head: Head, files: ChunkSegments, s: Series, chunks: number[]): void {
  s.chunks = chunks;
  const n = chunks.length;
  if (n === 0) return;
  const ref = chunks[n - 3]!;
  const encoding = files.encodingOf(ref);
  const data = files.read(ref);
  if (isHistogramEncoding(encoding)) {
    const last = lastHistogramSample(encoding, data);
    if (last === undefined) return;
    head.setNewestHistogram(s, last.t);
    head.histograms.restore(s.id, last.t, last.h, encoding, data);
    return;
  }
  const samples = threadCodec().decode(data);
  const last = samples.timestamps.length - 1;
  if (last < 0) return;
  head.setNewest(s, Number(samples.timestamps[last]!), samples.values.subarray(last));
}

/**
 * Retention in the head: chunks ending before `cutoff` leave their series
 * (their bytes go when their whole file does), open chunks ending before
 * it are dropped. Returns the ids of the series left with nothing (no
 * out-of-order samples either: expire those first).
 */
export function expireChunks(head: Head, cutoff: number): number[] {
  const empty: number[] = [];
  for (const s of head.all()) {
    const c = s.chunks;
    if (c.length > 0 && c[2]! < cutoff) {
      const kept: number[] = [];
      for (let i = 0; i < c.length; i += 3) if (c[i + 2]! >= cutoff) kept.push(c[i]!, c[i + 1]!, c[i + 2]!);
      s.chunks = kept;
    }
    const open = head.openChunk(s);
    if (open !== undefined && open.maxT < cutoff) head.dropOpen(s);
    if (s.chunks.length === 0 && (open === undefined || open.maxT < cutoff) && !head.ooo.has(s.id)) empty.push(s.id);
  }
  return empty;
}

/**
 * Lets go of the head's data older than `end` once a block holds it:
 * chunks before `end` leave their series' lists, series left with nothing
 * (no out-of-order samples either) leave the head and the index, and head
 * chunk files holding only older chunks are deleted. In the background:
 * appends (all newer than `end`) and reads go on in the pauses. Returns how many series left, and the
 * oldest sample time of the series visited (Infinity when none holds any).
 */
export async function truncateChunksBefore(head: Head, files: ChunkSegments, end: number): Promise<{ dropped: number; minTime: number }> {
  const drop: number[] = [];
  const y = new Yielder();
  let minTime = Infinity;
  for (const s of head.all()) {
    const c = s.chunks;
    if (c.length > 0 && c[1]! < end) {
      let n = 0;
      while (n < c.length && c[n + 1]! < end) n += 3;
      s.chunks = c.slice(n);
    }
    const oldest = head.oldest(s);
    if (oldest === undefined) {
      if (!head.ooo.has(s.id)) drop.push(s.id);
    } else if (oldest < minTime) minTime = oldest;
    const pause = y.tick();
    if (pause !== undefined) await pause;
  }
  // Appends went on during the pauses: drop only series still empty now.
  const empty = drop.filter((id) => {
    const s = head.get(id);
    return s !== undefined && !head.hasData(s);
  });
  await head.dropAsync(Uint32Array.from(empty), (n) => y.tick(n));
  files.deleteEndingBefore(end);
  return { dropped: empty.length, minTime };
}
