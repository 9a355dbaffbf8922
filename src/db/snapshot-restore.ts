/**
 * A head snapshot (snapshot-load.ts) into the head, with each series'
 * chunks: from the chunk files' scan (PendingChunks), or, when the files
 * are still those the snapshot recorded (ChunkSegments.scanned false),
 * from the snapshot's own chunk lists.
 */
import type { ChunkSegments } from '../chunks/chunk-segments.js';
import { ChunkFileCorruption } from '../chunks/corruption.js';
import { Head } from '../head/head.js';
import { restoreChunks } from '../head/head-chunks.js';
import type { Series } from '../head/series.js';
import { releasePages } from '../files/mmap.js';
import type { DbLog } from './options.js';
import type { PendingChunks } from './pending-chunks.js';
import type { HeadSnapshot } from './snapshot-read.js';
import { loadSnapshot, type UsableSnapshot } from './snapshot-load.js';

/**
 * Gives series `i` of the snapshot its chunk `list`. Its newest sample
 * comes from the snapshot when its newest chunk is still the one the
 * snapshot names, ending at the snapshot's newest time, and that sample
 * is a float (a histogram's state lives in its chunk); else from that
 * chunk, as a WAL replay does (restoreChunks). Answers whether the chunk
 * was decoded.
 */
function adopt(head: Head, chunks: ChunkSegments, s: Series, list: number[], snap: HeadSnapshot, i: number, log: DbLog): boolean {
  const n = list.length;
  const lo = snap.newestV[2 * i]!;
  const hi = snap.newestV[2 * i + 1]!;
  if (list[n - 3] === snap.lastRef[i] && list[n - 1] === snap.newestT[i] && !Head.isHistogramNewest(lo, hi)) {
    s.chunks = list;
    head.setNewestWords(s, snap.newestT[i]!, lo, hi);
    return false;
  }
  // A file mapped unread checks a chunk's CRC as it is read: a damaged newest chunk is left out, as the scan would have.
  for (let kept = list; ; kept = kept.slice(0, -3)) {
    try {
      restoreChunks(head, chunks, s, kept);
      return true;
    } catch (err) {
      if (!(err instanceof ChunkFileCorruption)) throw err;
      log.warn({ file: err.file, offset: err.offset, err: err.message }, 'skipped a damaged head chunk: its samples are lost');
    }
  }
}

/** Loads `usable` and gives its series the chunks the scan found (`pending`). */
export function restoreScanned(head: Head, chunks: ChunkSegments, pending: PendingChunks, usable: UsableSnapshot, log: DbLog): void {
  const started = Date.now();
  const { snap } = usable;
  const series = loadSnapshot(head, snap);
  const loadMs = Date.now() - started;
  let decoded = 0;
  for (let i = 0; i < series.length; i++) {
    const s = series[i]!;
    const list = pending.take(s.id);
    if (list !== undefined && adopt(head, chunks, s, list, snap, i, log)) decoded++;
  }
  releasePages(snap.file);
  log.info({ snapshot: usable.name, series: series.length, labelValues: snap.values, newestDecoded: decoded, loadMs, ms: Date.now() - started }, 'head snapshot loaded');
}

/**
 * Loads `usable` and gives its series the chunk lists it recorded (the
 * chunk files were not scanned: they are the ones it recorded). Chunks
 * that start before `floor` (the blocks hold them) are left out, as the
 * scan leaves them out; answers how many.
 */
export function restoreRecorded(head: Head, chunks: ChunkSegments, usable: UsableSnapshot, floor: number, log: DbLog): number {
  const started = Date.now();
  const { snap } = usable;
  const series = loadSnapshot(head, snap);
  const loadMs = Date.now() - started;
  const { counts, triples } = snap.chunks!;
  let decoded = 0;
  let inBlocks = 0;
  let k = 0;
  for (let i = 0; i < series.length; i++) {
    const c = counts[i]!;
    if (c === 0) continue;
    const from = k;
    k += 3 * c;
    let list: number[];
    if (c === 1) {
      if (triples[from + 1]! < floor) {
        inBlocks++;
        continue;
      }
      // A literal is made a double array at once (pending-chunks.ts says why).
      list = [triples[from]!, triples[from + 1]!, triples[from + 2]!];
    } else {
      list = [];
      for (let j = from; j < k; j += 3) {
        if (triples[j + 1]! < floor) inBlocks++;
        else list.push(triples[j]!, triples[j + 1]!, triples[j + 2]!);
      }
      if (list.length === 0) continue;
    }
    if (adopt(head, chunks, series[i]!, list, snap, i, log)) decoded++;
  }
  releasePages(snap.file);
  log.info({
    snapshot: usable.name, series: series.length, labelValues: snap.values, newestDecoded: decoded, chunkFilesScanned: false, loadMs, ms: Date.now() - started,
  }, 'head snapshot loaded');
  return inBlocks;
}
