/** Reasons a chunk fails to decode; stable strings, usable in tests and logs. */
export type ChunkDecodeReason =
  | 'too-short'
  | 'truncated'
  | 'bad-xor-window'
  | 'trailing-bytes'
  | 'too-many-samples'
  | 'bad-varint';

/** Thrown when bytes are not a valid XOR chunk. */
export class ChunkDecodeError extends Error {
  override readonly name = 'ChunkDecodeError';
  constructor(
    readonly reason: ChunkDecodeReason,
    /** Index of the sample being read when decoding failed. */
    readonly sampleIndex: number,
    detail: string,
  ) {
    super(`invalid XOR chunk: ${detail} (at sample ${sampleIndex})`);
  }
}

/** Thrown when samples cannot be appended to a chunk. */
export class ChunkEncodeError extends Error {
  override readonly name = 'ChunkEncodeError';
}

export function chunkFull(max: number): ChunkEncodeError {
  return new ChunkEncodeError(`XOR chunk is full: at most ${max} samples fit its 16-bit count`);
}
