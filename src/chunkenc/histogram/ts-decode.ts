import { BitReader } from '../bstream.js';
import {
  Short, floatOfBits, readBits, readVarbitInt, readVarbitUint, readXor, readZeroThreshold, type XorField,
} from './bits.js';
import type { CounterResetHeader, DecodedHistogramChunk } from './codec.js';
import { histogramDecodeError, type HistogramDecodeFailure } from './errors.js';
import { counterResetHint, staleHistogram } from './samples.js';
import { countSpans } from './spans.js';
import type { Histogram, Span } from './types.js';

// The TypeScript oracle's decoder: Prometheus 2.42's histogramIterator and
// floatHistogramIterator run to the end of a chunk, with bounds Go's lack
// (a layout may not promise more buckets than the chunk has bits for) and
// a check that nothing follows the last sample.

const STALE = 0x7ff0000000000002n;
const CUSTOM_BUCKETS_SCHEMA = -53;

class Failure extends Error {
  constructor(readonly failure: HistogramDecodeFailure) {
    super(failure);
  }
}

function readSpans(r: BitReader): Span[] {
  const n = readVarbitUint(r);
  // Every span takes at least two bits (length and offset).
  if (n > BigInt(r.left() >> 1)) throw new Failure('bad-layout');
  const spans: Span[] = [];
  for (let i = 0; i < Number(n); i++) {
    const length = Number(BigInt.asUintN(32, readVarbitUint(r)));
    const offset = Number(BigInt.asIntN(32, readVarbitInt(r)));
    spans.push({ offset, length });
  }
  return spans;
}

/**
 * A chunk ends with its last sample's bits, zero padded to a byte, plus at
 * most one spare zero byte when those bits end on a byte boundary (Go's
 * bstream leaves one after a byte-wise write).
 */
export function endsWell(chunk: Uint8Array, pos: number): boolean {
  const used = (pos + 7) >>> 3;
  if (used === chunk.length) return true;
  return used + 1 === chunk.length && (pos & 7) === 0 && chunk[used] === 0;
}

/** Decodes an integer (`float` false) or float histogram chunk. */
export function decodeHistogramChunk(chunk: Uint8Array, float: boolean): DecodedHistogramChunk<Histogram> {
  const kind = float ? 'float histogram' : 'histogram';
  if (chunk.length < 3) throw histogramDecodeError('too-short', 0, kind);
  const count = (chunk[0]! << 8) | chunk[1]!;
  const header = (chunk[2]! >> 6) as CounterResetHeader;
  const timestamps = new BigInt64Array(count);
  const histograms: Histogram[] = [];
  const r = new BitReader(chunk, 24);
  let index = 0;
  try {
    if (count > 0) {
      const ztBits = readZeroThreshold(r);
      const schema = Number(BigInt.asIntN(32, readVarbitInt(r)));
      if (schema === CUSTOM_BUCKETS_SCHEMA) throw new Failure('unsupported-schema');
      const positiveSpans = readSpans(r);
      const negativeSpans = readSpans(r);
      const numP = countSpans(positiveSpans);
      const numN = countSpans(negativeSpans);
      // The first sample spends at least 1 bit (integer) or 64 bits (float) on each bucket.
      if ((numP + numN) * (float ? 64 : 1) > r.left()) throw new Failure('bad-layout');
      const layout = { schema, zeroThreshold: floatOfBits(ztBits), positiveSpans, negativeSpans };
      const state = float ? new FloatState(numP + numN) : new IntState(numP + numN);
      for (; index < count; index++) {
        timestamps[index] = state.read(r, index === 0);
        if (state.sum.bits === STALE) {
          histograms.push(staleHistogram(floatOfBits(STALE)));
          continue;
        }
        histograms.push({
          counterResetHint: counterResetHint(header, index + 1),
          schema: layout.schema,
          zeroThreshold: layout.zeroThreshold,
          zeroCount: state.zeroCount(),
          count: state.count(),
          sum: floatOfBits(state.sum.bits),
          positiveSpans: layout.positiveSpans.map((s) => ({ ...s })),
          negativeSpans: layout.negativeSpans.map((s) => ({ ...s })),
          positiveBuckets: state.bucketValues(0, numP),
          negativeBuckets: state.bucketValues(numP, numP + numN),
        });
      }
    }
  } catch (err) {
    if (err instanceof Short) throw histogramDecodeError('truncated', index, kind);
    if (err instanceof Failure) throw histogramDecodeError(err.failure, index, kind);
    throw err;
  }
  if (!endsWell(chunk, r.pos)) throw histogramDecodeError('trailing-bytes', count, kind);
  return { timestamps, histograms, header };
}

interface DecodeState {
  sum: XorField;
  /** Reads one sample; returns its timestamp. */
  read(r: BitReader, first: boolean): bigint;
  count(): number;
  zeroCount(): number;
  bucketValues(from: number, to: number): number[];
}

/** histogramIterator's registers. */
class IntState implements DecodeState {
  sum: XorField = { bits: 0n, leading: 0, trailing: 0 };
  private t = 0n;
  private tDelta = 0n;
  private cnt = 0n;
  private zCnt = 0n;
  private cntDelta = 0n;
  private zCntDelta = 0n;
  private readonly buckets: bigint[];
  private readonly deltas: bigint[];

  constructor(n: number) {
    this.buckets = new Array<bigint>(n).fill(0n);
    this.deltas = new Array<bigint>(n).fill(0n);
  }

  read(r: BitReader, first: boolean): bigint {
    const n = this.buckets.length;
    if (first) {
      this.t = readVarbitInt(r);
      this.cnt = readVarbitUint(r);
      this.zCnt = readVarbitUint(r);
      this.sum.bits = readBits(r, 64);
      // Go reads the first sample's buckets even when it is a stale marker.
      for (let i = 0; i < n; i++) this.buckets[i] = readVarbitInt(r);
      return this.t;
    }
    this.tDelta = BigInt.asIntN(64, this.tDelta + readVarbitInt(r));
    this.t = BigInt.asIntN(64, this.t + this.tDelta);
    this.cntDelta = BigInt.asIntN(64, this.cntDelta + readVarbitInt(r));
    this.cnt = BigInt.asUintN(64, this.cnt + this.cntDelta);
    this.zCntDelta = BigInt.asIntN(64, this.zCntDelta + readVarbitInt(r));
    this.zCnt = BigInt.asUintN(64, this.zCnt + this.zCntDelta);
    if (!readXor(r, this.sum)) throw new Failure('bad-xor-window');
    if (this.sum.bits === STALE) return this.t;
    for (let i = 0; i < n; i++) {
      this.deltas[i] = BigInt.asIntN(64, this.deltas[i]! + readVarbitInt(r));
      this.buckets[i] = BigInt.asIntN(64, this.buckets[i]! + this.deltas[i]!);
    }
    return this.t;
  }

  count(): number {
    return Number(this.cnt);
  }

  zeroCount(): number {
    return Number(this.zCnt);
  }

  bucketValues(from: number, to: number): number[] {
    return this.buckets.slice(from, to).map(Number);
  }
}

/** floatHistogramIterator's registers; its XOR windows start at (0, 0) as Go's do. */
class FloatState implements DecodeState {
  sum: XorField = { bits: 0n, leading: 0, trailing: 0 };
  private t = 0n;
  private tDelta = 0n;
  private readonly cnt: XorField = { bits: 0n, leading: 0, trailing: 0 };
  private readonly zCnt: XorField = { bits: 0n, leading: 0, trailing: 0 };
  private readonly buckets: XorField[];

  constructor(n: number) {
    this.buckets = Array.from({ length: n }, () => ({ bits: 0n, leading: 0, trailing: 0 }));
  }

  read(r: BitReader, first: boolean): bigint {
    if (first) {
      this.t = readVarbitInt(r);
      this.cnt.bits = readBits(r, 64);
      this.zCnt.bits = readBits(r, 64);
      this.sum.bits = readBits(r, 64);
      for (const b of this.buckets) b.bits = readBits(r, 64);
      return this.t;
    }
    this.tDelta = BigInt.asIntN(64, this.tDelta + readVarbitInt(r));
    this.t = BigInt.asIntN(64, this.t + this.tDelta);
    if (!readXor(r, this.cnt) || !readXor(r, this.zCnt) || !readXor(r, this.sum)) throw new Failure('bad-xor-window');
    if (this.sum.bits === STALE) return this.t;
    for (const b of this.buckets) if (!readXor(r, b)) throw new Failure('bad-xor-window');
    return this.t;
  }

  count(): number {
    return floatOfBits(this.cnt.bits);
  }

  zeroCount(): number {
    return floatOfBits(this.zCnt.bits);
  }

  bucketValues(from: number, to: number): number[] {
    return this.buckets.slice(from, to).map((b) => floatOfBits(b.bits));
  }
}
