import type { ChunkSegments } from '../chunks/chunk-segments.js';
import { writeBlock } from '../blocks/block-writer.js';
import { ENC_XOR, type BlockMeta, type BlockSeriesInput } from '../blocks/types.js';
import type { Head } from '../head/head.js';
import { compareLabels, compareLabelsNative, compareUtf8 } from '../index/utf8-order.js';
import { Yielder, sortYielding } from '../background/yielder.js';

/** Chunks cut before they are handed to the chunk files: a few milliseconds of work. */
const CUTS_PER_STORE = 1024;

export interface HeadBlockOptions {
  head: Head;
  files: ChunkSegments;
  /** Hands the chunks just cut to the chunk files (the engine's storeCuts). */
  storeCuts: () => void;
  blocksDir: string;
  /** The range to cut: data before `end` (exclusive, a multiple of the block range). */
  end: number;
  /** The "thanos" section's labels (the external labels); absent: no Thanos section. */
  thanosLabels?: Record<string, string>;
  /**
   * One block per value of this label (the tenant label), the value added
   * to the block's Thanos labels, as Thanos Receive keeps one TSDB per
   * tenant: what a shipper uploads for Thanos' compactor and store gateway.
   */
  splitBy?: string;
}

interface Group {
  series: Array<{ labels: readonly string[]; refs: number[] }>;
  symbols: Set<string>;
  minTime: number;
}

/**
 * Writes the head's data older than `end` as blocks (level 1): one, or one
 * per value of `splitBy`; returns their metas (none when there was no
 * data). The caller has made sure no sample older than `end` is accepted
 * any more, so the data in the range only waits for its open chunks to be
 * cut: they are cut here, then every chunk before `end` is read from the
 * head chunk files (memory maps) and written as stored. A block's minTime
 * is its first sample's time. Yields to the event loop as it goes; the
 * head keeps taking newer samples meanwhile.
 */
export async function writeHeadBlocks(o: HeadBlockOptions): Promise<BlockMeta[]> {
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

  // The series with chunks in the range and those chunks' [ref, minT, maxT], by group.
  const groups = new Map<string, Group>();
  for (const s of head.all()) {
    const c = s.chunks;
    let n = 0;
    while (n < c.length && c[n + 1]! < end) n += 3;
    if (n > 0) {
      const key = o.splitBy === undefined ? '' : (valueOf(s.labels, o.splitBy) ?? '');
      let g = groups.get(key);
      if (g === undefined) groups.set(key, (g = { series: [], symbols: new Set(), minTime: Infinity }));
      g.series.push({ labels: s.labels, refs: c.slice(0, n) });
      for (const l of s.labels) g.symbols.add(l);
      if (c[1]! < g.minTime) g.minTime = c[1]!;
    }
    const pause = y.tick();
    if (pause !== undefined) await pause;
  }
  const compare = head.index.hasSurrogates() ? compareLabels : compareLabelsNative;
  const metas: BlockMeta[] = [];
  for (const [key, g] of [...groups].sort(([a], [b]) => compareUtf8(a, b))) {
    await sortYielding(g.series, (a, b) => compare(a.labels, b.labels), y);
    const labels = o.thanosLabels === undefined ? undefined : o.splitBy === undefined ? o.thanosLabels : { ...o.thanosLabels, [o.splitBy]: key };
    const meta = await writeBlock({
      blocksDir: o.blocksDir,
      minTime: g.minTime,
      maxTime: end,
      symbols: g.symbols,
      series: storedSeries(g, files),
      ...(labels !== undefined ? { thanos: { labels, source: 'receive' } } : {}),
    });
    if (meta !== undefined) metas.push(meta);
  }
  return metas;
}

/** A group's series with their chunks read from the head chunk files as stored. */
function* storedSeries(g: Group, files: ChunkSegments): Generator<BlockSeriesInput> {
  for (const p of g.series) {
    const chunks = [];
    for (let i = 0; i < p.refs.length; i += 3) {
      chunks.push({ minT: p.refs[i + 1]!, maxT: p.refs[i + 2]!, encoding: ENC_XOR, data: files.read(p.refs[i]!) });
    }
    yield { labels: p.labels, chunks };
  }
}

function valueOf(labels: readonly string[], name: string): string | undefined {
  for (let i = 0; i < labels.length; i += 2) if (labels[i] === name) return labels[i + 1];
  return undefined;
}
