/**
 * Native histograms as the library takes and gives them: Prometheus'
 * model/histogram shapes (Histogram with bucket deltas, FloatHistogram
 * with absolute counts), defined once with the codecs
 * (src/chunkenc/histogram/types.ts) and handed over as they are, and the
 * sample the API carries them in.
 */
import type { FloatHistogram, Histogram } from '../chunkenc/histogram/types.js';

export type { CounterResetHint, FloatHistogram, Histogram, Span } from '../chunkenc/histogram/types.js';

/**
 * One native histogram sample at `timestamp` (whole milliseconds).
 * Histogram and FloatHistogram have the same shape, so `float` says which
 * it is, always: `false` for an integer histogram (bucket deltas), `true`
 * for a float one (absolute counts). The same shape goes in (append) and
 * comes out (select), so what is selected can be appended elsewhere as it
 * is.
 *
 * @example
 * const samples: HistogramSample[] = [
 *   { timestamp: 1000, float: false, histogram: h },
 *   { timestamp: 2000, float: true, histogram: f },
 * ];
 * for (const s of samples) if (!s.float) console.log(s.histogram.positiveBuckets); // deltas
 */
export type HistogramSample =
  | { timestamp: number; float: false; histogram: Histogram }
  | { timestamp: number; float: true; histogram: FloatHistogram };
