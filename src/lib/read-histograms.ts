/**
 * Native histogram chunks (Prometheus encodings 2 and 3) decoded for
 * select: the samples within a range, as the library's HistogramSample.
 */
import { ENCODING_FLOAT_HISTOGRAM, isHistogramEncoding, wasmHistogramCodecs } from '../chunkenc/index.js';
import type { StoredChunk } from '../query/types.js';
import type { HistogramSample } from './histogram-types.js';

const TWO_32 = 4294967296;

/** Whether `c` holds native histograms. */
export function isHistogramChunk(c: StoredChunk): boolean {
  return c.encoding !== undefined && isHistogramEncoding(c.encoding);
}

/**
 * Appends to `out` the samples of histogram chunk `c` within [minT, maxT],
 * in the chunk's order. The decoded objects are handed over as they are:
 * the codec gives them to the caller, and the library's Histogram is the
 * codecs' own type. Throws the codec's ChunkDecodeError for bytes that are
 * not a valid chunk.
 */
export function decodeHistogramChunk(c: StoredChunk, minT: number, maxT: number, out: HistogramSample[]): void {
  const codecs = wasmHistogramCodecs();
  const float = c.encoding === ENCODING_FLOAT_HISTOGRAM;
  const { timestamps, histograms } = float ? codecs.floatHistogram.decode(c.data) : codecs.histogram.decode(c.data);
  const n = timestamps.length;
  // Timestamps through 32-bit halves: reading the BigInt64Array would make a BigInt per sample.
  const lo = new Uint32Array(timestamps.buffer, timestamps.byteOffset, n * 2);
  const hi = new Int32Array(timestamps.buffer, timestamps.byteOffset, n * 2);
  for (let k = 0; k < n; k++) {
    const timestamp = hi[2 * k + 1]! * TWO_32 + lo[2 * k]!;
    if (timestamp < minT || timestamp > maxT) continue;
    out.push(float ? { timestamp, float: true, histogram: histograms[k]! } : { timestamp, float: false, histogram: histograms[k]! });
  }
}
