/**
 * A selection as the library's async iterator: series from the same
 * decorated source the Store API answers from (external labels, limits),
 * one at a time, each with its samples decoded or its chunks copied.
 */
import { ENCODING_NAMES, ENCODING_XOR, chunkSampleCount, isKnownEncoding, threadCodec } from '../chunkenc/index.js';
import { ByteArena } from '../query/byte-arena.js';
import type { StoredChunk } from '../query/types.js';
import type { SeriesQuery, SeriesSet, StoreSource } from '../store/store-source.js';
import { ClosedError } from './errors.js';
import type { HistogramSample } from './histogram-types.js';
import { labelsObject } from './labels.js';
import { decodeHistogramChunk, isHistogramChunk } from './read-histograms.js';
import type { Chunk, SeriesChunks, SeriesSamples } from './types.js';

const TWO_32 = 4294967296;
/**
 * Series decoded between two yields to the event loop: a selection of
 * many series decodes on the main thread, and other work (listeners,
 * appends) must get turns in between, as the Store API's answer gives
 * them every 128 series.
 */
const SERIES_PER_TURN = 128;

/** The reads a store has running: closed with the store. */
export interface OpenReads {
  /** Whether the store is closed or closing. */
  closed(): boolean;
  /** Registers a read's set until `release`; the store closes it on close(). */
  add(set: SeriesSet): () => void;
}

/**
 * Reads `query` from `source`; with `chunks`, chunks as stored (copied),
 * otherwise samples in [minT, maxT]. The source's set is opened on the
 * first next() and closed however the iteration ends (exhausted, broken
 * out of, failed, or the store closed).
 */
export async function* readSeries(
  source: StoreSource, query: SeriesQuery, chunks: boolean, reads: OpenReads,
): AsyncGenerator<SeriesSamples | SeriesChunks, void, undefined> {
  if (reads.closed()) throw new ClosedError();
  const set = source.series(query);
  const release = reads.add(set);
  try {
    let arena = new ByteArena();
    let n = 0;
    for (let batch = await set.next(); batch !== undefined; batch = await set.next()) {
      for (const s of batch) {
        if (reads.closed()) throw new ClosedError();
        const stored = set.chunks(s, arena);
        if (stored.length === 0) continue;
        const labels = labelsObject(s.labels);
        if (chunks) {
          yield { labels, chunks: stored.map(copyChunk) };
        } else {
          const samples = decodeSamples(stored, query.minT, query.maxT);
          if (samples.timestamps.length > 0 || samples.histograms !== undefined) yield { labels, ...samples };
        }
        if (++n % SERIES_PER_TURN === 0) {
          arena = new ByteArena();
          await new Promise((r) => setImmediate(r));
        }
      }
    }
  } finally {
    release();
    set.close();
  }
}

function copyChunk(c: StoredChunk): Chunk {
  return { minTime: c.minT, maxTime: c.maxT, encoding: encodingOf(c), data: new Uint8Array(c.data) };
}

/** Prometheus' name of a stored chunk's encoding (chunkenc.Encoding's String()); absent, or one we do not know, reads as XOR. */
function encodingOf(c: StoredChunk): Chunk['encoding'] {
  const e = c.encoding ?? ENCODING_XOR;
  return ENCODING_NAMES[isKnownEncoding(e) ? e : ENCODING_XOR];
}

/**
 * The samples of a series' chunks (in time order, none overlapping) within
 * [minT, maxT]: floats from XOR chunks, native histograms from histogram
 * chunks (`histograms` absent when there are none). Timestamps are read
 * through 32-bit halves (a BigInt per sample otherwise) and value bits
 * copied as bytes (NaN payloads survive).
 */
function decodeSamples(chunks: readonly StoredChunk[], minT: number, maxT: number): Pick<SeriesSamples, 'timestamps' | 'values' | 'histograms'> {
  let total = 0;
  for (const c of chunks) if (!isHistogramChunk(c)) total += chunkSampleCount(c.data);
  const timestamps = new Float64Array(total);
  const values = new Float64Array(total);
  const valueBytes = new Uint8Array(values.buffer);
  const codec = threadCodec();
  let histograms: HistogramSample[] | undefined;
  let m = 0;
  for (const c of chunks) {
    if (isHistogramChunk(c)) {
      decodeHistogramChunk(c, minT, maxT, (histograms ??= []));
      continue;
    }
    const s = codec.decode(c.data);
    const n = s.timestamps.length;
    const lo = new Uint32Array(s.timestamps.buffer, s.timestamps.byteOffset, n * 2);
    const hi = new Int32Array(s.timestamps.buffer, s.timestamps.byteOffset, n * 2);
    const bits = new Uint8Array(s.values.buffer, s.values.byteOffset, n * 8);
    for (let k = 0; k < n; k++) {
      const t = hi[2 * k + 1]! * TWO_32 + lo[2 * k]!;
      if (t < minT || t > maxT) continue;
      timestamps[m] = t;
      for (let b = 0; b < 8; b++) valueBytes[m * 8 + b] = bits[k * 8 + b]!;
      m++;
    }
  }
  const floats = m === total ? { timestamps, values } : { timestamps: timestamps.slice(0, m), values: values.slice(0, m) };
  return histograms === undefined || histograms.length === 0 ? floats : { ...floats, histograms };
}
