/**
 * The chunk contract, as Prometheus' tsdb/chunkenc/chunk.go is its one
 * contract: what a chunk codec, an appender and an iterator promise,
 * whatever the encoding (encoding.ts) and the implementation.
 *
 * Implementations, by encoding:
 * - XOR (xor/): the codecs WasmXorCodec and TsXorCodec (XorCodec), the
 *   appender XorAppender, the iterator XorIterator.
 * - histogram and float histogram (histogram/): the codecs
 *   Wasm(Float)HistogramCodec and Ts(Float)HistogramCodec
 *   (HistogramChunkCodec), the appenders Wasm(Float)HistogramAppender and
 *   Ts(Float)HistogramAppender (HistogramChunkAppender). Their chunks are
 *   read whole (decode): no iterator.
 *
 * Each encoding has a WebAssembly implementation, the one in use, and a
 * TypeScript oracle written to be obviously right; both produce and
 * accept Prometheus' bytes, byte for byte, and the conformance suites
 * (test/chunkenc) run against each and against Prometheus' own chunks.
 *
 * What differs between encodings is the shape of a sample's value: a
 * float64 (values travel as a Float64Array, whose elements keep their bit
 * patterns, NaN payloads such as the stale marker included) or a histogram
 * object. The interfaces are generic over it. Times are int64 ms: a
 * BigInt64Array where a batch crosses the contract, a number (exact within
 * ±2^53) where one sample does.
 *
 * All calls are synchronous; an instance belongs to one thread (the
 * WebAssembly ones hold their module's memory). Hot paths hold the
 * concrete classes, so their calls stay monomorphic; the interfaces are for
 * what takes any implementation (the conformance suites, the histogram
 * chunker, benchmarks).
 */
import type { ChunkEncoding } from './encoding.js';
import type { ChunkDecodeError } from './errors.js';

/** A whole chunk decoded: `timestamps[i]` is the time of the encoding's i-th sample. */
export interface DecodedChunk {
  /** int64 ms, in the chunk's order. */
  timestamps: BigInt64Array;
}

/**
 * Encodes samples as whole chunks and decodes whole chunks (Prometheus'
 * Chunk with a new appender, and its iterator run to the end).
 *
 * @typeParam E - the encoding it writes and reads
 * @typeParam Values - the samples' values, index for index with the timestamps
 * @typeParam Decoded - what a decoded chunk holds
 */
export interface ChunkCodec<E extends ChunkEncoding, Values, Decoded extends DecodedChunk> {
  /** The implementation, for test names and benchmarks: 'wasm', or the TypeScript oracle's name. */
  readonly name: string;
  readonly encoding: E;
  /**
   * Encodes the samples, in the order given, as one new chunk, exactly as
   * Prometheus' appender writes them one after another. Timestamps need
   * not increase (Prometheus' appenders do not check either). The inputs
   * are read, never kept or changed; the bytes returned are new and the
   * caller's. Throws, returning nothing, when the inputs' lengths differ
   * and with a ChunkEncodeError for samples the encoding cannot hold: more
   * than 65535 (a chunk's 16-bit count), and what the encoding adds.
   */
  encode(timestamps: BigInt64Array, values: Values): Uint8Array;
  /**
   * Decodes a whole chunk. `chunk` is read, never kept: the caller may
   * reuse it at once. What is returned is new and the caller's. Throws a
   * ChunkDecodeError naming what is wrong for bytes that are not a valid
   * chunk of the encoding; never reads outside `chunk`.
   */
  decode(chunk: Uint8Array): Decoded;
}

/**
 * One open chunk that grows as samples are appended, as Prometheus'
 * Appender on a new chunk; the appender owns the chunk's bytes. Each
 * encoding adds its `append`, shaped for its callers (XOR: batches of
 * columns, XorAppender.append; histograms: one sample at a time,
 * HistogramChunkAppender.append), and every `append` promises the same:
 * samples go in in the order given and are copied, the caller keeps its
 * inputs; an append that throws a ChunkEncodeError leaves the chunk as
 * it was.
 */
export interface ChunkAppender<E extends ChunkEncoding> {
  readonly encoding: E;
  /** Samples in the chunk. */
  readonly numSamples: number;
  /** Empties the chunk for reuse. */
  reset(): void;
  /**
   * The chunk as it stands, valid until the next call on the appender
   * (an implementation may return a copy); copy (slice) it to keep it.
   */
  bytes(): Uint8Array;
}

/**
 * Reads one chunk sample by sample, forward only, as Prometheus'
 * Iterator; one iterator is reused across chunks. Before the first
 * `next` or `seek`, and after either returned false, what `at…` returns
 * is unspecified. Each encoding adds the readers of its values (XOR:
 * XorIterator.atV).
 */
export interface ChunkIterator {
  /** Starts over on `chunk`; its bytes are copied, so the caller may reuse them at once. */
  reset(chunk: Uint8Array): this;
  /** Moves to the next sample; false at the end of the chunk or on an error. */
  next(): boolean;
  /** Moves to the first sample at or after `t` (never backwards); false if there is none. */
  seek(t: bigint): boolean;
  /** The current sample's time in ms (exact within ±2^53). */
  atT(): number;
  /** Why iteration stopped before the end of the chunk, if it did. */
  err(): ChunkDecodeError | undefined;
}
