import { ENCODING_HISTOGRAM, type HistogramEncoding } from '../encoding.js';
import type { HistogramChunkAppender, HistogramChunkCodec } from './codec.js';
import { TsFloatHistogramAppender, TsHistogramAppender } from './ts-appender.js';
import { TsFloatHistogramCodec, TsHistogramCodec } from './ts-codec.js';
import type { FloatHistogram, Histogram } from './types.js';
import { WasmFloatHistogramAppender, WasmHistogramAppender } from './wasm-appender.js';
import { WasmFloatHistogramCodec, WasmHistogramCodec } from './wasm-codec.js';

/** Both histogram encodings of one implementation: what the chunker and the conformance suites take. */
export interface HistogramCodecSet {
  readonly name: string;
  readonly histogram: HistogramChunkCodec<Histogram>;
  readonly floatHistogram: HistogramChunkCodec<FloatHistogram>;
  /** A new appender for encoding 2 (integer) or 3 (float). */
  appender(encoding: HistogramEncoding): HistogramChunkAppender<Histogram | FloatHistogram>;
}

let wasmSet: HistogramCodecSet | undefined;

/** The WebAssembly implementation on this thread's module (created on first use). */
export function wasmHistogramCodecs(): HistogramCodecSet {
  wasmSet ??= {
    name: 'wasm',
    histogram: new WasmHistogramCodec(),
    floatHistogram: new WasmFloatHistogramCodec(),
    appender: (encoding) => (encoding === ENCODING_HISTOGRAM ? new WasmHistogramAppender() : new WasmFloatHistogramAppender()),
  };
  return wasmSet;
}

/** The TypeScript oracle. */
export const tsHistogramCodecs: HistogramCodecSet = {
  name: 'ts',
  histogram: new TsHistogramCodec(),
  floatHistogram: new TsFloatHistogramCodec(),
  appender: (encoding) => (encoding === ENCODING_HISTOGRAM ? new TsHistogramAppender() : new TsFloatHistogramAppender()),
};

/** Every implementation, for conformance suites. */
export function histogramCodecSets(): readonly HistogramCodecSet[] {
  return [wasmHistogramCodecs(), tsHistogramCodecs];
}
