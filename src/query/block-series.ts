import type { BlockReader } from '../blocks/block-reader.js';
import { ENCODING_XOR } from '../chunkenc/encoding.js';
import type { ByteArena } from './byte-arena.js';
import { compareUtf8, type LabelMatcher } from '../index/index.js';
import { selectPostings } from '../index/select.js';
import { PostingsAlgebra } from '../index/set-ops.js';
import { Lru } from '../index/lru.js';
import { BlockPostingsIndex } from './block-postings.js';
import type { ReaderSeries, SeriesReader, StoredChunk } from './types.js';

let algebra: PostingsAlgebra | undefined;
/** Value lists kept per block. */
const VALUE_LISTS_KEPT = 16;

/**
 * One block as a reader: series selected through its postings (same
 * matcher semantics and fast paths as the head), labels decoded from its
 * symbol table, chunks as views of its chunk files. Handles are the
 * series' chunk metas in the range, [minT, maxT, ref, ...].
 *
 * Label names and values come from the index when the range holds the
 * whole block; otherwise only from series with a chunk in the range.
 */
export class BlockSeriesReader implements SeriesReader {
  private readonly postings: BlockPostingsIndex;
  private readonly scratch = { labels: [] as string[], chunks: [] as number[] };
  /** A block never changes: the values of the names asked for are kept (Grafana asks the same ones every refresh). */
  private readonly values = new Lru<string, readonly string[]>(VALUE_LISTS_KEPT);
  private seriesCount = -1;

  constructor(readonly block: BlockReader) {
    this.postings = new BlockPostingsIndex(block.index);
  }

  get minTime(): number {
    return this.block.minTime;
  }

  /** Inclusive: the block's meta maxTime is exclusive. */
  get maxTime(): number {
    return this.block.maxTime - 1;
  }

  hasSurrogates(): boolean {
    return this.block.index.hasAstralSymbols();
  }

  series(matchers: readonly LabelMatcher[], minT: number, maxT: number): ReaderSeries[] {
    if (!this.overlaps(minT, maxT)) return [];
    const refs = this.refs(matchers);
    const out: ReaderSeries[] = [];
    const scratch = this.scratch;
    const index = this.block.index;
    const whole = minT <= this.minTime && maxT >= this.maxTime;
    for (let i = 0; i < refs.length; i++) {
      index.series(refs[i]!, scratch);
      const c = scratch.chunks;
      let kept: number[];
      if (whole) {
        kept = c.slice();
      } else {
        kept = [];
        for (let k = 0; k < c.length; k += 3) if (c[k + 1]! >= minT && c[k]! <= maxT) kept.push(c[k]!, c[k + 1]!, c[k + 2]!);
      }
      if (kept.length > 0) out.push({ labels: scratch.labels.slice(), reader: this, handle: kept });
    }
    return out;
  }

  chunks(handle: unknown, minT: number, maxT: number, _arena: ByteArena): StoredChunk[] {
    const metas = handle as number[];
    const out: StoredChunk[] = [];
    const files = this.block.chunks;
    for (let k = 0; k < metas.length; k += 3) {
      const cMin = metas[k]!;
      const cMax = metas[k + 1]!;
      if (cMax < minT || cMin > maxT) continue;
      const c = files.chunk(metas[k + 2]!);
      out.push(c.encoding === ENCODING_XOR ? { minT: cMin, maxT: cMax, data: c.data } : { minT: cMin, maxT: cMax, encoding: c.encoding, data: c.data });
    }
    return out;
  }

  labelNames(matchers: readonly LabelMatcher[], minT: number, maxT: number): string[] {
    if (!this.overlaps(minT, maxT)) return [];
    const index = this.block.index;
    const whole = this.covers(minT, maxT);
    if (matchers.length === 0) {
      if (whole) return index.labelNames();
      return index.labelNames().filter((name) => index.labelValues(name).some((v) => this.anyInRange(index.postings(name, v), minT, maxT)));
    }
    const refs = this.refs(matchers);
    if (whole && this.isEverySeries(refs)) return index.labelNames();
    const names = new Set<string>();
    const scratch = this.scratch;
    for (const ref of refs) {
      index.series(ref, scratch);
      if (!whole && !chunksOverlap(scratch.chunks, minT, maxT)) continue;
      for (let i = 0; i < scratch.labels.length; i += 2) names.add(scratch.labels[i]!);
    }
    return [...names].sort(compareUtf8);
  }

  labelValues(name: string, matchers: readonly LabelMatcher[], minT: number, maxT: number): readonly string[] {
    if (!this.overlaps(minT, maxT)) return [];
    const index = this.block.index;
    const whole = this.covers(minT, maxT);
    if (matchers.length === 0) {
      let all = this.values.get(name);
      if (all === undefined) this.values.set(name, (all = Object.freeze(index.labelValues(name))));
      if (whole) return all;
      return all.filter((v) => this.anyInRange(index.postings(name, v), minT, maxT));
    }
    const refs = this.refs(matchers);
    if (whole && this.isEverySeries(refs)) return this.labelValues(name, [], minT, maxT);
    const values = new Set<string>();
    const scratch = this.scratch;
    for (const ref of refs) {
      index.series(ref, scratch);
      if (!whole && !chunksOverlap(scratch.chunks, minT, maxT)) continue;
      const l = scratch.labels;
      for (let i = 0; i < l.length; i += 2) {
        if (l[i] === name) {
          values.add(l[i + 1]!);
          break;
        }
      }
    }
    return [...values].sort(compareUtf8);
  }

  /** Whether a series among `refs` has a chunk in the range; stops at the first. */
  private anyInRange(refs: Uint32Array, minT: number, maxT: number): boolean {
    const scratch = this.scratch;
    for (let i = 0; i < refs.length; i++) {
      this.block.index.series(refs[i]!, scratch);
      if (chunksOverlap(scratch.chunks, minT, maxT)) return true;
    }
    return false;
  }

  /** Whether the range holds every sample of the block. */
  private covers(minT: number, maxT: number): boolean {
    return minT <= this.minTime && maxT >= this.maxTime;
  }

  /** Whether `refs` (a selection, ascending, no repeats) is every series of the block, as the tenant label of a one-tenant block is. */
  private isEverySeries(refs: Uint32Array): boolean {
    if (this.seriesCount < 0) this.seriesCount = this.block.index.allPostings().length;
    return refs.length === this.seriesCount;
  }

  /** Series refs matching every matcher (all series for none), ascending: label order. */
  private refs(matchers: readonly LabelMatcher[]): Uint32Array {
    if (matchers.length === 0) return this.block.index.allPostings();
    algebra ??= new PostingsAlgebra();
    return selectPostings(this.postings.reader(), matchers, algebra);
  }

  private overlaps(minT: number, maxT: number): boolean {
    return minT <= maxT && this.maxTime >= minT && this.minTime <= maxT;
  }
}

/** Whether chunk metas [minT, maxT, ref, ...] hold one overlapping [minT, maxT]. */
function chunksOverlap(c: readonly number[], minT: number, maxT: number): boolean {
  for (let k = 0; k < c.length; k += 3) if (c[k + 1]! >= minT && c[k]! <= maxT) return true;
  return false;
}
