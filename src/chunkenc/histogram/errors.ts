import { ChunkDecodeError } from '../errors.js';
import { HIST_ERR } from '../../wasm/layout.js';

/** The ways a histogram chunk fails to decode, shared by both decoders. */
export type HistogramDecodeFailure =
  | 'too-short' | 'truncated' | 'bad-xor-window' | 'trailing-bytes' | 'too-many-samples' | 'bad-layout' | 'unsupported-schema';

const details: Record<HistogramDecodeFailure, string> = {
  'too-short': 'shorter than its 3-byte header',
  truncated: 'ends before its last sample',
  'bad-xor-window': 'an XOR window is impossible (leading + significant bits > 64)',
  'trailing-bytes': 'has bytes after its last sample (sample count too small?)',
  'too-many-samples': 'holds more than the output has room for',
  'bad-layout': 'its layout promises more spans or buckets than the chunk can hold',
  'unsupported-schema': 'uses the custom-buckets schema (-53), which this decoder does not read',
};

/** Error codes of assembly/histogram.ts. */
const codes: Record<number, HistogramDecodeFailure> = {
  [HIST_ERR.tooShort]: 'too-short',
  [HIST_ERR.truncated]: 'truncated',
  [HIST_ERR.badWindow]: 'bad-xor-window',
  [HIST_ERR.trailing]: 'trailing-bytes',
  [HIST_ERR.tooMany]: 'too-many-samples',
  [HIST_ERR.badLayout]: 'bad-layout',
  [HIST_ERR.schema]: 'unsupported-schema',
};

/** A ChunkDecodeError for a `kind` ('histogram' or 'float histogram') chunk. */
export function histogramDecodeError(reason: HistogramDecodeFailure, sampleIndex: number, kind: string): ChunkDecodeError {
  return new ChunkDecodeError(reason, sampleIndex, details[reason], kind);
}

/** Maps a negative result of the wasm decoder to a ChunkDecodeError. */
export function wasmHistogramDecodeError(code: number, sampleIndex: number, kind: string): ChunkDecodeError {
  const reason = codes[code];
  if (reason === undefined) return new ChunkDecodeError('truncated', sampleIndex, `unknown decoder error ${code}`, kind);
  return histogramDecodeError(reason, sampleIndex, kind);
}
