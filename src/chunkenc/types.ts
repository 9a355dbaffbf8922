/**
 * Samples of one series, column-wise. `timestamps[i]` (int64 ms since the
 * Unix epoch) belongs to `values[i]`. Values are carried as raw float64 bit
 * patterns in the typed array's buffer, so NaN payloads such as Prometheus'
 * stale marker (0x7ff0000000000002) survive; never copy them through plain
 * numbers held in JS arrays or objects.
 */
export interface Samples {
  timestamps: BigInt64Array;
  values: Float64Array;
}

/**
 * An XOR chunk codec (Prometheus chunk encoding 1). Every implementation
 * produces and accepts the same bytes as Prometheus, byte for byte.
 */
export interface XorCodec {
  readonly name: string;
  /**
   * Encodes samples, in the order given, as one chunk. Timestamps are not
   * required to increase (Prometheus' appender does not check either).
   * Throws a ChunkEncodeError past 65535 samples (the 16-bit count).
   * The returned bytes are owned by the caller.
   */
  encode(timestamps: BigInt64Array, values: Float64Array): Uint8Array;
  /**
   * Decodes a whole chunk. Throws a ChunkDecodeError naming what is wrong
   * for bytes that are not a valid chunk; never reads outside `chunk`.
   * The returned arrays are owned by the caller.
   */
  decode(chunk: Uint8Array): Samples;
}
