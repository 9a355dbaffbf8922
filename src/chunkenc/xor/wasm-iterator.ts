import type { ChunkIterator } from '../chunk.js';
import type { ChunkDecodeError } from '../errors.js';
import { wasmDecodeError } from './errors.js';
import { WasmBlock } from '../../wasm/memory.js';
import { ITERATOR_SIZE, SLACK_BYTES } from '../../wasm/layout.js';
import type { WasmXorCodec } from './wasm-codec.js';

const TWO_32 = 2 ** 32;
/**
 * Samples decoded per call into WebAssembly. One call per sample would cost
 * more in crossing the boundary than in decoding; a block of 128 keeps that
 * crossing rare while the scratch stays 2 KiB whatever the chunk's length.
 */
const BLOCK = 128;

/**
 * Iterates one chunk sample by sample: `next()` and `seek(t)` move forward,
 * `atT()`/`atV()` read the current sample, `err()` tells why iteration
 * stopped early. Decoding happens in WebAssembly a block at a time. Reuse
 * one iterator across chunks with `reset()`; `close()` gives its module
 * memory back.
 *
 * @example
 * const it = new XorIterator(codec).reset(chunk);
 * if (it.seek(1_700_000_000_000n)) do sum += it.atV(); while (it.next());
 */
export class XorIterator implements ChunkIterator {
  private readonly state: number;
  private readonly buf: WasmBlock;
  /** BLOCK timestamps then BLOCK value bit patterns. */
  private readonly block: number;
  private len = 0;
  private blockLen = 0;
  private blockPos = -1;
  private error: ChunkDecodeError | undefined;
  // Views of module memory; a view detached by memory growth reads as length 0.
  private tsView: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private valView: Float64Array<ArrayBufferLike> = new Float64Array(0);

  constructor(private readonly codec: WasmXorCodec) {
    this.state = codec.wasm.alloc(ITERATOR_SIZE);
    this.block = codec.wasm.alloc(BLOCK * 16);
    this.buf = new WasmBlock(codec.wasm);
  }

  /** Starts over on `chunk`; its bytes are copied, so the caller may reuse them. */
  reset(chunk: Uint8Array): this {
    const ptr = this.buf.ensure(chunk.length + SLACK_BYTES);
    this.codec.mem.u8().set(chunk, ptr);
    this.len = chunk.length;
    this.error = undefined;
    this.blockLen = 0;
    this.blockPos = -1;
    const count = this.codec.wasm.iterInit(this.state, ptr, chunk.length);
    if (count < 0) this.error = wasmDecodeError(count, 0);
    return this;
  }

  /** Moves to the next sample; false at the end of the chunk or on error. */
  next(): boolean {
    if (++this.blockPos < this.blockLen) return true;
    if (this.error !== undefined) return false;
    const w = this.codec.wasm;
    const got = w.iterBatch(this.state, this.buf.ptr, this.len, this.block, this.block + BLOCK * 8, BLOCK);
    return this.loaded(got);
  }

  /**
   * Moves to the first sample at or after `t` (never backwards); false if
   * there is none. Within the decoded block it scans in JS (exact for
   * timestamps within ±2^53); past it, WebAssembly skips ahead without
   * writing the samples it passes.
   */
  seek(t: bigint): boolean {
    const target = Number(t);
    // Before the first sample WebAssembly seeks from the chunk's start
    // (skipping without writing), rather than decoding a block first.
    for (; this.blockPos >= 0 && this.blockPos < this.blockLen; this.blockPos++) {
      if (this.atT() >= target) return true;
    }
    if (this.error !== undefined) return false;
    const w = this.codec.wasm;
    return this.loaded(w.iterSeek(this.state, this.buf.ptr, this.len, t, this.block, this.block + BLOCK * 8));
  }

  /** The current timestamp in ms (exact within ±2^53). */
  atT(): number {
    if (this.tsView.length === 0) this.refreshViews();
    const i = (this.block >>> 2) + this.blockPos * 2;
    return this.tsView[i + 1]! * TWO_32 + (this.tsView[i]! >>> 0);
  }

  /** The current value. Use `atValueBits` where NaN payloads matter. */
  atV(): number {
    if (this.valView.length === 0) this.refreshViews();
    return this.valView[((this.block + BLOCK * 8) >>> 3) + this.blockPos]!;
  }

  /** Copies the current value's 8 raw bytes into `dst` at `index` (bit exact). */
  atValueBits(dst: Float64Array, index: number): void {
    const at = this.block + BLOCK * 8 + this.blockPos * 8;
    new Uint8Array(dst.buffer, dst.byteOffset + index * 8, 8).set(this.codec.mem.u8().subarray(at, at + 8));
  }

  /** Why iteration stopped before the end, if it did. */
  err(): ChunkDecodeError | undefined {
    return this.error;
  }

  close(): void {
    this.buf.release();
    this.codec.wasm.free(this.state);
    this.codec.wasm.free(this.block);
  }

  /** Takes the answer of a block decode: `got` samples now sit at the block's start. */
  private loaded(got: number): boolean {
    if (got < 0) {
      this.error = wasmDecodeError(got, this.codec.wasm.iterIndex(this.state));
      got = 0;
    }
    this.blockLen = got;
    this.blockPos = 0;
    return got > 0;
  }

  private refreshViews(): void {
    this.tsView = this.codec.mem.i32();
    this.valView = this.codec.mem.f64();
  }
}
