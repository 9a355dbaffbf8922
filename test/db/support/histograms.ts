// Native histogram samples for engine tests: made deterministically,
// written through HistogramBatchBuilder, read back by decoding the chunks
// the engine answers (the histogram codec), compared by what they mean.
import { wasmHistogramCodecs } from '../../../src/chunkenc/histogram/impl.js';
import type { FloatHistogram, Histogram } from '../../../src/chunkenc/histogram/types.js';
import type { Db } from '../../../src/db/db.js';
import { HistogramBatchBuilder } from '../../../src/record/histogram-batch.js';
import { instantiateHeadWasm, type HeadWasm } from '../../../src/wasm/head.js';
import { MatchType } from '../../../src/index/types.js';
import type { StoredChunk } from '../../../src/query/types.js';

let wasm: HeadWasm | undefined;

/** A histogram batch builder on its own module instance (as a pool worker has). */
export function histogramBuilder(tenant?: readonly [string, string]): HistogramBatchBuilder {
  wasm ??= instantiateHeadWasm();
  return new HistogramBatchBuilder(wasm, tenant);
}

/**
 * The i-th integer histogram of a growing counter: schema 0, three then
 * (from i = 5) four positive buckets (a layout change), one negative one,
 * counts growing with i; reset to small counts at i = `resetAt`.
 */
export function counterHistogram(i: number, resetAt = Infinity): Histogram {
  const k = i >= resetAt ? i - resetAt : i;
  const wide = i >= 5;
  const pos = wide ? [k + 1, 2 * k + 1, k, 3] : [k + 1, 2 * k + 1, k];
  const neg = [k];
  const toDeltas = (c: number[]): number[] => c.map((x, j) => x - (j === 0 ? 0 : c[j - 1]!));
  const zero = k;
  const count = zero + pos.reduce((a, b) => a + b, 0) + neg.reduce((a, b) => a + b, 0);
  return {
    counterResetHint: 0, schema: 0, zeroThreshold: 1e-128, zeroCount: zero, count, sum: count * 1.5,
    positiveSpans: wide ? [{ offset: 0, length: 3 }, { offset: 2, length: 1 }] : [{ offset: 0, length: 3 }],
    negativeSpans: [{ offset: 1, length: 1 }],
    positiveBuckets: toDeltas(pos), negativeBuckets: toDeltas(neg),
  };
}

/** The i-th float histogram (a gauge: counts go up and down). */
export function gaugeHistogram(i: number): FloatHistogram {
  const a = 1.5 + (i % 3);
  const b = 0.25 * (i % 5);
  return {
    counterResetHint: 3, schema: 2, zeroThreshold: 0.001, zeroCount: 0.5, count: a + b + 0.5, sum: -i / 3,
    positiveSpans: [{ offset: -1, length: 2 }], negativeSpans: [], positiveBuckets: [a, b], negativeBuckets: [],
  };
}

/** What a histogram means: its numbers and non-empty buckets by index, absolute counts. */
export interface Meaning {
  t: number;
  float: boolean;
  schema: number;
  zeroThreshold: number;
  zeroCount: number;
  count: number;
  /** The sum's bits, as hex. */
  sum: string;
  buckets: string[];
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

function hex(x: number): string {
  f64[0] = x;
  return u64[0]!.toString(16);
}

/** The meaning of a histogram at `t` (bucket layouts that differ only by empty buckets mean the same). */
export function meaning(t: number, h: Histogram | FloatHistogram, float: boolean): Meaning {
  const buckets: string[] = [];
  for (const [sign, spans, values] of [['-', h.negativeSpans, h.negativeBuckets], ['+', h.positiveSpans, h.positiveBuckets]] as const) {
    let idx = 0;
    let v = 0;
    let n = 0;
    for (const s of spans) {
      idx += s.offset; // the first span's offset from index 0, each next one's after the span before
      for (let j = 0; j < s.length; j++, idx++, n++) {
        v = float ? values[n]! : v + values[n]!;
        if (v !== 0) buckets.push(`${sign}${idx}:${v}`);
      }
    }
  }
  return { t, float, schema: h.schema, zeroThreshold: h.zeroThreshold, zeroCount: h.zeroCount, count: h.count, sum: hex(h.sum), buckets };
}

/** Every histogram sample of a chunk, decoded by the codec, as meanings. */
export function decodeChunk(c: StoredChunk): Meaning[] {
  const codecs = wasmHistogramCodecs();
  const float = c.encoding === 3;
  const d = float ? codecs.floatHistogram.decode(c.data) : codecs.histogram.decode(c.data);
  return d.histograms.map((h, i) => meaning(Number(d.timestamps[i]!), h, float));
}

/** A series' chunks as the engine answers them: encodings and spans. */
export function chunksOf(db: Db, name: string): StoredChunk[] {
  const got = db.querier().select([{ type: MatchType.EQ, name: '__name__', value: name }], -Infinity, Infinity);
  if (got.length !== 1) throw new Error(`${got.length} series named ${name}`);
  return got[0]!.chunks;
}

/** The histogram samples of a series, decoded from its histogram chunks (XOR chunks left out). */
export function histogramsOf(db: Db, name: string): Meaning[] {
  return chunksOf(db, name).filter((c) => c.encoding === 2 || c.encoding === 3).flatMap(decodeChunk);
}
