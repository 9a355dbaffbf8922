/**
 * The engine's half of an out-of-order append: the head lists the samples
 * that are out of order within the window (Head.oooList); each is checked
 * against everything the store holds for its series at that timestamp
 * (the out-of-order head, the part of it being written into blocks, the
 * in-order chunks, and the blocks where they may hold it) and kept in the
 * out-of-order head unless the timestamp is taken: the same value bits are
 * ignored, other bits are a conflict, as for in-order samples. At most one
 * value per timestamp is ever stored.
 *
 * This path seeks through chunks (in WebAssembly, no copy of their
 * samples) and allocates; it runs only for out-of-order samples, never for
 * samples in order.
 */
import type { ChunkSegments } from '../chunks/chunk-segments.js';
import { ENCODING_XOR, XorIterator, threadCodec } from '../chunkenc/index.js';
import { viewAppendBatch } from '../record/append-batch.js';
import type { Head, HeadAppendStats } from './head.js';
import { OOO_ENTRY } from '../wasm/layout.js';
import { INSERT_ADDED, INSERT_SAME, type OooHead } from './ooo-head.js';
import type { Series } from './series.js';
import { MatchType, type LabelMatcher } from '../index/types.js';
import { ByteArena } from '../query/byte-arena.js';
import type { SeriesReader } from '../query/types.js';
import type { SamplesRecordWriter } from '../record/ooo-records.js';
import { sameLabels } from '../encoding/utf8.js';

const TWO_32 = 4294967296;

/** What an out-of-order append checks against. */
export interface OooAppendContext {
  head: Head;
  files: ChunkSegments;
  /** Out-of-order samples being written into blocks: still held, until those blocks are read instead. */
  cutting: OooHead | undefined;
  /** The blocks, and where they end: only older samples may be in one. */
  blocks: readonly SeriesReader[];
  blocksEnd: number;
}

/**
 * Decides on the out-of-order samples of `batch` listed in `list` (triples
 * of series id, batch entry, sample index, in batch order): those kept go
 * to the out-of-order head and to `record`; `stats` counts them as
 * appended, ignored or conflicts. The list's entries count from
 * `entryBase` (an append of a range of the batch).
 */
export function appendOutOfOrder(ctx: OooAppendContext, batch: ArrayBuffer, list: Uint32Array, stats: HeadAppendStats, record: SamplesRecordWriter, entryBase = 0): void {
  const v = viewAppendBatch(batch);
  const tw = new Int32Array(batch, v.timestampsAt, v.samples * 2);
  const vw = new Uint32Array(batch, v.valuesAt, v.samples * 2);
  const held = new Uint32Array(2);
  const lookups = new Lookups(ctx);
  const step = OOO_ENTRY.size >>> 2;
  for (let i = 0; i < list.length; i += step) {
    const id = list[i + (OOO_ENTRY.id >>> 2)]!;
    const entry = entryBase + list[i + (OOO_ENTRY.entry >>> 2)]!;
    const k = list[i + (OOO_ENTRY.sample >>> 2)]!;
    const s = ctx.head.get(id);
    if (s === undefined) continue;
    const t = tw[2 * k + 1]! * TWO_32 + (tw[2 * k]! >>> 0);
    const lo = vw[2 * k]!;
    const hi = vw[2 * k + 1]!;
    let result: number;
    if (ctx.cutting?.lookup(id, t, held) === true || lookups.inOrder(s, t, held) || lookups.inBlocks(s, t, held)) {
      result = held[0] === lo && held[1] === hi ? INSERT_SAME : -1;
    } else {
      result = ctx.head.ooo.insert(id, t, lo, hi);
    }
    if (result === INSERT_ADDED) {
      stats.appended++;
      stats.oooAppended++;
      record.add(id, t, lo, hi);
    } else if (result === INSERT_SAME) {
      stats.ignored++;
    } else {
      stats.conflict++;
      const first = stats.first.conflict;
      if (first === undefined || entry < first.entry) stats.first.conflict = { entry, t };
    }
  }
}

/** One iterator for the lookups of this thread: seeks decode in WebAssembly, no arrays allocated. */
let iterator: XorIterator | undefined;
const valueBits = new Float64Array(1);
const valueWords = new Uint32Array(valueBits.buffer);

/** Value lookups in the in-order chunks and the blocks (a block's series looked up once per append). */
class Lookups {
  private readonly blockChunks = new Map<string, ReturnType<SeriesReader['chunks']>>();
  private readonly arena = new ByteArena();

  constructor(private readonly ctx: OooAppendContext) {}

  /** Whether the series' in-order chunks hold `t`; its value bits go to `out`. */
  inOrder(s: Series, t: number, out: Uint32Array): boolean {
    const head = this.ctx.head;
    // Float chunks only: a histogram chunk holds no float value (a float at a histogram's time is not that sample again).
    const open = head.openChunkHolding(s, t);
    if (open === null) return false;
    if (open !== undefined) return find(open, t, out);
    const c = s.chunks;
    for (let i = 0; i < c.length; i += 3) {
      if (c[i + 2]! < t) continue;
      if (c[i + 1]! > t) return false;
      return this.ctx.files.encodingOf(c[i]!) === 1 && find(this.ctx.files.read(c[i]!), t, out);
    }
    return false;
  }

  /** Whether a block holds `t` for the series; its value bits go to `out`. */
  inBlocks(s: Series, t: number, out: Uint32Array): boolean {
    if (!(t < this.ctx.blocksEnd)) return false;
    const blocks = this.ctx.blocks;
    for (let b = 0; b < blocks.length; b++) {
      const r = blocks[b]!;
      if (t < r.minTime || t > r.maxTime) continue;
      const key = `${b}:${s.id}`;
      let chunks = this.blockChunks.get(key);
      if (chunks === undefined) {
        chunks = [];
        const labels = this.ctx.head.labelsOf(s);
        for (const found of r.series(exactly(labels), r.minTime, r.maxTime)) {
          if (sameLabels(found.labels, labels)) chunks = r.chunks(found.handle, r.minTime, r.maxTime, this.arena);
        }
        this.blockChunks.set(key, chunks);
      }
      for (const c of chunks) {
        if (c.minT <= t && t <= c.maxT && (c.encoding ?? ENCODING_XOR) === ENCODING_XOR && find(c.data, t, out)) return true;
      }
    }
    return false;
  }
}

/** Whether XOR chunk `data` holds time `t`; if so its value bits go to `out`. */
function find(data: Uint8Array, t: number, out: Uint32Array): boolean {
  iterator ??= new XorIterator(threadCodec());
  if (!iterator.reset(data).seek(BigInt(t)) || iterator.atT() !== t) return false;
  iterator.atValueBits(valueBits, 0);
  out[0] = valueWords[0]!;
  out[1] = valueWords[1]!;
  return true;
}

/** Equality matchers for every label (a series with more labels matches them too: compare after). */
function exactly(labels: readonly string[]): LabelMatcher[] {
  const out: LabelMatcher[] = [];
  for (let i = 0; i < labels.length; i += 2) out.push({ type: MatchType.EQ, name: labels[i]!, value: labels[i + 1]! });
  return out;
}
