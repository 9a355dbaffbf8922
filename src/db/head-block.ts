import type { ChunkSegments } from '../chunks/chunk-segments.js';
import { writeBlock } from '../blocks/block-writer.js';
import type { BlockChunk, BlockMeta, BlockSeriesInput } from '../blocks/types.js';
import type { SampleColumns } from '../chunkenc/columns.js';
import { encodeChunks, withoutOverlaps } from '../chunkenc/merge-chunks.js';
import type { Head } from '../head/head.js';
import type { OooHead } from '../head/ooo-head.js';
import { compareLabels, compareLabelsNative, compareUtf8 } from '../encoding/utf8.js';
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
  /** The block range: out-of-order samples go to the block of their aligned range. Needed with `ooo`. */
  rangeMs?: number;
  /**
   * Out-of-order samples older than `end` (a cut, src/head/ooo-cuts.ts) and
   * their series' labels: those in the range being cut join its block,
   * merged with the in-order chunks; older ones (ranges already cut) make
   * one more block per range, overlapping the one written before, which
   * compaction merges.
   */
  ooo?: { store: OooHead; labels: ReadonlyMap<number, readonly string[]> };
}

/** Prometheus' compaction hint of blocks written from out-of-order data. */
const HINT_FROM_OUT_OF_ORDER = 'from-out-of-order';

interface GroupSeries {
  labels: readonly string[];
  /** In-order chunks in the head chunk files: [ref, minT, maxT] triples. */
  refs: number[];
  /** Out-of-order samples of the block's range. */
  ooo?: SampleColumns;
}

interface Group {
  /** The tenant (splitBy's value) and the range's end (exclusive): the block's maxTime. */
  key: string;
  maxTime: number;
  series: GroupSeries[];
  /** Series by id, to join their out-of-order samples. */
  byId: Map<number, GroupSeries>;
  symbols: Set<string>;
  minTime: number;
  /** Whether the group holds in-order chunks (else it is out-of-order data only). */
  inOrder: boolean;
}

/**
 * Writes the head's data older than `end` as blocks (level 1): one, or one
 * per value of `splitBy`; returns their metas (none when there was no
 * data). The caller has made sure no sample older than `end` is accepted
 * any more, so the data in the range only waits for its open chunks to be
 * cut: they are cut here, then every chunk before `end` is read from the
 * head chunk files (memory maps) and written as stored. A block's minTime
 * is its first sample's time. With `ooo`, a series' out-of-order samples
 * are merged with its in-order chunks: chunks overlapping nothing are
 * written as stored, overlapping ones merged and encoded again
 * (src/chunkenc/merge-chunks.ts). Blocks of out-of-order data alone carry
 * Prometheus' hint "from-out-of-order". Yields to the event loop as it
 * goes; the head keeps taking newer samples meanwhile.
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
  const groupOf = (labels: readonly string[], maxTime: number): Group => {
    const tenant = o.splitBy === undefined ? '' : (valueOf(labels, o.splitBy) ?? '');
    const id = `${maxTime}\u0000${tenant}`;
    let g = groups.get(id);
    if (g === undefined) {
      groups.set(id, (g = { key: tenant, maxTime, series: [], byId: new Map(), symbols: new Set(), minTime: Infinity, inOrder: false }));
    }
    return g;
  };
  for (const s of head.all()) {
    const c = s.chunks;
    let n = 0;
    while (n < c.length && c[n + 1]! < end) n += 3;
    if (n > 0) {
      const labels = head.labelsOf(s);
      const g = groupOf(labels, end);
      const p: GroupSeries = { labels, refs: c.slice(0, n) };
      g.series.push(p);
      if (o.ooo !== undefined) g.byId.set(s.id, p);
      for (const l of labels) g.symbols.add(l);
      if (c[1]! < g.minTime) g.minTime = c[1]!;
      g.inOrder = true;
    }
    const pause = y.tick();
    if (pause !== undefined) await pause;
  }
  if (o.ooo !== undefined) await groupOutOfOrder(o.ooo, end, o.rangeMs!, groupOf, y);

  const compare = head.index.hasSurrogates() ? compareLabels : compareLabelsNative;
  const metas: BlockMeta[] = [];
  const ordered = [...groups.values()].sort((a, b) => a.maxTime - b.maxTime || compareUtf8(a.key, b.key));
  for (const g of ordered) {
    await sortYielding(g.series, (a, b) => compare(a.labels, b.labels), y);
    const key = g.key;
    const labels = o.thanosLabels === undefined ? undefined : o.splitBy === undefined ? o.thanosLabels : { ...o.thanosLabels, [o.splitBy]: key };
    const meta = await writeBlock({
      blocksDir: o.blocksDir,
      minTime: g.minTime,
      maxTime: g.maxTime,
      symbols: g.symbols,
      series: storedSeries(g, files),
      ...(g.inOrder ? {} : { compaction: { level: 1, hints: [HINT_FROM_OUT_OF_ORDER] } }),
      ...(labels !== undefined ? { thanos: { labels, source: 'receive' } } : {}),
    });
    if (meta !== undefined) metas.push(meta);
  }
  return metas;
}

/** Adds the cut's out-of-order samples to the groups of their ranges (the range being cut ends at `end`). */
async function groupOutOfOrder(
  ooo: NonNullable<HeadBlockOptions['ooo']>, end: number, rangeMs: number,
  groupOf: (labels: readonly string[], maxTime: number) => Group, y: Yielder,
): Promise<void> {
  for (const id of ooo.store.ids()) {
    const labels = ooo.labels.get(id);
    if (labels === undefined) continue;
    const cols = ooo.store.columns(id, -Infinity, end - 1);
    for (let from = 0; from < cols.n;) {
      const rangeEnd = Math.min(end, Math.floor(cols.t[from]! / rangeMs) * rangeMs + rangeMs);
      let to = from;
      while (to < cols.n && cols.t[to]! < rangeEnd) to++;
      const g = groupOf(labels, rangeEnd);
      const part: SampleColumns = { t: cols.t.subarray(from, to), v: cols.v.subarray(2 * from, 2 * to), n: to - from };
      const p = g.byId.get(id);
      if (p !== undefined) {
        p.ooo = part;
      } else {
        const q: GroupSeries = { labels, refs: [], ooo: part };
        g.series.push(q);
        g.byId.set(id, q);
        for (const l of labels) g.symbols.add(l);
      }
      if (part.t[0]! < g.minTime) g.minTime = part.t[0]!;
      from = to;
    }
    const pause = y.tick();
    if (pause !== undefined) await pause;
  }
}

/**
 * A group's series with their chunks read from the head chunk files as
 * stored; where a series has out-of-order samples, those are merged in.
 */
function* storedSeries(g: Group, files: ChunkSegments): Generator<BlockSeriesInput> {
  for (const p of g.series) {
    const chunks: BlockChunk[] = [];
    for (let i = 0; i < p.refs.length; i += 3) {
      // Each chunk with the encoding its entry records (XOR or a native histogram encoding), as stored.
      const ref = p.refs[i]!;
      chunks.push({ minT: p.refs[i + 1]!, maxT: p.refs[i + 2]!, encoding: files.encodingOf(ref), data: files.read(ref) });
    }
    if (p.ooo === undefined) {
      yield { labels: p.labels, chunks };
      continue;
    }
    // The in-order chunks first: where a timestamp repeats (it cannot: the
    // engine refuses that), theirs would win.
    for (const c of encodeChunks(p.ooo.t, p.ooo.v, p.ooo.n)) chunks.push(c);
    yield { labels: p.labels, chunks: withoutOverlaps(chunks) };
  }
}

function valueOf(labels: readonly string[], name: string): string | undefined {
  for (let i = 0; i < labels.length; i += 2) if (labels[i] === name) return labels[i + 1];
  return undefined;
}
