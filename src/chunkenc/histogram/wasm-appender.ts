import { ENCODING_FLOAT_HISTOGRAM, ENCODING_HISTOGRAM, type HistogramEncoding } from '../encoding.js';
import { MAX_HISTOGRAM_SAMPLES, checkSample, isStaleNaN, layoutOf, type ChunkLayout } from './check.js';
import { HEADER_UNKNOWN, type CounterResetHeader, type HistogramChunkAppender } from './codec.js';
import { countSpans } from './spans.js';
import type { FloatHistogram, Histogram } from './types.js';
import { sameSpansPacked, type PackedHistogram } from './packed.js';
import { badInteger } from './wasm-codec.js';
import { layoutBytes, layoutChunkBytes, putLayout, putPacked, putSample } from './wasm-io.js';
import { threadHistogramWasm, type HistogramWasm } from '../../wasm/histogram.js';
import { HIST, HIST_SAMPLE } from '../../wasm/layout.js';

// A histogram chunk that grows one sample at a time in WebAssembly. The
// appender state and the per-bucket state stay in module memory, in a block
// each appender owns (freed when the appender is collected), so an append
// copies nothing of them: measured, copying them in and out was most of an
// append's cost (bench:histograms). The chunk's bytes live in JS memory
// (bytes() must stay valid while other appenders grow module memory): only
// the chunk's last partial word goes in and only the new bytes come out, so
// an append costs the sample's size, not the chunk's.

// The appender state's words the host reads and rebases (HIST.STATE_*).
const POS_WORD = HIST.STATE_POS >>> 2;
const COUNT_WORD = HIST.STATE_COUNT >>> 2;
/**
 * Where the per-bucket state starts in an appender's block (16-byte aligned
 * after the state). The block is the host's: the module is given the state
 * and the per-bucket state as two pointers.
 */
const BUCKETS_AT = (HIST.STATE_SIZE + 15) & ~15;

/** Frees the module memory of appenders that were collected. */
const blocks = new FinalizationRegistry<{ hw: HistogramWasm; ptr: number }>(({ hw, ptr }) => hw.wasm.free(ptr));

/** An appender's module memory: its state, then its per-bucket state. */
class Block {
  ptr = 0;
  size = 0;
}

class WasmAppender<H extends Histogram | FloatHistogram> implements HistogramChunkAppender<H> {
  numSamples = 0;
  private chunk = new Uint8Array(256);
  private len = 3;
  private readonly block = new Block();
  private layout: ChunkLayout | undefined;
  private lastStale = false;

  constructor(readonly encoding: HistogramEncoding, private readonly hw: HistogramWasm) {
    this.reset();
  }

  reset(header: CounterResetHeader = HEADER_UNKNOWN): void {
    this.chunk.fill(0, 0, 4);
    this.chunk[2] = header << 6;
    this.len = 3;
    this.numSamples = 0;
    this.layout = undefined;
    this.lastStale = false;
    // A new appender's block waits for its first sample, which fixes its
    // size: one allocation (and one registration for freeing) a series, not two.
    const { hw } = this;
    if (this.block.ptr === 0) return;
    hw.fns.histAppenderInit(this.block.ptr, hw.chunk.ensure(8));
  }

  /**
   * Makes the block at least `size` bytes, keeping the state; returns its
   * pointer. The block is registered for freeing with a holder that does
   * not reference the appender, so that the appender can be collected.
   */
  private reserve(size: number): number {
    const b = this.block;
    if (size <= b.size) return b.ptr;
    const { hw } = this;
    const ptr = hw.wasm.alloc(size);
    if (b.ptr !== 0) {
      const u8 = hw.mem.u8();
      u8.copyWithin(ptr, b.ptr, b.ptr + BUCKETS_AT);
      blocks.unregister(b);
      hw.wasm.free(b.ptr);
    }
    b.ptr = ptr;
    b.size = size;
    blocks.register(this, { hw, ptr }, b);
    return ptr;
  }

  setHeader(header: CounterResetHeader): void {
    this.chunk[2] = (this.chunk[2]! & 0b00111111) | (header << 6);
  }

  append(t: number, h: H): void {
    checkSample(h, this.numSamples, this.layout, this.lastStale, false);
    const stale = isStaleNaN(h.sum);
    const first = this.numSamples === 0;
    const layout = first ? layoutOf(h) : this.layout!;
    const nb = countSpans(layout.positiveSpans) + countSpans(layout.negativeSpans);
    this.write(t, layout, first, stale, nb, h, undefined);
  }

  appendPacked(t: number, p: PackedHistogram): boolean {
    // What checkSample would refuse, or a first sample (which writes the layout), takes the object path.
    if (p.float !== (this.encoding === ENCODING_FLOAT_HISTOGRAM) || this.numSamples === 0 || this.numSamples >= MAX_HISTOGRAM_SAMPLES || this.lastStale) return false;
    const layout = this.layout!;
    if (p.schema !== layout.schema || !(p.zeroThreshold === layout.zeroThreshold || Object.is(p.zeroThreshold, layout.zeroThreshold))) return false;
    if (!sameSpansPacked(layout.positiveSpans, p.posSpans, p.nPosSpans) || !sameSpansPacked(layout.negativeSpans, p.negSpans, p.nNegSpans)) return false;
    const nPos = countSpans(layout.positiveSpans);
    const nb = nPos + countSpans(layout.negativeSpans);
    if (p.nPos !== nPos || p.nPos + p.nNeg !== nb) return false;
    this.write(t, layout, false, false, nb, undefined, p);
    return true;
  }

  /** Appends one sample, from `h` or else `p`, the checks done. */
  private write(t: number, layout: ChunkLayout, first: boolean, stale: boolean, nb: number, h: H | undefined, p: PackedHistogram | undefined): void {
    const spans = layout.positiveSpans.length + layout.negativeSpans.length;
    const { hw } = this;
    const { fns } = hw;
    // A first sample fixes the bucket count: room for its per-bucket state.
    const fresh = this.block.ptr === 0;
    const state = first ? this.reserve(BUCKETS_AT + nb * HIST.BUCKET_STATE_SIZE + 16) : this.block.ptr;
    if (fresh) fns.histAppenderInit(state, hw.chunk.ensure(8));
    const buckets = state + BUCKETS_AT;
    // The writer resumes on the 32-bit word holding the last partial bits:
    // the module sees the chunk from that word on, positions made relative.
    let i32 = hw.mem.i32();
    const pos = i32[(state >>> 2) + POS_WORD]!;
    const start = (pos >>> 5) << 2;
    const cap = (this.len - start) + (first ? layoutChunkBytes(spans) : 0)
      + HIST.MAX_FIXED_BYTES + nb * HIST.MAX_BUCKET_BYTES + HIST.SLACK_BYTES + 8;
    const buf = hw.chunk.ensure(cap);
    const input = hw.samples.ensure(HIST_SAMPLE.fixed + nb * HIST_SAMPLE.bucketBytes);
    const lay = first ? hw.layout.ensure(layoutBytes(spans)) : 0;
    const u8 = hw.mem.u8();
    // Bytes copied one by one: the tail is a word or a few, and a subarray costs an object.
    const chunk = this.chunk;
    for (let i = start; i < this.len; i++) u8[buf + i - start] = chunk[i]!;
    i32 = hw.mem.i32();
    i32[(state >>> 2) + POS_WORD] = pos - start * 8;
    if (first) {
      putLayout(hw.mem.f64(), i32, lay, layout);
      fns.histWriteLayout(state, buf, lay, layout.positiveSpans.length, layout.negativeSpans.length);
    }
    if (h !== undefined) putSample(hw.mem.f64(), hw.mem.i32(), input, t, undefined, h, stale);
    else putPacked(hw.mem.f64(), hw.mem.i32(), input, t, p!);
    const got = this.encoding === ENCODING_FLOAT_HISTOGRAM
      ? fns.histAppendFloat(state, buckets, buf, cap, input, 1)
      : fns.histAppendInt(state, buckets, buf, cap, input, 1);
    const end = start + fns.histAppenderBytes(state);
    // Positions made absolute again, also when the module refused the sample.
    i32 = hw.mem.i32();
    i32[(state >>> 2) + POS_WORD] = i32[(state >>> 2) + POS_WORD]! + start * 8;
    if (got < 0) {
      // A refused sample leaves the state as it was, but for the layout a first sample wrote: start afresh.
      if (first) fns.histAppenderInit(state, hw.chunk.ensure(8));
      throw badInteger(this.numSamples);
    }
    if (got !== 1) throw new Error('histogram appender: capacity bound broken');
    // Copy back the new bytes.
    const out = hw.mem.u8();
    if (end > this.chunk.length) this.grow(end);
    const dst = this.chunk;
    for (let i = start; i < end; i++) dst[i] = out[buf + i - start]!;
    this.len = end;
    this.layout = layout;
    this.lastStale = stale;
    this.numSamples = i32[(state >>> 2) + COUNT_WORD]!;
    dst[0] = this.numSamples >>> 8;
    dst[1] = this.numSamples & 0xff;
  }

  bytes(): Uint8Array {
    return this.chunk.subarray(0, this.len);
  }

  private grow(min: number): void {
    const next = new Uint8Array(Math.max(min, this.chunk.length * 2));
    next.set(this.chunk.subarray(0, this.len));
    this.chunk = next;
  }
}

/**
 * Prometheus' HistogramAppender on a new chunk, in WebAssembly: same
 * contract and bytes as TsHistogramAppender. `bytes()` is a view of the
 * appender's own buffer, valid until its next append or reset.
 */
export class WasmHistogramAppender extends WasmAppender<Histogram> {
  constructor(hw: HistogramWasm = threadHistogramWasm()) {
    super(ENCODING_HISTOGRAM, hw);
  }
}

/** Prometheus' FloatHistogramAppender on a new chunk, in WebAssembly. */
export class WasmFloatHistogramAppender extends WasmAppender<FloatHistogram> {
  constructor(hw: HistogramWasm = threadHistogramWasm()) {
    super(ENCODING_FLOAT_HISTOGRAM, hw);
  }
}
