import { ENCODING_FLOAT_HISTOGRAM, ENCODING_HISTOGRAM, type HistogramEncoding } from '../encoding.js';
import { appendable, appendableGauge, dropped, type AppenderState, type LastSample } from './appendable.js';
import { checkHistogram, isStaleNaN, layoutOf, type ChunkLayout } from './check.js';
import {
  HEADER_GAUGE, HEADER_NOT_RESET, HEADER_RESET, HEADER_UNKNOWN,
  type CounterResetHeader, type HistogramChunkAppender, type HistogramChunkCodec,
} from './codec.js';
import { wasmHistogramCodecs, type HistogramCodecSet } from './impl.js';
import { sameSpansPacked, type PackedHistogram } from './packed.js';
import { countSpans, insertBuckets, type Insert } from './spans.js';
import { RESET_GAUGE, RESET_YES, type FloatHistogram, type Histogram, type Span } from './types.js';

/**
 * One series' open histogram chunk, grown as Prometheus 2.42's head grows
 * it (tsdb/head_append.go: memSeries.appendHistogram, appendFloatHistogram,
 * appendPreprocessor): the rules for when a chunk is cut, recoded, and
 * which counter-reset header a new chunk gets. The head owns ordering
 * against float samples, duplicates and the WAL; this owns the chunk.
 */

/** Prometheus' samplesPerChunk: Gorilla's near-optimal size; the head aims for it and cuts at twice it. */
export const SAMPLES_PER_CHUNK = 120;
/** Prometheus' default chunk range, the head's block range: 2 h in ms. */
export const DEFAULT_CHUNK_RANGE = 2 * 60 * 60 * 1000;

/** A chunk the chunker closed. `data` is the receiver's. */
export interface ClosedHistogramChunk {
  /** 2 (HISTOGRAM) or 3 (FLOAT_HISTOGRAM). */
  encoding: HistogramEncoding;
  minT: number;
  maxT: number;
  count: number;
  header: CounterResetHeader;
  data: Uint8Array;
}

/** The open chunk as it stands; valid until the next call on the chunker. */
export interface OpenHistogramChunk {
  readonly encoding: HistogramEncoding;
  readonly minT: number;
  readonly maxT: number;
  readonly count: number;
  readonly header: CounterResetHeader;
  /** The chunk's bytes: a view valid until the next call on the chunker; copy (slice) to keep. */
  bytes(): Uint8Array;
}

export interface HistogramAppendResult {
  /** False when `t` is not after the newest sample (Prometheus drops it as out of order); nothing changed then. */
  appended: boolean;
  /** A new chunk was started for this sample. */
  created: boolean;
  /** The open chunk was rewritten with more buckets before this sample went in (its bytes changed). */
  recoded: boolean;
  /** The chunk closed to make room, oldest data first; at most one per append. */
  closed?: ClosedHistogramChunk;
}

export interface HistogramChunkerOptions {
  /** Prometheus' chunkRange (the head's block range) in ms: chunks end at its multiples. Default 2 h. */
  chunkRange?: number;
  /** Prometheus' samplesPerChunk (1..32767); default 120, a fixed constant in Prometheus. */
  samplesPerChunk?: number;
  /** Implementation; default the WebAssembly one on this thread. */
  codecs?: HistogramCodecSet;
}

const NOT_APPENDED: HistogramAppendResult = Object.freeze({ appended: false, created: false, recoded: false });
const APPENDED: HistogramAppendResult = Object.freeze({ appended: true, created: false, recoded: false });

/** Go's t / w for int64: truncates toward zero. Exact for |t| < 2^53. */
function goDiv(t: number, w: number): number {
  return (t - (t % w)) / w;
}

/** rangeForTimestamp: the end of the chunk range `t` falls in. */
export function rangeForTimestamp(t: number, width: number): number {
  return goDiv(t, width) * width + width;
}

/** computeChunkEndTime: an end for a chunk 1/4 full, so the rest of the range splits into equal chunks. */
export function computeChunkEndTime(start: number, cur: number, max: number): number {
  const n = goDiv(max - start, (cur - start + 1) * 4);
  if (n <= 1) return max;
  return start + goDiv(max - start, n);
}

class OpenChunk implements OpenHistogramChunk {
  maxT = -Infinity;
  header: CounterResetHeader = HEADER_UNKNOWN;
  layout: ChunkLayout | undefined;

  constructor(readonly encoding: HistogramEncoding, public minT: number, readonly app: HistogramChunkAppender<Histogram | FloatHistogram>) {}

  get count(): number {
    return this.app.numSamples;
  }

  bytes(): Uint8Array {
    return this.app.bytes();
  }
}

function lastOf(h: Histogram | FloatHistogram): LastSample {
  return {
    count: h.count, zeroCount: h.zeroCount, sum: h.sum,
    positiveBuckets: h.positiveBuckets.slice(), negativeBuckets: h.negativeBuckets.slice(),
  };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * One series' histogram chunks as Prometheus 2.42's head cuts them.
 * Samples are integer histograms (encoding 2) or float histograms
 * (encoding 3); a change of kind closes the open chunk. Not thread-safe;
 * one chunker per series.
 *
 * The chunker keeps copies of what it compares (counts, sum, buckets) and
 * never changes the histograms it is given.
 *
 * @example
 * const chunker = new HistogramChunker({ chunkRange: 7_200_000 });
 * const { closed } = chunker.appendHistogram(t, h);
 * if (closed) writeToChunkFiles(closed);   // closed.data is yours
 * const open = chunker.open;               // the growing chunk, if any
 */
export class HistogramChunker {
  private readonly chunkRange: number;
  private readonly samplesPerChunk: number;
  private readonly codecs: HistogramCodecSet;
  private readonly appenders: Partial<Record<HistogramEncoding, HistogramChunkAppender<Histogram | FloatHistogram>>> = {};
  private chunk: OpenChunk | undefined;
  /** Go's s.app: the appender of the chunk appended to last, open or closed. */
  private app: AppenderState | undefined;
  private nextAt = -Infinity;
  /** The newest timestamp of a closed chunk (Go's mmapped chunks' maxTime). */
  private lastMaxT = -Infinity;

  constructor(opts: HistogramChunkerOptions = {}) {
    this.chunkRange = opts.chunkRange ?? DEFAULT_CHUNK_RANGE;
    this.samplesPerChunk = opts.samplesPerChunk ?? SAMPLES_PER_CHUNK;
    // The head cuts at twice the target; a chunk's 16-bit count caps it at 65535.
    if (!Number.isInteger(this.samplesPerChunk) || this.samplesPerChunk < 1 || this.samplesPerChunk * 2 > 65535) {
      throw new RangeError(`samplesPerChunk ${this.samplesPerChunk}: must be an integer from 1 to 32767`);
    }
    if (!(this.chunkRange >= 1) || !Number.isSafeInteger(this.chunkRange)) throw new RangeError(`chunkRange ${this.chunkRange}: must be a positive integer (ms)`);
    this.codecs = opts.codecs ?? wasmHistogramCodecs();
  }

  /** The open chunk, or undefined. The view is valid until the next call on the chunker. */
  get open(): OpenHistogramChunk | undefined {
    return this.chunk;
  }

  /**
   * Appends an integer histogram at `t` (int64 ms within ±2^53). Returns
   * whether it went in and the chunk it closed, if any. Throws a
   * ChunkEncodeError for a histogram whose spans and buckets disagree or
   * whose counts are not safe integers (the write path validates first);
   * nothing changes then.
   */
  appendHistogram(t: number, h: Histogram): HistogramAppendResult {
    return this.append(t, h, ENCODING_HISTOGRAM);
  }

  /**
   * The common case of appendHistogram (appendFloatHistogram for a float
   * `p`) without a histogram object: `p` (hint 0 or 2, a sum that is not
   * a NaN) at `t` goes into the open chunk of its kind with no cut, no
   * recode and no counter reset: its spans exactly the chunk's, no count
   * or bucket lower than the last sample's.
   * Returns the result appendHistogram would have given for the same
   * histogram, or undefined when the sample is not such a case (nothing
   * changed then: call appendHistogram).
   *
   * Shape: every decision of `append` for this case, on typed arrays, and
   * the last sample's numbers updated in place: no object per sample.
   */
  appendPacked(t: number, p: PackedHistogram): HistogramAppendResult | undefined {
    const c = this.chunk;
    const a = this.app;
    const encoding = p.float ? ENCODING_FLOAT_HISTOGRAM : ENCODING_HISTOGRAM;
    if (c === undefined || a === undefined || c.encoding !== encoding || a.encoding !== encoding) return undefined;
    if (!Number.isSafeInteger(t) || t <= c.maxT) return undefined;
    const n = c.count;
    // appendPreprocessor: no cut. The new end is kept only once the sample is in.
    if (n === 0) return undefined;
    let nextAt = this.nextAt;
    if (n === Math.floor(this.samplesPerChunk / 4)) nextAt = computeChunkEndTime(c.minT, c.maxT, nextAt);
    if (t >= nextAt || n >= this.samplesPerChunk * 2) return undefined;
    // Appendable, the common case: same schema, zero threshold and spans, nothing dropped.
    const last = a.last;
    if (a.header === HEADER_GAUGE || isStaleNaN(last.sum)) return undefined;
    if (p.hint !== 0 && p.hint !== 2) return undefined;
    const layout = a.layout;
    if (p.schema !== layout.schema || p.zeroThreshold !== layout.zeroThreshold) return undefined;
    if (p.count < last.count || p.zeroCount < last.zeroCount) return undefined;
    if (!sameSpansPacked(layout.positiveSpans, p.posSpans, p.nPosSpans) || !sameSpansPacked(layout.negativeSpans, p.negSpans, p.nNegSpans)) return undefined;
    if (p.nPos !== last.positiveBuckets.length || p.nNeg !== last.negativeBuckets.length) return undefined;
    if (dropped(last.positiveBuckets, p.pos, !p.float) || dropped(last.negativeBuckets, p.neg, !p.float)) return undefined;
    // The appender checks the spans against the layout (and everything else checkSample would).
    if (c.app.appendPacked === undefined || !c.app.appendPacked(t, p)) return undefined;
    this.nextAt = nextAt;
    c.maxT = t;
    // Go's s.app after the append: the same state, the last sample's numbers replaced.
    a.header = c.header;
    a.count = c.count;
    a.layout = c.layout!;
    last.count = p.count;
    last.zeroCount = p.zeroCount;
    last.sum = p.sum;
    const lp = last.positiveBuckets;
    for (let i = 0; i < lp.length; i++) lp[i] = p.pos[i]!;
    const ln = last.negativeBuckets;
    for (let i = 0; i < ln.length; i++) ln[i] = p.neg[i]!;
    return APPENDED;
  }

  /**
   * The histogram appendPacked took last (a FloatHistogram in a float
   * chunk), rebuilt from the chunker's copy of it (its spans are the
   * chunk's, as that path requires): what the head compares a duplicate
   * with, made only when one comes. The counter-reset hint is not kept
   * (0). Undefined when the chunker holds no sample to compare with.
   */
  lastHistogram(): Histogram | FloatHistogram | undefined {
    const a = this.app;
    if (a === undefined) return undefined;
    const { layout, last } = a;
    return {
      counterResetHint: 0, schema: layout.schema, zeroThreshold: layout.zeroThreshold,
      zeroCount: last.zeroCount, count: last.count, sum: last.sum,
      positiveSpans: layout.positiveSpans, negativeSpans: layout.negativeSpans,
      positiveBuckets: last.positiveBuckets.slice(), negativeBuckets: last.negativeBuckets.slice(),
    };
  }

  /** Appends a float histogram at `t`. Same contract as appendHistogram. */
  appendFloatHistogram(t: number, fh: FloatHistogram): HistogramAppendResult {
    return this.append(t, fh, ENCODING_FLOAT_HISTOGRAM);
  }

  /**
   * Closes the open chunk and returns it (undefined when there is none).
   * The next chunk's header is still decided against it, as Prometheus
   * decides against its last appender after the head chunk went away.
   */
  cut(): ClosedHistogramChunk | undefined {
    return this.close();
  }

  /** Forgets the open chunk without returning it (retention); as cut otherwise. */
  drop(): void {
    this.close();
  }

  /**
   * The series took a float (XOR) sample: Prometheus' appender is then an
   * XOR appender, so the next histogram chunk is not compared with this
   * one (its header is HEADER_UNKNOWN unless the sample's hint is a reset
   * or a gauge). Call after cut().
   */
  forget(): void {
    this.app = undefined;
  }

  /**
   * Reopens `data`, a chunk of `encoding` this chunker (or Prometheus'
   * head) was growing, in place of any open chunk: later appends continue
   * it as if it had never been closed. The chunk is re-encoded from its
   * samples: true when that gives `data` back byte for byte (every chunk
   * Prometheus 2.42's head writes uninterrupted, and every one of ours).
   * Throws a ChunkDecodeError for bytes that are not a valid chunk, or a
   * ChunkEncodeError for one Prometheus' appender cannot have written (a
   * sample after a stale marker); there is no open chunk then.
   */
  resume(encoding: HistogramEncoding, data: Uint8Array): boolean {
    const { timestamps, histograms, header } = this.codec(encoding).decode(data);
    this.chunk = undefined;
    if (histograms.length === 0) return data.length === 3;
    const app = this.appender(encoding);
    app.reset(header);
    for (let i = 0; i < histograms.length; i++) app.append(Number(timestamps[i]!), histograms[i]!);
    const minT = Number(timestamps[0]!);
    const chunk = new OpenChunk(encoding, minT, app);
    chunk.maxT = Number(timestamps[timestamps.length - 1]!);
    chunk.header = header;
    chunk.layout = layoutOf(histograms[0]!);
    this.chunk = chunk;
    this.nextAt = rangeForTimestamp(minT, this.chunkRange);
    const quarter = Math.floor(this.samplesPerChunk / 4);
    if (histograms.length > quarter && quarter > 0) {
      this.nextAt = computeChunkEndTime(minT, Number(timestamps[quarter - 1]!), this.nextAt);
    }
    this.app = { encoding, header, count: histograms.length, layout: chunk.layout, last: lastOf(histograms[histograms.length - 1]!) };
    return sameBytes(app.bytes(), data);
  }

  /**
   * After a restart: `data` (of `encoding`) is the chunk before the next
   * one, closed, so the next chunk's header is decided against it and
   * samples at or before its last timestamp are refused. Drops any open chunk.
   */
  resumeAfter(encoding: HistogramEncoding, data: Uint8Array): void {
    const { timestamps, histograms, header } = this.codec(encoding).decode(data);
    this.chunk = undefined;
    if (histograms.length === 0) return;
    const first = histograms[0]!;
    this.app = { encoding, header, count: histograms.length, layout: layoutOf(first), last: lastOf(histograms[histograms.length - 1]!) };
    this.lastMaxT = Math.max(this.lastMaxT, Number(timestamps[timestamps.length - 1]!));
  }

  private codec(encoding: HistogramEncoding): HistogramChunkCodec<Histogram | FloatHistogram> {
    return encoding === ENCODING_HISTOGRAM ? this.codecs.histogram : this.codecs.floatHistogram;
  }

  private appender(encoding: HistogramEncoding): HistogramChunkAppender<Histogram | FloatHistogram> {
    return (this.appenders[encoding] ??= this.codecs.appender(encoding));
  }

  private close(): ClosedHistogramChunk | undefined {
    const c = this.chunk;
    if (c === undefined) return undefined;
    this.chunk = undefined;
    if (c.count === 0) return undefined;
    this.lastMaxT = Math.max(this.lastMaxT, c.maxT);
    return { encoding: c.encoding, minT: c.minT, maxT: c.maxT, count: c.count, header: c.header, data: c.bytes().slice() };
  }

  /** cutNewHeadChunk: closes the open chunk (returned) and starts an empty one at `t`. */
  private cutTo(t: number, encoding: HistogramEncoding): ClosedHistogramChunk | undefined {
    const closed = this.close();
    const app = this.appender(encoding);
    app.reset(HEADER_UNKNOWN);
    this.chunk = new OpenChunk(encoding, t, app);
    this.nextAt = rangeForTimestamp(t, this.chunkRange);
    return closed;
  }

  private append(t: number, h: Histogram | FloatHistogram, encoding: HistogramEncoding): HistogramAppendResult {
    if (!Number.isSafeInteger(t)) throw new RangeError(`histogram sample timestamp ${t} is not an integer within ±2^53 ms`);
    // Before any decision: a cut or recode must not happen for a sample that then cannot go in.
    checkHistogram(h, encoding === ENCODING_HISTOGRAM);
    // Go takes s.app before appendPreprocessor may cut: a new chunk's header is decided against the old one.
    const app = this.app?.encoding === encoding ? this.app : undefined;
    let closed: ClosedHistogramChunk | undefined;
    let created = false;

    // appendPreprocessor.
    if (this.chunk === undefined) {
      if (t <= this.lastMaxT) return NOT_APPENDED;
      this.cutTo(t, encoding);
      created = true;
    }
    let c = this.chunk!;
    if (c.maxT >= t) return NOT_APPENDED;
    if (c.encoding !== encoding) {
      closed = this.cutTo(t, encoding);
      created = true;
      c = this.chunk!;
    }
    const n = c.count;
    if (n === 0) {
      c.minT = t;
      this.nextAt = rangeForTimestamp(t, this.chunkRange);
    }
    if (n === Math.floor(this.samplesPerChunk / 4)) this.nextAt = computeChunkEndTime(c.minT, c.maxT, this.nextAt);
    if (t >= this.nextAt || n >= this.samplesPerChunk * 2) {
      closed = this.cutTo(t, encoding);
      created = true;
    }

    // appendHistogram / appendFloatHistogram.
    let ok = false;
    let counterReset = false;
    let gauge = false;
    let positiveInserts: Insert[] = [];
    let negativeInserts: Insert[] = [];
    let sample = h;
    if (h.counterResetHint === RESET_GAUGE) {
      gauge = true;
      if (app !== undefined) {
        const g = appendableGauge(app, h);
        ok = g.ok;
        positiveInserts = g.positiveInserts;
        negativeInserts = g.negativeInserts;
        if (!created && g.positiveBackward.length + g.negativeBackward.length > 0) {
          sample = widen(h, g.positiveMerged, g.negativeMerged, g.positiveBackward, g.negativeBackward, encoding === ENCODING_HISTOGRAM);
        }
      }
    } else if (h.counterResetHint === RESET_YES) {
      counterReset = true; // the sender says so, whatever the counts say
    } else if (app !== undefined) {
      const a = appendable(app, h);
      ok = a.ok;
      counterReset = a.counterReset;
      positiveInserts = a.positiveInserts;
      negativeInserts = a.negativeInserts;
    }

    let recoded = false;
    if (!created) {
      if (!ok || counterReset) {
        closed = this.cutTo(t, encoding);
        created = true;
      } else if (positiveInserts.length > 0 || negativeInserts.length > 0) {
        this.recode(c, positiveInserts, negativeInserts, sample.positiveSpans, sample.negativeSpans);
        recoded = true;
      }
    }
    c = this.chunk!;
    if (created) {
      c.header = gauge ? HEADER_GAUGE : counterReset ? HEADER_RESET : ok ? HEADER_NOT_RESET : HEADER_UNKNOWN;
      c.app.setHeader(c.header);
    }
    c.app.append(t, sample);
    c.layout ??= layoutOf(sample);
    c.maxT = t;
    this.app = { encoding, header: c.header, count: c.count, layout: c.layout, last: lastOf(sample) };
    const result: HistogramAppendResult = { appended: true, created, recoded };
    if (closed !== undefined) result.closed = closed;
    return result;
  }

  /** Recode: rewrites the open chunk with every sample widened to the new spans. */
  private recode(c: OpenChunk, positive: Insert[], negative: Insert[], positiveSpans: readonly Span[], negativeSpans: readonly Span[]): void {
    const { timestamps, histograms } = this.codec(c.encoding).decode(c.bytes());
    c.app.reset(c.header);
    const deltas = c.encoding === ENCODING_HISTOGRAM;
    const numP = countSpans(positiveSpans);
    const numN = countSpans(negativeSpans);
    for (let i = 0; i < histograms.length; i++) {
      const old = histograms[i]!;
      // A chunk with a stale marker takes nothing but stale markers: never recoded.
      const h = isStaleNaN(old.sum) ? old : {
        ...old,
        positiveSpans: positiveSpans.map((s) => ({ ...s })),
        negativeSpans: negativeSpans.map((s) => ({ ...s })),
        positiveBuckets: positive.length > 0 ? insertBuckets(old.positiveBuckets, numP, positive, deltas) : old.positiveBuckets,
        negativeBuckets: negative.length > 0 ? insertBuckets(old.negativeBuckets, numN, negative, deltas) : old.negativeBuckets,
      };
      c.app.append(Number(timestamps[i]!), h);
    }
    c.layout = layoutOf({ ...histograms[0]!, positiveSpans: [...positiveSpans], negativeSpans: [...negativeSpans] });
  }
}

/** RecodeHistogram for a gauge: `h` on the merged spans, with zero buckets where only the chunk had some. */
function widen(
  h: Histogram | FloatHistogram, positiveSpans: Span[], negativeSpans: Span[],
  positiveBackward: Insert[], negativeBackward: Insert[], deltas: boolean,
): Histogram | FloatHistogram {
  return {
    ...h,
    positiveSpans,
    negativeSpans,
    positiveBuckets: positiveBackward.length > 0
      ? insertBuckets(h.positiveBuckets, countSpans(positiveSpans), positiveBackward, deltas) : h.positiveBuckets,
    negativeBuckets: negativeBackward.length > 0
      ? insertBuckets(h.negativeBuckets, countSpans(negativeSpans), negativeBackward, deltas) : h.negativeBuckets,
  };
}

/**
 * The last sample of a histogram chunk (`encoding` 2 or 3) as the codec
 * decodes it, or undefined for an empty chunk. Throws a ChunkDecodeError
 * for bytes that are not a valid chunk.
 */
export function lastHistogramSample(
  encoding: HistogramEncoding, chunk: Uint8Array, codecs: HistogramCodecSet = wasmHistogramCodecs(),
): { t: number; h: Histogram | FloatHistogram } | undefined {
  const codec = encoding === ENCODING_HISTOGRAM ? codecs.histogram : codecs.floatHistogram;
  const { timestamps, histograms } = codec.decode(chunk);
  const n = histograms.length;
  return n === 0 ? undefined : { t: Number(timestamps[n - 1]!), h: histograms[n - 1]! };
}
