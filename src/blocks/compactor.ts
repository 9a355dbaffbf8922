import { Yielder } from '../background/yielder.js';
import { compareLabels } from '../encoding/utf8.js';
import { withoutOverlaps } from '../chunkenc/merge-chunks.js';
import type { BlockReader } from './block-reader.js';
import type { BlockChunk, BlockMeta, BlockSeriesInput } from './types.js';

const DAY_MS = 86_400_000;
/** Prometheus' cap on a compacted block's range. */
const MAX_BLOCK_RANGE_MS = 31 * DAY_MS;

/**
 * Prometheus' compaction ranges: the block range times 3^i (2 h, 6 h, 18 h,
 * 54 h ...), ten steps, none longer than 10 % of the retention or 31 days.
 */
export function compactionRanges(rangeMs: number, retentionMs: number): number[] {
  const max = Math.min(retentionMs / 10, MAX_BLOCK_RANGE_MS);
  const out: number[] = [];
  for (let r = rangeMs, i = 0; i < 10; i++, r *= 3) {
    if (i > 0 && r > max) break;
    out.push(r);
  }
  return out;
}

/**
 * The blocks to compact next (ULIDs, oldest first), or none: Prometheus'
 * leveled planner, within each group of blocks with the same external
 * labels. Overlapping blocks first (merged vertically); otherwise,
 * leaving out the newest block, the first group of blocks that fills one of
 * the larger ranges or lies wholly before the newest block.
 */
export function planCompaction(metas: readonly BlockMeta[], ranges: readonly number[], skip: ReadonlySet<string> = new Set()): string[] {
  // As Thanos' compactor: blocks of different external labels (tenants) are never merged.
  const groups = new Map<string, BlockMeta[]>();
  for (const m of metas) {
    if (skip.has(m.ulid)) continue;
    const key = groupKey(m);
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = []));
    g.push(m);
  }
  for (const g of groups.values()) {
    const plan = planGroup(g, ranges);
    if (plan.length > 0) return plan;
  }
  return [];
}

/** A block's external labels (and downsampling resolution), as Thanos groups blocks. */
function groupKey(m: BlockMeta): string {
  const labels = m.thanos?.labels ?? {};
  return JSON.stringify([m.thanos?.downsample.resolution ?? 0, Object.keys(labels).sort().map((k) => [k, labels[k]])]);
}

function planGroup(metas: BlockMeta[], ranges: readonly number[]): string[] {
  const ds = metas.sort((a, b) => a.minTime - b.minTime);
  if (ds.length < 2) return [];
  const overlapping = overlappingRun(ds);
  if (overlapping.length > 0) return overlapping;
  const older = ds.slice(0, -1);
  if (ranges.length < 2 || older.length < 1) return [];
  const highTime = older[older.length - 1]!.minTime;
  for (const range of ranges.slice(1)) {
    for (const group of splitByRange(older, range)) {
      if (group.some((m) => m.compaction.failed === true)) continue;
      const mint = group[0]!.minTime;
      const maxt = group[group.length - 1]!.maxTime;
      if ((maxt - mint === range || maxt <= highTime) && group.length > 1) return group.map((m) => m.ulid);
    }
  }
  return [];
}

/** The first run of blocks overlapping in time, or none. */
function overlappingRun(ds: readonly BlockMeta[]): string[] {
  const out: string[] = [];
  let maxt = ds[0]!.maxTime;
  for (let i = 1; i < ds.length; i++) {
    const d = ds[i]!;
    if (d.minTime < maxt) {
      if (out.length === 0) out.push(ds[i - 1]!.ulid);
      out.push(d.ulid);
    } else if (out.length > 0) {
      break;
    }
    if (d.maxTime > maxt) maxt = d.maxTime;
  }
  return out;
}

/** Groups consecutive blocks that fall in one aligned range of `range`; blocks that do not fit any are skipped. */
function splitByRange(ds: readonly BlockMeta[], range: number): BlockMeta[][] {
  const out: BlockMeta[][] = [];
  for (let i = 0; i < ds.length;) {
    const m = ds[i]!;
    const t0 = Math.floor(m.minTime / range) * range;
    if (m.maxTime > t0 + range) {
      i++;
      continue;
    }
    const group: BlockMeta[] = [];
    for (; i < ds.length && ds[i]!.maxTime <= t0 + range; i++) group.push(ds[i]!);
    if (group.length > 0) out.push(group);
  }
  return out;
}

/** The meta fields of the block compacted from `parents` (Prometheus' CompactBlockMetas). */
export function compactedMeta(parents: readonly BlockMeta[]): { minTime: number; maxTime: number; level: number; sources: string[]; parents: Array<{ ulid: string; minTime: number; maxTime: number }> } {
  const sources = new Set<string>();
  let level = 0;
  let minTime = Infinity;
  let maxTime = -Infinity;
  for (const p of parents) {
    minTime = Math.min(minTime, p.minTime);
    maxTime = Math.max(maxTime, p.maxTime);
    level = Math.max(level, p.compaction.level);
    for (const s of p.compaction.sources) sources.add(s);
  }
  return {
    minTime, maxTime, level: level + 1, sources: [...sources].sort(),
    parents: parents.map((p) => ({ ulid: p.ulid, minTime: p.minTime, maxTime: p.maxTime })),
  };
}

/** Every label name and value of the blocks (the symbols of the merged index), in the background. */
export async function* symbolsOf(blocks: readonly BlockReader[]): AsyncGenerator<string> {
  const y = new Yielder();
  for (const b of blocks) {
    for (const name of b.index.labelNames()) {
      yield name;
      for (const v of b.index.labelValues(name)) {
        yield v;
        const pause = y.tick();
        if (pause !== undefined) await pause;
      }
    }
  }
}

/** A block's series in label order, labels and chunk metas decoded one at a time. */
class SeriesCursor {
  private readonly refs: Uint32Array;
  private i = 0;
  labels: string[] = [];
  metas: number[] = [];

  constructor(readonly block: BlockReader) {
    this.refs = block.index.allPostings();
  }

  next(): boolean {
    if (this.i >= this.refs.length) return false;
    const out = { labels: [] as string[], chunks: [] as number[] };
    this.block.index.series(this.refs[this.i++]!, out);
    this.labels = out.labels;
    this.metas = out.chunks;
    return true;
  }
}

/**
 * The series of several blocks merged in label order, each with the chunks
 * of every block holding it, as stored; where chunks overlap in time (the
 * blocks overlap: out-of-order data, src/chunkenc/merge-chunks.ts), those
 * chunks are decoded, merged (a timestamp held twice keeps the sample of
 * the chunk that starts first, the older block's on a tie) and encoded
 * again in chunks of up to 120 samples, as Prometheus' vertical
 * compaction does: XOR chunks for floats, HISTOGRAM and FLOAT_HISTOGRAM
 * chunks for native histograms (a new chunk where the type changes, and
 * where Prometheus' histogram appender cuts). Chunks of every encoding
 * that overlap nothing are written as stored, with their encoding.
 */
export function* mergeBlockSeries(blocks: readonly BlockReader[]): Generator<BlockSeriesInput> {
  const cursors = blocks.map((b) => new SeriesCursor(b)).filter((c) => c.next());
  while (cursors.length > 0) {
    let min = cursors[0]!;
    for (const c of cursors) if (compareLabels(c.labels, min.labels) < 0) min = c;
    const labels = min.labels;
    const chunks: BlockChunk[] = [];
    for (let k = 0; k < cursors.length; k++) {
      const c = cursors[k]!;
      if (c !== min && compareLabels(c.labels, labels) !== 0) continue;
      for (let j = 0; j < c.metas.length; j += 3) {
        const ch = c.block.chunks.chunk(c.metas[j + 2]!);
        chunks.push({ minT: c.metas[j]!, maxT: c.metas[j + 1]!, encoding: ch.encoding, data: ch.data });
      }
    }
    for (let k = cursors.length - 1; k >= 0; k--) {
      const c = cursors[k]!;
      if (c === min || compareLabels(c.labels, labels) === 0) {
        if (!c.next()) cursors.splice(k, 1);
      }
    }
    yield { labels, chunks: withoutOverlaps(chunks) };
  }
}
