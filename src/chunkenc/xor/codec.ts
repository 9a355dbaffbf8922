/**
 * The XOR chunk (Prometheus chunk encoding 1, tsdb/chunkenc/xor.go): the
 * chunk contract (../chunk.ts) for float samples. Format:
 * docs/format/xor-chunk.md.
 */
import type { ChunkCodec, DecodedChunk } from '../chunk.js';
import type { ENCODING_XOR } from '../encoding.js';

/**
 * Samples of one series, column-wise. `timestamps[i]` (int64 ms since the
 * Unix epoch) belongs to `values[i]`. Values are carried as raw float64 bit
 * patterns in the typed array's buffer, so NaN payloads such as Prometheus'
 * stale marker (0x7ff0000000000002) survive; never copy them through plain
 * numbers held in JS arrays or objects.
 */
export interface Samples extends DecodedChunk {
  timestamps: BigInt64Array;
  values: Float64Array;
}

/**
 * An XOR chunk codec. Every implementation produces and accepts the same
 * bytes as Prometheus, byte for byte. `encode` throws a RangeError when
 * the columns' lengths differ and a ChunkEncodeError past 65535 samples;
 * a decoded chunk's arrays are the caller's.
 */
export type XorCodec = ChunkCodec<typeof ENCODING_XOR, Float64Array, Samples>;
