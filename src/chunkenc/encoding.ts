/**
 * Chunk encodings, numbered as Prometheus' chunkenc.Encoding
 * (tsdb/chunkenc/chunk.go): the number a chunk carries in block chunk
 * files, head chunk segments and our own records. Defined here once; the
 * wire formats that number chunks differently map from these below.
 */

/** chunkenc.EncNone: no chunk; never stored. */
export const ENCODING_NONE = 0;
/** chunkenc.EncXOR: float samples (docs/format/xor-chunk.md). */
export const ENCODING_XOR = 1;
/** chunkenc.EncHistogram: integer native histograms (docs/format/histogram-chunks.md). */
export const ENCODING_HISTOGRAM = 2;
/** chunkenc.EncFloatHistogram: float native histograms. */
export const ENCODING_FLOAT_HISTOGRAM = 3;

/** Any encoding number this package names, none included. */
export type Encoding = typeof ENCODING_NONE | ChunkEncoding;
/** The encoding of a chunk that holds samples (chunkenc.IsValidEncoding). */
export type ChunkEncoding = typeof ENCODING_XOR | HistogramEncoding;
/** The encodings of native histogram chunks. */
export type HistogramEncoding = typeof ENCODING_HISTOGRAM | typeof ENCODING_FLOAT_HISTOGRAM;

/** Prometheus' names of the encodings (Encoding.String()), as the library reports them. */
export const ENCODING_NAMES = {
  [ENCODING_NONE]: 'none',
  [ENCODING_XOR]: 'XOR',
  [ENCODING_HISTOGRAM]: 'histogram',
  [ENCODING_FLOAT_HISTOGRAM]: 'floathistogram',
} as const;

/** Prometheus' name of encoding `e` ('<unknown>' for a number it does not name). */
export function encodingName(e: number): string {
  return isKnownEncoding(e) || e === ENCODING_NONE ? ENCODING_NAMES[e] : '<unknown>';
}

/** Whether `e` is the encoding of a chunk we read and write (XOR, histogram, float histogram). */
export function isKnownEncoding(e: number): e is ChunkEncoding {
  return e === ENCODING_XOR || e === ENCODING_HISTOGRAM || e === ENCODING_FLOAT_HISTOGRAM;
}

/** Whether `e` is a native histogram encoding (integer or float). */
export function isHistogramEncoding(e: number): e is HistogramEncoding {
  return e === ENCODING_HISTOGRAM || e === ENCODING_FLOAT_HISTOGRAM;
}

/**
 * Thanos' storepb `Chunk.Encoding` of a chunk (the Store API): XOR 0,
 * HISTOGRAM 1, FLOAT_HISTOGRAM 2, one less than Prometheus' numbers. XOR
 * is the proto default, so an XOR chunk's field is left out on the wire.
 * `e` is one of ours (isKnownEncoding).
 */
export function thanosChunkEncoding(e: number): number {
  return e - 1;
}

/**
 * Prometheus remote read's prompb `Chunk.Encoding` of a chunk
 * (STREAMED_XOR_CHUNKS answers): Prometheus' own numbers, XOR 1,
 * HISTOGRAM 2, FLOAT_HISTOGRAM 3 (0 is UNKNOWN).
 */
export function remoteReadChunkEncoding(e: number): number {
  return e;
}
