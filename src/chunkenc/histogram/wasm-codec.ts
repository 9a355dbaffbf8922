import { ENCODING_FLOAT_HISTOGRAM, ENCODING_HISTOGRAM, type HistogramEncoding } from '../encoding.js';
import { ChunkEncodeError } from '../errors.js';
import { checkSample, isStaleNaN, layoutOf, type ChunkLayout } from './check.js';
import type { CounterResetHeader, DecodedHistogramChunk, HistogramChunkCodec } from './codec.js';
import { wasmHistogramDecodeError } from './errors.js';
import { counterResetHint, headerFromHint, staleHistogram } from './samples.js';
import { countSpans } from './spans.js';
import type { FloatHistogram, Histogram } from './types.js';
import {
  BUCKETS_SLOT, COUNT_SLOT, SUM_SLOT, T_SLOT, ZERO_COUNT_SLOT,
  getNumbers, getSpans, isStaleRecord, layoutBytes, layoutChunkBytes, putLayout, putSample,
} from './wasm-io.js';
import { threadHistogramWasm, type HistogramWasm } from '../../wasm/histogram.js';
import { HIST, HIST_FIELD, HIST_SAMPLE, HIST_SPAN } from '../../wasm/layout.js';

// The histogram chunk codecs in WebAssembly (assembly/histogram.ts): one
// call appends a whole batch of samples or decodes a whole chunk. Samples
// cross into module memory as flat records (wasm-io.ts).

/** Checks a batch against the encode contract; returns the chunk's layout (undefined when empty). */
function checkBatch(histograms: readonly (Histogram | FloatHistogram)[]): ChunkLayout | undefined {
  if (histograms.length === 0) return undefined;
  const layout = layoutOf(histograms[0]!);
  let stale = false;
  for (let i = 0; i < histograms.length; i++) {
    const h = histograms[i]!;
    // Integers are checked by the module, in the same order of samples.
    checkSample(h, i, i === 0 ? undefined : layout, stale, false);
    stale = isStaleNaN(h.sum);
  }
  return layout;
}

/** Encodes a batch as one chunk in module memory; returns a copy of its bytes. */
export function wasmEncode(
  hw: HistogramWasm, float: boolean, timestamps: BigInt64Array,
  histograms: readonly (Histogram | FloatHistogram)[], header: CounterResetHeader,
): Uint8Array {
  const n = histograms.length;
  if (timestamps.length !== n) throw new ChunkEncodeError(`${timestamps.length} timestamps but ${n} histograms`);
  const layout = checkBatch(histograms);
  const spans = layout === undefined ? 0 : layout.positiveSpans.length + layout.negativeSpans.length;
  const nb = layout === undefined ? 0 : countSpans(layout.positiveSpans) + countSpans(layout.negativeSpans);
  const stride = HIST_SAMPLE.fixed + nb * HIST_SAMPLE.bucketBytes;
  const cap = 3 + layoutChunkBytes(spans) + n * (HIST.MAX_FIXED_BYTES + nb * HIST.MAX_BUCKET_BYTES) + HIST.SLACK_BYTES + 8;
  const { fns, state } = hw;
  const buf = hw.chunk.ensure(cap);
  const buckets = hw.buckets.ensure(nb * HIST.BUCKET_STATE_SIZE + 16);
  const input = hw.samples.ensure(n * stride + 16);
  const lay = hw.layout.ensure(layoutBytes(spans));
  fns.histAppenderInit(state, buf);
  if (layout !== undefined) {
    putLayout(hw.mem.f64(), hw.mem.i32(), lay, layout);
    fns.histWriteLayout(state, buf, lay, layout.positiveSpans.length, layout.negativeSpans.length);
    const f64 = hw.mem.f64();
    const i32 = hw.mem.i32();
    const tsWords = new Int32Array(timestamps.buffer, timestamps.byteOffset, n * 2);
    for (let i = 0; i < n; i++) {
      const h = histograms[i]!;
      putSample(f64, i32, input + i * stride, i, tsWords, h, isStaleNaN(h.sum));
    }
  }
  const got = float
    ? fns.histAppendFloat(state, buckets, buf, cap, input, n)
    : fns.histAppendInt(state, buckets, buf, cap, input, n);
  if (got < 0) throw badInteger(-got - HIST.ENCODE_BAD_INT);
  if (got !== n) throw new Error(`histogram encoder appended ${got} of ${n} samples: capacity bound broken`);
  const len = fns.histAppenderBytes(state);
  const out = hw.mem.u8().slice(buf, buf + len);
  out[0] = n >>> 8;
  out[1] = n & 0xff;
  out[2] = (out[2]! & 0b00111111) | (header << 6);
  return out;
}

/** The error for a sample the module refused (histAppendInt's check). */
export function badInteger(index: number): ChunkEncodeError {
  return new ChunkEncodeError(`histogram chunk: sample ${index} has a count, zero count or bucket delta that is not an integer within ±2^53 (counts non-negative)`);
}

/** Decodes a whole chunk through module memory. */
export function wasmDecode(hw: HistogramWasm, float: boolean, chunk: Uint8Array): DecodedHistogramChunk<Histogram> {
  const kind = float ? 'float histogram' : 'histogram';
  const { fns, state } = hw;
  const len = chunk.length;
  const buf = hw.chunk.ensure(len + HIST.SLACK_BYTES);
  hw.mem.u8().set(chunk, buf);
  const count = fns.histDecodeInit(state, buf, len, float ? 1 : 0);
  if (count < 0) throw wasmHistogramDecodeError(count, 0, kind);
  const header = fns.histDecodeField(state, HIST_FIELD.HEADER) as CounterResetHeader;
  const timestamps = new BigInt64Array(count);
  const histograms: Histogram[] = [];
  if (count === 0) return { timestamps, histograms, header };
  const nPosSpans = fns.histDecodeField(state, HIST_FIELD.POS_SPANS);
  const nNegSpans = fns.histDecodeField(state, HIST_FIELD.NEG_SPANS);
  const numP = fns.histDecodeField(state, HIST_FIELD.NUM_POS);
  const numN = fns.histDecodeField(state, HIST_FIELD.NUM_NEG);
  const nb = numP + numN;
  // Every bucket value of a sample takes at least one bit of the chunk; stale markers carry none.
  const cap = count * HIST_SAMPLE.fixed + Math.min(len * 8, count * nb) * HIST_SAMPLE.bucketBytes + 64;
  const spansAt = hw.layout.ensure((nPosSpans + nNegSpans) * HIST_SPAN.size + 8);
  const buckets = hw.buckets.ensure(nb * HIST.BUCKET_STATE_SIZE + 16);
  const out = hw.samples.ensure(cap);
  fns.histDecodeSpans(state, buf, len, spansAt);
  const got = fns.histDecode(state, buckets, buf, len, out, cap, float ? 1 : 0);
  if (got < 0) throw wasmHistogramDecodeError(got, fns.histDecodeIndex(state), kind);
  const f64 = hw.mem.f64();
  const i32 = hw.mem.i32();
  const positiveSpans = getSpans(i32, spansAt, nPosSpans);
  const negativeSpans = getSpans(i32, spansAt + nPosSpans * HIST_SPAN.size, nNegSpans);
  const schema = fns.histDecodeField(state, HIST_FIELD.SCHEMA);
  const zeroThreshold = f64[(state + HIST.STATE_ZT) >>> 3]!;
  const tsWords = new Int32Array(timestamps.buffer);
  let at = out >>> 3;
  for (let i = 0; i < count; i++) {
    tsWords[i * 2] = i32[(at + T_SLOT) * 2]!;
    tsWords[i * 2 + 1] = i32[(at + T_SLOT) * 2 + 1]!;
    if (isStaleRecord(i32, at)) {
      histograms.push(staleHistogram(f64[at + SUM_SLOT]!));
      at += BUCKETS_SLOT; // the record ends where its buckets would start
      continue;
    }
    histograms.push({
      counterResetHint: counterResetHint(header, i + 1),
      schema,
      zeroThreshold,
      zeroCount: f64[at + ZERO_COUNT_SLOT]!,
      count: f64[at + COUNT_SLOT]!,
      sum: f64[at + SUM_SLOT]!,
      positiveSpans: positiveSpans.map((s) => ({ offset: s.offset, length: s.length })),
      negativeSpans: negativeSpans.map((s) => ({ offset: s.offset, length: s.length })),
      positiveBuckets: getNumbers(f64, at + BUCKETS_SLOT, numP),
      negativeBuckets: getNumbers(f64, at + BUCKETS_SLOT + numP, numN),
    });
    at += BUCKETS_SLOT + nb;
  }
  return { timestamps, histograms, header };
}

/** What both encodings' codecs share: all but the encoding. */
abstract class WasmCodec<H extends Histogram | FloatHistogram> implements HistogramChunkCodec<H> {
  readonly name = 'wasm';
  abstract readonly encoding: HistogramEncoding;

  constructor(readonly hw: HistogramWasm = threadHistogramWasm()) {}

  encode(timestamps: BigInt64Array, histograms: readonly H[], header?: CounterResetHeader): Uint8Array {
    const float = this.encoding === ENCODING_FLOAT_HISTOGRAM;
    return wasmEncode(this.hw, float, timestamps, histograms, header ?? headerFromHint(histograms[0]?.counterResetHint));
  }

  decode(chunk: Uint8Array): DecodedHistogramChunk<H> {
    // Histogram and FloatHistogram are the same shape: the decoder builds either.
    return wasmDecode(this.hw, this.encoding === ENCODING_FLOAT_HISTOGRAM, chunk) as DecodedHistogramChunk<H>;
  }
}

/**
 * Integer histogram chunks (encoding 2) in WebAssembly. Instances share
 * this thread's module (threadHistogramWasm) unless given one; not for
 * use across threads.
 *
 * @example
 * const codec = new WasmHistogramCodec();
 * const chunk = codec.encode(BigInt64Array.of(1000n, 16000n), [h1, h2]);
 * codec.decode(chunk).histograms; // [h1, h2] as Prometheus' iterator reports them
 */
export class WasmHistogramCodec extends WasmCodec<Histogram> {
  readonly encoding = ENCODING_HISTOGRAM;
}

/** Float histogram chunks (encoding 3) in WebAssembly. Same contract as WasmHistogramCodec. */
export class WasmFloatHistogramCodec extends WasmCodec<FloatHistogram> {
  readonly encoding = ENCODING_FLOAT_HISTOGRAM;
}
