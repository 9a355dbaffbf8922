import type { ChunkSegments } from '../chunks/chunk-segments.js';
import { writeBlock } from '../blocks/block-writer.js';
import { ENC_XOR, type BlockMeta, type BlockSeriesInput } from '../blocks/types.js';
import type { Head } from '../head/head.js';
import { compareLabels, compareLabelsNative } from '../index/utf8-order.js';
import { Yielder, sortYielding } from '../background/yielder.js';


/** Chunks cut before they are handed to the chunk files: a few milliseconds of work. */
const CUTS_PER_STORE = 1024;

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
  const y = new Yielder();
  let cuts = 0;
  for (const s of head.all()) {
    const open = head.openChunk(s);
    if (open !== undefined && open.minT < end && head.cutOpen(s) && ++cuts % CUTS_PER_STORE === 0) o.storeCuts();
    const pause = y.tick();
    if (pause !== undefined) await pause;
  }
  o.storeCuts();

  // The series with chunks in the range and those chunks' [ref, minT, maxT].
  const picked: Array<{ labels: readonly string[]; refs: number[] }> = [];
  const symbols = new Set<string>();
  for (const s of head.all()) {
    const c = s.chunks;
    let n = 0;
    while (n < c.length && c[n + 1]! < end) n += 3;
    if (n > 0) {
      picked.push({ labels: s.labels, refs: c.slice(0, n) });
      for (const l of s.labels) symbols.add(l);
    }
    const pause = y.tick();
    if (pause !== undefined) await pause;
  }
  if (picked.length === 0) return undefined;
  const compare = head.index.hasSurrogates() ? compareLabels : compareLabelsNative;
  await sortYielding(picked, (a, b) => compare(a.labels, b.labels), y);

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
