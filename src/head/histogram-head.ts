import { ENCODING_FLOAT_HISTOGRAM, type HistogramEncoding } from '../chunkenc/encoding.js';
import type { FloatHistogram, Histogram } from '../chunkenc/histogram/types.js';
import type { ByteArena } from '../query/byte-arena.js';
import { HistogramChunker, type ClosedHistogramChunk } from '../chunkenc/histogram/chunker.js';
import { PackedHistogram } from '../chunkenc/histogram/packed.js';
import { bodyIsFloat, decodeBody, readPacked } from '../record/histogram-body.js';

/** A histogram chunk the head cut; `data` belongs to the receiver. */
export interface HistogramCut {
  id: number;
  minT: number;
  maxT: number;
  /** 2 integer histograms, 3 float histograms. */
  encoding: number;
  data: Uint8Array;
}

/** A series' histogram state (only series that ever held a histogram have one). */
interface HistogramSeries {
  /** The series' chunker: its open chunk, and what it remembers of the chunk before (counter-reset headers). */
  chunker: HistogramChunker;
  /** WAL segment of the open chunk's first sample. */
  walSeg: number;
  /** The newest histogram appended or restored, its kind and time (for duplicates); undefined when none or when the fast path took it (the chunker holds it then). */
  last: Histogram | FloatHistogram | undefined;
  lastFloat: boolean;
  lastT: number;
}

/** An open histogram chunk's span and size. */
export interface OpenHistogramChunk {
  minT: number;
  maxT: number;
  count: number;
  walSeg: number;
  encoding: number;
}

/**
 * The head's native histogram state, beside the float state in module
 * memory (assembly/head.ts): per series that holds histograms, the open
 * histogram chunk (the codec's chunker, src/chunkenc/histogram/chunker.ts, which
 * applies Prometheus 2.42's append, recode and cut rules) and the newest
 * histogram. Chunks cut wait in `cuts`, in cut order, for the chunk files
 * (src/head/head-chunks.ts storeCuts).
 *
 * Invariant kept with the float state (see histogram-append.ts): a series
 * has at most one open chunk of each kind, and when both are open the
 * histogram one is the older (a float after a histogram starts an XOR
 * chunk after it; a histogram after floats cuts the XOR chunk first). The
 * older is always cut first, so a series' closed chunks follow each other
 * in time, and every open sample is newer than every closed one (what WAL
 * replay relies on when it skips samples at or before the newest).
 *
 * One writer: the thread that owns the head.
 */
export class HistogramHead {
  private readonly bySeries = new Map<number, HistogramSeries>();
  /** Chunks cut and not yet handed to the chunk files, in cut order. */
  readonly cuts: HistogramCut[] = [];
  /** appendBody's scratch: one sample read from its body, reused. */
  private readonly packed = new PackedHistogram();

  constructor(private readonly opts: { chunkRangeMs: number; samplesPerChunk: number }) {}

  /** Series with histogram state. */
  get seriesCount(): number {
    return this.bySeries.size;
  }

  /** Whether the series has an open histogram chunk (a map lookup; false at once while no series holds histograms). */
  hasOpen(id: number): boolean {
    if (this.bySeries.size === 0) return false;
    const o = this.bySeries.get(id)?.chunker.open;
    return o !== undefined && o.count > 0;
  }

  /** The open histogram chunk of a series, undefined when there is none. */
  open(id: number): OpenHistogramChunk | undefined {
    if (this.bySeries.size === 0) return undefined;
    const h = this.bySeries.get(id);
    const o = h?.chunker.open;
    // An empty open chunk (an append that failed after a cut) holds nothing.
    if (o === undefined || o.count === 0) return undefined;
    return { minT: o.minT, maxT: o.maxT, count: o.count, walSeg: h!.walSeg, encoding: o.encoding };
  }

  /**
   * The open chunk as a stored chunk, its bytes a copy (into `arena` when
   * given), when it has samples overlapping [minT, maxT].
   */
  openChunkIn(id: number, minT: number, maxT: number, arena?: ByteArena): { minT: number; maxT: number; encoding: number; data: Uint8Array } | undefined {
    if (this.bySeries.size === 0) return undefined;
    const o = this.bySeries.get(id)?.chunker.open;
    if (o === undefined || o.count === 0 || o.maxT < minT || o.minT > maxT) return undefined;
    const bytes = o.bytes();
    return { minT: o.minT, maxT: o.maxT, encoding: o.encoding, data: arena === undefined ? bytes.slice() : arena.copy(bytes, 0, bytes.length) };
  }

  /** Time of the series' newest histogram, -Infinity when it holds none. */
  lastT(id: number): number {
    if (this.bySeries.size === 0) return -Infinity;
    return this.bySeries.get(id)?.lastT ?? -Infinity;
  }

  /**
   * Floats came after the series' histograms: its next histogram chunk has
   * no histogram chunk before it to be compared with (its open chunk, if
   * any, was cut).
   */
  forgetPrevious(id: number): void {
    this.bySeries.get(id)?.chunker.forget();
  }

  /** The newest histogram held for a series when it is at `t` (for duplicates), else undefined. */
  lastAt(id: number, t: number): { h: Histogram | FloatHistogram; float: boolean } | undefined {
    const h = this.bySeries.get(id);
    if (h === undefined || h.lastT !== t) return undefined;
    // The fast path kept no object: the chunker's copy of the sample is it.
    h.last ??= h.chunker.lastHistogram();
    if (h.last === undefined) return undefined;
    return { h: h.last, float: h.lastFloat };
  }

  /**
   * Appends a histogram to series `id`'s open chunk (the chunker cuts it
   * first where Prometheus would: a change of kind, a counter reset, a
   * layout the chunk cannot take, the chunk's time or size), the caller
   * having checked the sample rules. `walSeg` is the WAL segment the
   * sample is logged in. Chunks cut join `cuts`.
   */
  append(id: number, t: number, h: Histogram | FloatHistogram, float: boolean, walSeg: number): void {
    const s = this.state(id);
    const r = float ? s.chunker.appendFloatHistogram(t, h) : s.chunker.appendHistogram(t, h as Histogram);
    // The head applied the sample rules: a sample the chunker does not take is a fault of ours.
    if (!r.appended) throw new Error(`histogram chunker refused series ${id}'s sample at ${t} as not newer than its chunks`);
    if (r.closed !== undefined) this.cuts.push(cutOf(id, r.closed));
    // This sample began the open chunk: the chunk's first sample is logged in this segment.
    if (s.chunker.open!.count === 1) s.walSeg = walSeg;
    s.last = h;
    s.lastFloat = float;
    s.lastT = t;
  }

  /**
   * As append for the sample whose body (src/record/histogram-body.ts) is
   * [at, end) of `bodies`, `newest` being the series' newest time (float
   * or histogram). Returns false, changing nothing, when floats came after
   * the series' last histogram (`newest` is later than it): the caller
   * cuts and starts afresh (append). The common case (the open chunk of
   * its kind takes it as it is: no cut, recode or reset) goes from the
   * body straight to the chunk, no histogram object made; the chunker's
   * copy of the sample stands for it (lastAt). Every other sample is decoded
   * and appended as append does. One map lookup a sample.
   *
   * @throws MalformedBodyError when the body does not decode.
   */
  appendBody(id: number, t: number, bodies: Uint8Array, at: number, end: number, walSeg: number, newest: number | undefined): boolean {
    // A series without histogram state has no open chunk: the object path creates it.
    const s = this.bySeries.get(id);
    if (newest !== undefined && newest > (s === undefined ? -Infinity : s.lastT)) return false;
    if (s !== undefined && readPacked(bodies, at, end, this.packed) && s.chunker.appendPacked(t, this.packed) !== undefined) {
      // Never the first sample of a chunk (no cut, no walSeg to set), nothing closed.
      s.last = undefined;
      s.lastFloat = this.packed.float;
      s.lastT = t;
      return true;
    }
    const float = bodyIsFloat(bodies, at);
    this.append(id, t, decodeBody(bodies, at, end), float, walSeg);
    return true;
  }

  /** Cuts series `id`'s open histogram chunk into `cuts`; true if there was one. */
  cutOpen(id: number): boolean {
    const s = this.bySeries.get(id);
    const c = s?.chunker.cut();
    if (c === undefined) return false;
    this.cuts.push(cutOf(id, c));
    return true;
  }

  /** Drops series `id`'s open histogram chunk without keeping it (retention). */
  dropOpen(id: number): void {
    this.bySeries.get(id)?.chunker.drop();
  }

  /** Forgets series `id` (it left the head). */
  drop(id: number): void {
    this.bySeries.delete(id);
  }

  /**
   * After a restart: the newest histogram of a series whose data is in the
   * chunk files only (the last sample of its last chunk, `chunk`, of
   * `encoding` 2 or 3), so that the sample rules hold and the chunker
   * decides the next chunk's counter-reset header as it did before.
   */
  restore(id: number, t: number, h: Histogram | FloatHistogram, encoding: HistogramEncoding, chunk: Uint8Array): void {
    const s = this.state(id);
    s.chunker.resumeAfter(encoding, chunk);
    s.last = h;
    s.lastFloat = encoding === ENCODING_FLOAT_HISTOGRAM;
    s.lastT = t;
  }

  private state(id: number): HistogramSeries {
    let s = this.bySeries.get(id);
    if (s === undefined) {
      const chunker = new HistogramChunker({ chunkRange: this.opts.chunkRangeMs, samplesPerChunk: this.opts.samplesPerChunk });
      s = { chunker, walSeg: 0, last: undefined, lastFloat: false, lastT: -Infinity };
      this.bySeries.set(id, s);
    }
    return s;
  }

  /** Hands the chunks cut so far to `store`, in cut order, and forgets them. */
  drainCuts(store: (c: HistogramCut) => void): void {
    const cuts = this.cuts;
    for (let i = 0; i < cuts.length; i++) store(cuts[i]!);
    cuts.length = 0;
  }
}

function cutOf(id: number, c: ClosedHistogramChunk): HistogramCut {
  return { id, minT: c.minT, maxT: c.maxT, encoding: c.encoding, data: c.data };
}
