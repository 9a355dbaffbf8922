/** The errors of every chunk codec, whatever the encoding (xor/errors.ts and histogram/errors.ts make them). */

/** Reasons a chunk fails to decode; stable strings, usable in tests and logs. */
export type ChunkDecodeReason =
  | 'too-short'
  | 'truncated'
  | 'bad-xor-window'
  | 'trailing-bytes'
  | 'too-many-samples'
  | 'bad-varint'
  /** Histogram chunks: the layout promises more spans or buckets than the chunk can hold. */
  | 'bad-layout'
  /** Histogram chunks: a schema this decoder does not read (custom buckets, -53). */
  | 'unsupported-schema';

/** Thrown when bytes are not a valid chunk (XOR unless `kind` says otherwise). */
export class ChunkDecodeError extends Error {
  override readonly name = 'ChunkDecodeError';
  constructor(
    readonly reason: ChunkDecodeReason,
    /** Index of the sample being read when decoding failed. */
    readonly sampleIndex: number,
    detail: string,
    /** The chunk's kind as named in the message: 'XOR', 'histogram', 'float histogram'. */
    kind = 'XOR',
  ) {
    super(`invalid ${kind} chunk: ${detail} (at sample ${sampleIndex})`);
  }
}

/** Thrown when samples cannot be appended to a chunk. */
export class ChunkEncodeError extends Error {
  override readonly name = 'ChunkEncodeError';
}
