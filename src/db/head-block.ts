import type { ChunkSegments } from '../chunks/chunk-segments.js';
import { writeBlock } from '../blocks/block-writer.js';
import { ENC_XOR, type BlockMeta, type BlockSeriesInput } from '../blocks/types.js';
import type { Head } from '../head/head.js';
import { compareLabels, compareLabelsNative } from '../head/series.js';

/** Long passes over every series give the event loop a turn this often. */
const YIELD_EVERY_SERIES = 20_000;
const yieldToEventLoop = (): Promise<void> => new Promise((done) => setImmediate(done));

export interface HeadBlockOptions {
  head: Head;
  files: ChunkSegments;
  /** Hands the chunks just cut to the chunk files (the engine's storeCuts). */
  storeCuts: () => void;
  blocksDir: string;
  /** The range to cut: data in [minTime, end) (end exclusive, a multiple of the block range). */
  minTime: number;
  end: number;
  thanosLabels?: Record<string, string>;
}

/**
 * Writes the head's data older than `end` as one block (level 1) and
 * returns its meta, or undefined when there was none. The caller has made
 * sure no sample older than `end` is accepted any more, so the data in the
 * range only waits for its open chunks to be cut: they are cut here, then
 * every chunk before `end` is read from the head chunk files (memory maps)
 * and written as stored. Yields to the event loop as it goes; the head
 * keeps taking newer samples meanwhile.
 */
export async function writeHeadBlock(o: HeadBlockOptions): Promise<BlockMeta | undefined> {
  const { head, files, end } = o;
  let visited = 0;
  for (const s of head.all()) {
    const open = head.openChunk(s);
    if (open !== undefined && open.minT < end) head.cutOpen(s);
    if (++visited % YIELD_EVERY_SERIES === 0) {
      o.storeCuts();
      await yieldToEventLoop();
    }
  }
  o.storeCuts();

  // The series with chunks in the range and those chunks' [ref, minT, maxT].
  const picked: Array<{ labels: readonly string[]; refs: number[] }> = [];
  const symbols = new Set<string>();
  visited = 0;
  for (const s of head.all()) {
    const c = s.chunks;
    let n = 0;
    while (n < c.length && c[n + 1]! < end) n += 3;
    if (n > 0) {
      picked.push({ labels: s.labels, refs: c.slice(0, n) });
      for (const l of s.labels) symbols.add(l);
    }
    if (++visited % YIELD_EVERY_SERIES === 0) await yieldToEventLoop();
  }
  if (picked.length === 0) return undefined;
  const compare = head.index.hasSurrogates() ? compareLabels : compareLabelsNative;
  picked.sort((a, b) => compare(a.labels, b.labels));

  function* series(): Generator<BlockSeriesInput> {
    for (const p of picked) {
      const chunks = [];
      for (let i = 0; i < p.refs.length; i += 3) {
        chunks.push({ minT: p.refs[i + 1]!, maxT: p.refs[i + 2]!, encoding: ENC_XOR, data: files.read(p.refs[i]!) });
      }
      yield { labels: p.labels, chunks };
    }
  }
  return writeBlock({
    blocksDir: o.blocksDir,
    minTime: o.minTime,
    maxTime: end,
    symbols,
    series: series(),
    ...(o.thanosLabels !== undefined ? { thanos: { labels: o.thanosLabels, source: 'receive' } } : {}),
  });
}

/**
 * Lets go of the head's data older than `end` once a block holds it:
 * chunks before `end` leave their series' lists, series left with nothing
 * leave the head and the index, and head chunk files holding only older
 * chunks are deleted. Returns how many series left.
 */
export async function truncateHead(head: Head, files: ChunkSegments, end: number): Promise<number> {
  const drop: number[] = [];
  let visited = 0;
  for (const s of head.all()) {
    const c = s.chunks;
    if (c.length > 0 && c[1]! < end) {
      let n = 0;
      while (n < c.length && c[n + 1]! < end) n += 3;
      s.chunks = c.slice(n);
    }
    if (s.chunks.length === 0 && head.openChunk(s) === undefined) drop.push(s.id);
    if (++visited % YIELD_EVERY_SERIES === 0) await yieldToEventLoop();
  }
  // Appends went on during the yields: drop only series still empty now.
  const empty = drop.filter((id) => {
    const s = head.get(id);
    return s !== undefined && s.chunks.length === 0 && head.openChunk(s) === undefined;
  });
  head.drop(Uint32Array.from(empty));
  files.deleteEndingBefore(end);
  return empty.length;
}
