/**
 * The batch builders one remote-write request fills, kept per thread from
 * one request to the next (parsing is synchronous, so one set per thread
 * is enough), unless one huge request grew a builder past its keep size.
 */
import { roundedSize } from '../pool/spare-buffers.js';
import type { HeadWasm } from '../wasm/head.js';
import { AppendBatchBuilder } from './append-batch.js';
import { ExemplarBatchBuilder } from './exemplar-batch.js';
import { HistogramBatchBuilder } from './histogram-batch.js';

/** Builders above these many bytes are dropped after use rather than kept for the next request. */
const KEEP_BYTES = 16 * 1024 * 1024;
const KEEP_EXEMPLAR_BYTES = 4 * 1024 * 1024;

/**
 * A new buffer for a request's append batch, rounded up so that, given
 * back as a spare (src/pool/spare-buffers.ts), it serves later requests.
 */
export const allocateBatch = (size: number): ArrayBuffer => new ArrayBuffer(roundedSize(size));

export interface RequestBuilders {
  samples: AppendBatchBuilder;
  histograms: HistogramBatchBuilder;
  exemplars: ExemplarBatchBuilder;
}

let samples: AppendBatchBuilder | undefined;
let histograms: HistogramBatchBuilder | undefined;
let exemplars: ExemplarBatchBuilder | undefined;

/** This thread's builders, emptied, hashing with `wasm`; give them back with releaseRequestBuilders(). */
export function takeRequestBuilders(wasm: HeadWasm): RequestBuilders {
  const b = {
    samples: samples?.wasm === wasm ? samples : new AppendBatchBuilder(wasm),
    histograms: histograms?.wasm === wasm ? histograms : new HistogramBatchBuilder(wasm),
    exemplars: exemplars ?? new ExemplarBatchBuilder(),
  };
  samples = undefined;
  histograms = undefined;
  exemplars = undefined;
  b.samples.reset();
  b.histograms.reset();
  b.exemplars.reset();
  return b;
}

/** Keeps the builders for the next request, each unless it grew past its keep size. */
export function releaseRequestBuilders(b: RequestBuilders): void {
  if (b.samples.capacityBytes <= KEEP_BYTES) samples = b.samples;
  if (b.histograms.capacityBytes <= KEEP_BYTES) histograms = b.histograms;
  if (b.exemplars.capacityBytes <= KEEP_EXEMPLAR_BYTES) exemplars = b.exemplars;
}
