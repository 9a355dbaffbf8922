/**
 * The native histogram chunks (Prometheus chunk encodings 2, HISTOGRAM,
 * and 3, FLOAT_HISTOGRAM, as tsdb/chunkenc of v2.42.0 writes them): the
 * chunk contract (../chunk.ts) for histogram samples, and the
 * counter-reset header these chunks carry. Format:
 * docs/format/histogram-chunks.md.
 */
import type { ChunkAppender, ChunkCodec, DecodedChunk } from '../chunk.js';
import type { HistogramEncoding } from '../encoding.js';
import type { PackedHistogram } from './packed.js';
import type { FloatHistogram, Histogram } from './types.js';

/**
 * The counter-reset header: the top two bits of a histogram chunk's third
 * byte, numbered by their value (chunkenc.CounterResetHeader >> 6).
 */
export type CounterResetHeader = 0 | 1 | 2 | 3;
/** No statement: a reader has to compare with the chunk before (chunkenc.UnknownCounterReset). */
export const HEADER_UNKNOWN = 0;
/** The chunk was cut without a counter reset (chunkenc.NotCounterReset, 0b01). */
export const HEADER_NOT_RESET = 1;
/** The chunk was cut because of a counter reset (chunkenc.CounterReset, 0b10). */
export const HEADER_RESET = 2;
/** The chunk holds gauge histograms (chunkenc.GaugeType, 0b11). */
export const HEADER_GAUGE = 3;

/** A decoded chunk. Arrays and objects are owned by the caller. */
export interface DecodedHistogramChunk<H> extends DecodedChunk {
  /** int64 ms, one per histogram. */
  timestamps: BigInt64Array;
  /**
   * The samples as Prometheus 2.42's iterator reports them: the chunk's
   * layout (schema, zero threshold, spans) on every sample; the counter
   * reset hint derived from the header and the position (gauge chunk: 3 on
   * every sample; otherwise 1 on the first sample of a chunk whose header is
   * HEADER_RESET, 0 on the first sample of any other chunk, 2 after it).
   * A stale marker (sum is Prometheus' StaleNaN, 0x7ff0000000000002) comes
   * back as Prometheus returns it: every other field zero, no spans, no
   * buckets, hint 0.
   */
  histograms: H[];
  /** The chunk's counter-reset header. */
  header: CounterResetHeader;
}

/**
 * A histogram chunk codec: the TypeScript oracle and the WebAssembly codec
 * both implement it and produce the same bytes as Prometheus 2.42.
 */
export interface HistogramChunkCodec<H extends Histogram | FloatHistogram>
  extends ChunkCodec<HistogramEncoding, readonly H[], DecodedHistogramChunk<H>> {
  /**
   * Encodes the samples, in the order given, as one chunk, exactly as
   * Prometheus' appender writes them one after another into a new chunk
   * whose header is then set to `header` (default: from the first
   * sample's hint: 1 -> HEADER_RESET, 2 -> HEADER_NOT_RESET, 3 ->
   * HEADER_GAUGE, 0 -> HEADER_UNKNOWN). Hints are not stored otherwise.
   *
   * A stale marker is written as Prometheus writes it (its other fields
   * ignored). Every other sample must cover the buckets of the first
   * sample's layout (same schema, zero threshold and bucket positions;
   * spans may be split differently) with bucket arrays as long as its spans
   * say, and may not follow a stale marker (Prometheus' head starts a new
   * chunk then). Otherwise, or past 65535 samples, or for timestamps and
   * integer fields outside ±2^53, throws a ChunkEncodeError and returns
   * nothing. Timestamps need not increase. The bytes are the caller's.
   */
  encode(timestamps: BigInt64Array, histograms: readonly H[], header?: CounterResetHeader): Uint8Array;
  /**
   * Decodes a whole chunk. Throws a ChunkDecodeError naming what is wrong
   * for bytes that are not a valid chunk; never reads outside `chunk`, and
   * the work and memory it takes are bounded by the chunk's size.
   */
  decode(chunk: Uint8Array): DecodedHistogramChunk<H>;
}

/**
 * One open chunk that grows a sample at a time, as Prometheus'
 * HistogramAppender / FloatHistogramAppender on a new chunk. Used by the
 * chunker; `encode` is a loop over it.
 */
export interface HistogramChunkAppender<H extends Histogram | FloatHistogram> extends ChunkAppender<HistogramEncoding> {
  /** Drops the chunk and starts an empty one with this header (default HEADER_UNKNOWN). */
  reset(header?: CounterResetHeader): void;
  /** Rewrites the header bits of the chunk (chunkenc's SetCounterResetHeader). */
  setHeader(header: CounterResetHeader): void;
  /**
   * Appends one sample. Same contract as `encode` for one more sample;
   * on a ChunkEncodeError the chunk is unchanged. `t` is int64 ms as a
   * number (exact within ±2^53).
   */
  append(t: number, h: H): void;
  /**
   * The fast path of `append` for an integer chunk (optional): appends `p`
   * when it continues the chunk as it stands (at least one sample, the last
   * not a stale marker, exactly the spans of the chunk's layout, bucket
   * arrays as long as they say) and returns true, the chunk then as
   * `append` leaves it; otherwise returns false and nothing changed.
   */
  appendPacked?(t: number, p: PackedHistogram): boolean;
  /**
   * The chunk's bytes so far. A view into the appender's buffer, valid
   * until the next call on the appender; copy (slice) it to keep it.
   */
  bytes(): Uint8Array;
}
