import { ENCODING_FLOAT_HISTOGRAM, ENCODING_HISTOGRAM } from '../encoding.js';
import { ChunkEncodeError } from '../errors.js';
import type { CounterResetHeader, DecodedHistogramChunk, HistogramChunkCodec } from './codec.js';
import { headerFromHint } from './samples.js';
import { TsFloatHistogramAppender, TsHistogramAppender } from './ts-appender.js';
import { decodeHistogramChunk } from './ts-decode.js';
import type { FloatHistogram, Histogram } from './types.js';

// The TypeScript oracle of the histogram chunk codecs: the reference the
// WebAssembly codec is tested against, and the baseline of its benchmark.
// It follows Prometheus 2.42's Go code field by field (ts-appender.ts,
// ts-decode.ts) in BigInt arithmetic, so it is exact for every
// int64 timestamp and slow.

function encodeWith<H extends Histogram | FloatHistogram>(
  app: TsHistogramAppender | TsFloatHistogramAppender,
  timestamps: BigInt64Array, histograms: readonly H[], header: CounterResetHeader | undefined,
): Uint8Array {
  if (timestamps.length !== histograms.length) {
    throw new ChunkEncodeError(`${timestamps.length} timestamps but ${histograms.length} histograms`);
  }
  app.reset(header ?? headerFromHint(histograms[0]?.counterResetHint));
  for (let i = 0; i < histograms.length; i++) (app as TsHistogramAppender).appendT(timestamps[i]!, histograms[i]!);
  return app.bytes();
}

/**
 * Integer histogram chunks (encoding 2) in TypeScript.
 *
 * @example
 * const codec = new TsHistogramCodec();
 * const chunk = codec.encode(BigInt64Array.of(1000n), [h]);
 * const { timestamps, histograms, header } = codec.decode(chunk);
 */
export class TsHistogramCodec implements HistogramChunkCodec<Histogram> {
  readonly name = 'ts';
  readonly encoding = ENCODING_HISTOGRAM;

  encode(timestamps: BigInt64Array, histograms: readonly Histogram[], header?: CounterResetHeader): Uint8Array {
    return encodeWith(new TsHistogramAppender(), timestamps, histograms, header);
  }

  decode(chunk: Uint8Array): DecodedHistogramChunk<Histogram> {
    return decodeHistogramChunk(chunk, false);
  }
}

/** Float histogram chunks (encoding 3) in TypeScript. Same contract as TsHistogramCodec. */
export class TsFloatHistogramCodec implements HistogramChunkCodec<FloatHistogram> {
  readonly name = 'ts';
  readonly encoding = ENCODING_FLOAT_HISTOGRAM;

  encode(timestamps: BigInt64Array, histograms: readonly FloatHistogram[], header?: CounterResetHeader): Uint8Array {
    return encodeWith(new TsFloatHistogramAppender(), timestamps, histograms, header);
  }

  decode(chunk: Uint8Array): DecodedHistogramChunk<FloatHistogram> {
    return decodeHistogramChunk(chunk, true);
  }
}
