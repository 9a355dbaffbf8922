/**
 * SAMPLES answers of remote read, the event loop's half: the chunks the
 * queries selected are copied into a plan (src/remote-read/samples-encoding.ts
 * says what the answer is), which a pool worker decodes, encodes and
 * snappy-compresses (src/remote-read/samples-task.ts).
 */
import { ENCODING_XOR, chunkSampleCount } from '../../chunkenc/index.js';
import { packChunkBatch } from '../../pool/batches.js';
import type { SamplesPlan } from '../../remote-read/samples-encoding.js';
import { encodeLabels } from '../../store/series-frames.js';
import type { QuerySelection } from './read-select.js';

/** Samples the chunks of `selections` hold, by their headers (the range may answer fewer; histogram chunks count theirs the same way). */
export function countSamples(selections: readonly QuerySelection[]): number {
  let n = 0;
  for (const q of selections) for (const s of q.series) for (const c of s.chunks) n += chunkSampleCount(c.data);
  return n;
}

/** Copies what the answer to `selections` needs into a plan. Synchronous: chunk views are read here and not kept. */
export function planSamples(selections: readonly QuerySelection[]): SamplesPlan {
  let seriesCount = 0;
  for (const q of selections) seriesCount += q.series.length;
  const querySeries = new Uint32Array(selections.length + 1);
  const seriesChunks = new Uint32Array(seriesCount + 1);
  const labelOffsets = new Uint32Array(seriesCount + 1);
  const ranges = new Float64Array(selections.length * 2);
  const chunks: Uint8Array[] = [];
  const encodings: number[] = [];
  const labelParts: Uint8Array[] = [];
  let s = 0;
  selections.forEach((q, qi) => {
    ranges[qi * 2] = q.start;
    ranges[qi * 2 + 1] = q.end;
    for (const series of q.series) {
      const labels = encodeLabels(series.labels);
      labelParts.push(labels);
      labelOffsets[s + 1] = labelOffsets[s]! + labels.length;
      for (const c of series.chunks) {
        chunks.push(c.data);
        encodings.push(c.encoding ?? ENCODING_XOR); // a stored chunk without an encoding is XOR
      }
      seriesChunks[s + 1] = chunks.length;
      s++;
    }
    querySeries[qi + 1] = s;
  });
  const labels = new Uint8Array(labelOffsets[seriesCount]!);
  labelParts.forEach((l, i) => labels.set(l, labelOffsets[i]!));
  return { chunks: packChunkBatch(chunks), encodings: Uint8Array.from(encodings), labels, labelOffsets, seriesChunks, querySeries, ranges };
}
