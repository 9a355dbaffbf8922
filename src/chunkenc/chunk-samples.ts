/**
 * Native histogram chunks (Prometheus encodings 2 and 3) as the read side
 * needs them: decoded into samples (merges of overlapping chunks, the
 * sidecar's cut, remote read's SAMPLES answers) and samples encoded again
 * into chunks. A thin adapter over the histogram codec (histogram/impl.ts,
 * the WebAssembly implementation) and its chunker (histogram/chunker.ts),
 * so that readers do not depend on their shape.
 */
import { ENCODING_FLOAT_HISTOGRAM, ENCODING_HISTOGRAM } from './encoding.js';
import { HistogramChunker } from './histogram/chunker.js';
import { wasmHistogramCodecs } from './histogram/impl.js';
import type { FloatHistogram, Histogram } from './histogram/types.js';

/**
 * Samples per chunk encoded again, histograms here and floats by merges
 * (merge-chunks.ts): Prometheus' seriesToChunkEncoder (what its compaction
 * and merges re-encode with) splits at 120, as its head cuts.
 */
export const ENCODED_CHUNK_SAMPLES = 120;
/**
 * The chunker's chunk range and samples per chunk, set so that it never
 * cuts by time or by its own count: a merge cuts by count alone (above),
 * and where Prometheus' histogram appender would (a counter reset, a
 * layout the chunk cannot take, a stale marker).
 */
const NO_TIME_CUTS = 2 ** 52;
const NO_COUNT_CUTS = 1 << 14;

/** One histogram sample: an integer Histogram in encoding 2, a FloatHistogram in encoding 3. */
export type AnyHistogram = Histogram | FloatHistogram;

/** A chunk's samples: times (ms) and histograms, in time order; both arrays are the caller's. */
export interface HistogramChunkSamples {
  t: number[];
  h: AnyHistogram[];
}

/** A chunk encoded here; `data` is the caller's. */
export interface EncodedHistogramChunk {
  minT: number;
  maxT: number;
  encoding: number;
  data: Uint8Array;
}

/**
 * Decodes a HISTOGRAM (2) or FLOAT_HISTOGRAM (3) chunk as Prometheus
 * 2.42's iterator reads it (reset hints from the chunk's header and each
 * sample's position); throws a ChunkDecodeError for a malformed one.
 */
export function decodeHistogramChunk(encoding: number, data: Uint8Array): HistogramChunkSamples {
  const codecs = wasmHistogramCodecs();
  let d;
  if (encoding === ENCODING_HISTOGRAM) d = codecs.histogram.decode(data);
  else if (encoding === ENCODING_FLOAT_HISTOGRAM) d = codecs.floatHistogram.decode(data);
  else throw new Error(`chunk encoding ${encoding} is not a histogram encoding (2 or 3)`);
  const t = new Array<number>(d.timestamps.length);
  for (let i = 0; i < t.length; i++) t[i] = Number(d.timestamps[i]!);
  return { t, h: d.histograms };
}

/**
 * Encodes histograms of one kind (`encoding` 2: integer, 3: float), in
 * increasing time order, into chunks as Prometheus' seriesToChunkEncoder
 * cuts them: after 120 samples, and where its histogram appender starts
 * a new chunk (a counter reset, a bucket layout the chunk cannot take,
 * around a stale marker); a chunk whose layout only gains buckets is
 * recoded instead. Each chunk's counter-reset header is decided as the
 * appender decides it: against the chunk before, from the sample's hint
 * for the first (a reset or a gauge; otherwise unknown). Pass samples
 * whose hints are meant (see withoutOverlaps: a sample that does not
 * follow its neighbour in the chunk it came from has hint 0 unless a gauge).
 */
export function encodeHistogramChunks(encoding: number, t: readonly number[], h: readonly AnyHistogram[]): EncodedHistogramChunk[] {
  if (encoding !== ENCODING_HISTOGRAM && encoding !== ENCODING_FLOAT_HISTOGRAM) throw new Error(`chunk encoding ${encoding} is not a histogram encoding (2 or 3)`);
  if (t.length !== h.length) throw new Error(`${t.length} timestamps but ${h.length} histograms`);
  const chunker = new HistogramChunker({ chunkRange: NO_TIME_CUTS, samplesPerChunk: NO_COUNT_CUTS });
  const out: EncodedHistogramChunk[] = [];
  const keep = (c: { minT: number; maxT: number; encoding: number; data: Uint8Array } | undefined): void => {
    if (c !== undefined) out.push({ minT: c.minT, maxT: c.maxT, encoding: c.encoding, data: c.data });
  };
  for (let i = 0; i < t.length; i++) {
    if ((chunker.open?.count ?? 0) >= ENCODED_CHUNK_SAMPLES) keep(chunker.cut());
    const r = encoding === ENCODING_HISTOGRAM ? chunker.appendHistogram(t[i]!, h[i] as Histogram) : chunker.appendFloatHistogram(t[i]!, h[i] as FloatHistogram);
    if (!r.appended) throw new Error(`histogram sample at ${t[i]} ms does not come after the one before`);
    keep(r.closed);
  }
  keep(chunker.cut());
  return out;
}
