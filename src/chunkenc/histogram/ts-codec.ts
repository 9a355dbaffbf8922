import { ENCODING_FLOAT_HISTOGRAM, ENCODING_HISTOGRAM, type HistogramEncoding } from '../encoding.js';
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

/** What both encodings' oracles share: all but the encoding. */
abstract class TsCodec<H extends Histogram | FloatHistogram> implements HistogramChunkCodec<H> {
  readonly name = 'ts';
  abstract readonly encoding: HistogramEncoding;

  encode(timestamps: BigInt64Array, histograms: readonly H[], header?: CounterResetHeader): Uint8Array {
    if (timestamps.length !== histograms.length) {
      throw new ChunkEncodeError(`${timestamps.length} timestamps but ${histograms.length} histograms`);
    }
    const app = this.encoding === ENCODING_HISTOGRAM ? new TsHistogramAppender() : new TsFloatHistogramAppender();
    app.reset(header ?? headerFromHint(histograms[0]?.counterResetHint));
    for (let i = 0; i < histograms.length; i++) (app as TsHistogramAppender).appendT(timestamps[i]!, histograms[i]!);
    return app.bytes();
  }

  decode(chunk: Uint8Array): DecodedHistogramChunk<H> {
    // Histogram and FloatHistogram are the same shape: the decoder builds either.
    return decodeHistogramChunk(chunk, this.encoding === ENCODING_FLOAT_HISTOGRAM) as DecodedHistogramChunk<H>;
  }
}

/**
 * Integer histogram chunks (encoding 2) in TypeScript.
 *
 * @example
 * const codec = new TsHistogramCodec();
 * const chunk = codec.encode(BigInt64Array.of(1000n), [h]);
 * const { timestamps, histograms, header } = codec.decode(chunk);
 */
export class TsHistogramCodec extends TsCodec<Histogram> {
  readonly encoding = ENCODING_HISTOGRAM;
}

/** Float histogram chunks (encoding 3) in TypeScript. Same contract as TsHistogramCodec. */
export class TsFloatHistogramCodec extends TsCodec<FloatHistogram> {
  readonly encoding = ENCODING_FLOAT_HISTOGRAM;
}
