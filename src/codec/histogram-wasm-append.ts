import { checkSample, isStaleNaN, layoutOf, type ChunkLayout } from './histogram-check.js';
import type { CounterResetHeader, HistogramChunkAppender } from './histogram-codec.js';
import { countSpans } from './histogram-spans.js';
import type { FloatHistogram, Histogram } from './histogram-types.js';
import { badInteger } from './histogram-wasm.js';
import { layoutBytes, layoutChunkBytes, putLayout, putSample } from './histogram-wasm-io.js';
import { HIST, threadHistogramWasm, type HistogramWasm } from './histogram-wasm-module.js';

// A histogram chunk that grows one sample at a time in WebAssembly. The
// chunk, the appender state and the per-bucket state live here in JS
// memory (collected with the appender: nothing to free), and each append
// copies them into the thread's shared module scratch, appends, and copies
// back what changed. Only the chunk's last partial word goes in and only the
// new bytes come out, so an append costs the sample's size, not the chunk's:
// for 160 buckets about 6 KB of memcpy next to the varbit coding itself.

const POS_WORD = HIST.STATE_POS >>> 2;
const COUNT_WORD = HIST.STATE_COUNT >>> 2;

class WasmAppender<H extends Histogram | FloatHistogram> implements HistogramChunkAppender<H> {
  numSamples = 0;
  private chunk = new Uint8Array(256);
  private len = 3;
  private readonly state = new Uint8Array(HIST.STATE_SIZE);
  private readonly state32 = new Uint32Array(this.state.buffer);
  private buckets = new Uint8Array(0);
  private layout: ChunkLayout | undefined;
  private lastStale = false;

  constructor(readonly encoding: 2 | 3, private readonly hw: HistogramWasm) {
    this.reset(0);
  }

  reset(header: CounterResetHeader): void {
    this.chunk.fill(0, 0, 4);
    this.chunk[2] = header << 6;
    this.len = 3;
    this.numSamples = 0;
    this.layout = undefined;
    this.lastStale = false;
    this.buckets = new Uint8Array(0);
    // The module's initial state: histAppenderInit into the scratch, then keep it.
    const { hw } = this;
    hw.fns.histAppenderInit(hw.state, hw.chunk.ensure(8));
    this.state.set(hw.mem.u8().subarray(hw.state, hw.state + HIST.STATE_SIZE));
  }

  setHeader(header: CounterResetHeader): void {
    this.chunk[2] = (this.chunk[2]! & 0b00111111) | (header << 6);
  }

  append(t: number, h: H): void {
    checkSample(h, this.numSamples, this.layout, this.lastStale, false);
    const stale = isStaleNaN(h.sum);
    const first = this.numSamples === 0;
    const layout = first ? layoutOf(h) : this.layout!;
    const spans = layout.positiveSpans.length + layout.negativeSpans.length;
    const nb = countSpans(layout.positiveSpans) + countSpans(layout.negativeSpans);
    const { hw } = this;
    const { fns } = hw;
    // The writer resumes on the 32-bit word holding the last partial bits:
    // the module sees the chunk from that word on, positions made relative.
    const pos = this.state32[POS_WORD]!;
    const start = (pos >>> 5) << 2;
    const cap = (this.len - start) + (first ? layoutChunkBytes(spans) : 0)
      + HIST.MAX_FIXED_BYTES + nb * HIST.MAX_BUCKET_BYTES + HIST.SLACK_BYTES + 8;
    const buf = hw.chunk.ensure(cap);
    const buckets = hw.buckets.ensure(nb * HIST.BUCKET_STATE_SIZE + 16);
    const input = hw.samples.ensure(HIST.SAMPLE_FIXED + nb * 8);
    const lay = first ? hw.layout.ensure(layoutBytes(spans)) : 0;
    const u8 = hw.mem.u8();
    u8.set(this.state, hw.state);
    u8.set(this.buckets, buckets);
    u8.set(this.chunk.subarray(start, this.len), buf);
    const state32 = hw.mem.i32();
    state32[(hw.state >>> 2) + POS_WORD] = pos - start * 8;
    if (first) {
      putLayout(hw.mem.f64(), state32, lay, layout);
      fns.histWriteLayout(hw.state, buf, lay, layout.positiveSpans.length, layout.negativeSpans.length);
    }
    putSample(hw.mem.f64(), hw.mem.i32(), input, t, undefined, h, stale);
    const got = this.encoding === 3
      ? fns.histAppendFloat(hw.state, buckets, buf, cap, input, 1)
      : fns.histAppendInt(hw.state, buckets, buf, cap, input, 1);
    if (got < 0) throw badInteger(this.numSamples);
    if (got !== 1) throw new Error('histogram appender: capacity bound broken');
    // Copy back: the state (positions made absolute again), the buckets, the new bytes.
    const end = start + fns.histAppenderBytes(hw.state);
    const out = hw.mem.u8();
    this.state.set(out.subarray(hw.state, hw.state + HIST.STATE_SIZE));
    this.state32[POS_WORD] = this.state32[POS_WORD]! + start * 8;
    if (this.buckets.length !== nb * HIST.BUCKET_STATE_SIZE) this.buckets = new Uint8Array(nb * HIST.BUCKET_STATE_SIZE);
    this.buckets.set(out.subarray(buckets, buckets + this.buckets.length));
    if (end > this.chunk.length) this.grow(end);
    this.chunk.set(out.subarray(buf, buf + (end - start)), start);
    this.len = end;
    this.layout = layout;
    this.lastStale = stale;
    this.numSamples = this.state32[COUNT_WORD]!;
    this.chunk[0] = this.numSamples >>> 8;
    this.chunk[1] = this.numSamples & 0xff;
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
    super(2, hw);
  }
}

/** Prometheus' FloatHistogramAppender on a new chunk, in WebAssembly. */
export class WasmFloatHistogramAppender extends WasmAppender<FloatHistogram> {
  constructor(hw: HistogramWasm = threadHistogramWasm()) {
    super(3, hw);
  }
}
