/**
 * The XOR codecs' errors: the WebAssembly decoder's error codes and the
 * messages both codecs give for each reason (histogram/errors.ts is the
 * histogram codecs' twin).
 */
import { ChunkDecodeError, ChunkEncodeError, type ChunkDecodeReason } from '../errors.js';
import { XOR_ERR } from '../../wasm/layout.js';

/** Error codes of assembly/xor.ts, with what each means to a reader. */
const wasmErrors: Record<number, [ChunkDecodeReason, string]> = {
  [XOR_ERR.tooShort]: ['too-short', 'shorter than its 2-byte sample count'],
  [XOR_ERR.truncated]: ['truncated', 'ends before its last sample'],
  [XOR_ERR.badWindow]: ['bad-xor-window', 'value XOR window is impossible'],
  [XOR_ERR.trailing]: ['trailing-bytes', 'has bytes after its last sample (sample count too small?)'],
  [XOR_ERR.tooMany]: ['too-many-samples', 'holds more samples than the output has room for'],
  [XOR_ERR.badVarint]: ['bad-varint', 'timestamp varint overflows 64 bits'],
};

/** Maps a negative result of the wasm decoder to a ChunkDecodeError. */
export function wasmDecodeError(code: number, sampleIndex: number): ChunkDecodeError {
  const known = wasmErrors[code];
  if (known === undefined) return new ChunkDecodeError('truncated', sampleIndex, `unknown decoder error ${code}`);
  return new ChunkDecodeError(known[0], sampleIndex, known[1]);
}

/** A ChunkDecodeError for `reason`, as the TypeScript decoder finds it. */
export function decodeError(reason: ChunkDecodeReason, sampleIndex: number): ChunkDecodeError {
  const known = Object.values(wasmErrors).find(([r]) => r === reason);
  return new ChunkDecodeError(reason, sampleIndex, known?.[1] ?? reason);
}

/** Thrown when samples would pass the `max` a chunk's 16-bit count holds. */
export function chunkFull(max: number): ChunkEncodeError {
  return new ChunkEncodeError(`XOR chunk is full: at most ${max} samples fit its 16-bit count`);
}
