import { ENCODING_FLOAT_HISTOGRAM, ENCODING_HISTOGRAM, type HistogramEncoding } from '../encoding.js';
import {
  FieldWriter, NO_WINDOW, bitsOfFloat, putVarbitInt, putVarbitUint, putXor, putZeroThreshold, type XorField,
} from './bits.js';
import { checkSample, isStaleNaN, layoutOf, type ChunkLayout } from './check.js';
import { HEADER_UNKNOWN, type CounterResetHeader, type HistogramChunkAppender } from './codec.js';
import { countSpans } from './spans.js';
import type { FloatHistogram, Histogram, Span } from './types.js';

// The TypeScript oracle's appenders: Prometheus 2.42's HistogramAppender and
// FloatHistogramAppender on a new chunk, field by field, in BigInt
// arithmetic that wraps at 64 bits as Go's does. Written for clarity; the
// WebAssembly appenders (wasm-appender.ts) are the fast ones.

const HEADER_BITS = 24; // 16-bit sample count, then the counter-reset header byte

function int64(v: bigint): bigint {
  return BigInt.asIntN(64, v);
}

function putSpans(f: FieldWriter, spans: readonly Span[]): void {
  putVarbitUint(f, BigInt(spans.length));
  for (const s of spans) {
    putVarbitUint(f, BigInt(s.length));
    putVarbitInt(f, BigInt(s.offset));
  }
}

/** writeHistogramChunkLayout. */
function putLayout(f: FieldWriter, layout: ChunkLayout): void {
  putZeroThreshold(f, layout.zeroThreshold);
  putVarbitInt(f, BigInt(layout.schema));
  putSpans(f, layout.positiveSpans);
  putSpans(f, layout.negativeSpans);
}

/** What both appenders share: the bit stream, header, count and layout. */
abstract class TsAppenderBase<H extends Histogram | FloatHistogram> implements HistogramChunkAppender<H> {
  abstract readonly encoding: HistogramEncoding;
  numSamples = 0;
  protected f = new FieldWriter(HEADER_BITS);
  protected layout: ChunkLayout | undefined;
  protected lastStale = false;
  protected header: CounterResetHeader = 0;
  protected t = 0n;
  protected tDelta = 0n;

  reset(header: CounterResetHeader = HEADER_UNKNOWN): void {
    this.f = new FieldWriter(HEADER_BITS);
    this.numSamples = 0;
    this.layout = undefined;
    this.lastStale = false;
    this.header = header;
    this.t = 0n;
    this.tDelta = 0n;
    this.resetValues();
  }

  setHeader(header: CounterResetHeader): void {
    this.header = header;
  }

  append(t: number, h: H): void {
    this.appendT(BigInt(t), h);
  }

  /** Appends with a full int64 timestamp (the oracle's encode path). */
  appendT(t: bigint, h: H): void {
    checkSample(h, this.numSamples, this.layout, this.lastStale, this.encoding === ENCODING_HISTOGRAM);
    const stale = isStaleNaN(h.sum);
    if (this.numSamples === 0) {
      this.layout = layoutOf(h);
      putLayout(this.f, this.layout);
      putVarbitInt(this.f, t);
      this.tDelta = 0n;
      this.first(h, stale, countSpans(this.layout.positiveSpans), countSpans(this.layout.negativeSpans));
    } else {
      const tDelta = int64(t - this.t);
      putVarbitInt(this.f, int64(tDelta - this.tDelta));
      this.tDelta = tDelta;
      this.next(h, stale);
    }
    this.t = t;
    this.lastStale = stale;
    this.numSamples++;
  }

  bytes(): Uint8Array {
    const out = new Uint8Array(this.f.length());
    out.set(this.f.w.bytes.subarray(0, (this.f.pos + 7) >>> 3));
    out[0] = this.numSamples >>> 8;
    out[1] = this.numSamples & 0xff;
    out[2] = (out[2]! & 0b00111111) | (this.header << 6);
    return out;
  }

  protected abstract resetValues(): void;
  /** Writes the first sample's values after its timestamp. */
  protected abstract first(h: H, stale: boolean, numPositive: number, numNegative: number): void;
  /** Writes a later sample's values after its timestamp. */
  protected abstract next(h: H, stale: boolean): void;
}

/**
 * Prometheus' HistogramAppender (encoding 2): counts as varbit uints, then
 * delta-of-delta varbit ints of the count, zero count and each bucket's
 * delta-encoded value; the sum Gorilla-XOR coded.
 */
export class TsHistogramAppender extends TsAppenderBase<Histogram> {
  readonly encoding = ENCODING_HISTOGRAM;
  private cnt = 0n;
  private zCnt = 0n;
  private cntDelta = 0n;
  private zCntDelta = 0n;
  private sum: XorField = { bits: 0n, leading: NO_WINDOW, trailing: 0 };
  private buckets: bigint[] = [];
  private deltas: bigint[] = [];

  protected resetValues(): void {
    this.cnt = this.zCnt = this.cntDelta = this.zCntDelta = 0n;
    this.sum = { bits: 0n, leading: NO_WINDOW, trailing: 0 };
    this.buckets = [];
    this.deltas = [];
  }

  protected first(h: Histogram, stale: boolean, numPositive: number, numNegative: number): void {
    const f = this.f;
    // A stale marker is written as Histogram{Sum: StaleNaN}: no counts, no buckets.
    const cnt = stale ? 0n : BigInt(h.count);
    const zCnt = stale ? 0n : BigInt(h.zeroCount);
    putVarbitUint(f, cnt);
    putVarbitUint(f, zCnt);
    this.sum.bits = bitsOfFloat(h.sum);
    f.bits(this.sum.bits, 64);
    this.buckets = new Array<bigint>(numPositive + numNegative).fill(0n);
    this.deltas = new Array<bigint>(numPositive + numNegative).fill(0n);
    if (!stale) {
      let i = 0;
      for (const b of h.positiveBuckets) putVarbitInt(f, (this.buckets[i++] = BigInt(b)));
      for (const b of h.negativeBuckets) putVarbitInt(f, (this.buckets[i++] = BigInt(b)));
    }
    this.cnt = cnt;
    this.zCnt = zCnt;
    this.cntDelta = this.zCntDelta = 0n;
  }

  protected next(h: Histogram, stale: boolean): void {
    const f = this.f;
    const cnt = stale ? 0n : BigInt(h.count);
    const zCnt = stale ? 0n : BigInt(h.zeroCount);
    const cntDelta = int64(cnt - this.cnt);
    const zCntDelta = int64(zCnt - this.zCnt);
    // Go writes zero dods for a stale marker but still keeps its deltas.
    putVarbitInt(f, stale ? 0n : int64(cntDelta - this.cntDelta));
    putVarbitInt(f, stale ? 0n : int64(zCntDelta - this.zCntDelta));
    putXor(f, this.sum, bitsOfFloat(h.sum));
    if (!stale) {
      let i = 0;
      for (const side of [h.positiveBuckets, h.negativeBuckets]) {
        for (const v of side) {
          const b = BigInt(v);
          const delta = int64(b - this.buckets[i]!);
          putVarbitInt(f, int64(delta - this.deltas[i]!));
          this.deltas[i] = delta;
          this.buckets[i++] = b;
        }
      }
    }
    this.cnt = cnt;
    this.zCnt = zCnt;
    this.cntDelta = cntDelta;
    this.zCntDelta = zCntDelta;
  }
}

/**
 * Prometheus' FloatHistogramAppender (encoding 3): every value (count, zero
 * count, sum, each absolute bucket count) Gorilla-XOR coded on its own.
 */
export class TsFloatHistogramAppender extends TsAppenderBase<FloatHistogram> {
  readonly encoding = ENCODING_FLOAT_HISTOGRAM;
  private cnt: XorField = { bits: 0n, leading: NO_WINDOW, trailing: 0 };
  private zCnt: XorField = { bits: 0n, leading: NO_WINDOW, trailing: 0 };
  private sum: XorField = { bits: 0n, leading: NO_WINDOW, trailing: 0 };
  private buckets: XorField[] = [];

  protected resetValues(): void {
    this.cnt = { bits: 0n, leading: NO_WINDOW, trailing: 0 };
    this.zCnt = { bits: 0n, leading: NO_WINDOW, trailing: 0 };
    this.sum = { bits: 0n, leading: NO_WINDOW, trailing: 0 };
    this.buckets = [];
  }

  protected first(h: FloatHistogram, stale: boolean, numPositive: number, numNegative: number): void {
    const f = this.f;
    this.cnt.bits = stale ? 0n : bitsOfFloat(h.count);
    this.zCnt.bits = stale ? 0n : bitsOfFloat(h.zeroCount);
    this.sum.bits = bitsOfFloat(h.sum);
    f.bits(this.cnt.bits, 64);
    f.bits(this.zCnt.bits, 64);
    f.bits(this.sum.bits, 64);
    this.buckets = Array.from({ length: numPositive + numNegative }, () => ({ bits: 0n, leading: NO_WINDOW, trailing: 0 }));
    if (!stale) {
      let i = 0;
      for (const side of [h.positiveBuckets, h.negativeBuckets]) {
        for (const v of side) {
          const field = this.buckets[i++]!;
          field.bits = bitsOfFloat(v);
          f.bits(field.bits, 64);
        }
      }
    }
  }

  protected next(h: FloatHistogram, stale: boolean): void {
    const f = this.f;
    putXor(f, this.cnt, stale ? 0n : bitsOfFloat(h.count));
    putXor(f, this.zCnt, stale ? 0n : bitsOfFloat(h.zeroCount));
    putXor(f, this.sum, bitsOfFloat(h.sum));
    if (stale) return;
    let i = 0;
    for (const side of [h.positiveBuckets, h.negativeBuckets]) {
      for (const v of side) putXor(f, this.buckets[i++]!, bitsOfFloat(v));
    }
  }
}
