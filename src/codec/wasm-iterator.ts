import type { ChunkDecodeError } from './errors.js';
import { wasmDecodeError } from './decode-errors.js';
import { WasmBlock } from './wasm-memory.js';
import { ITERATOR_SIZE, SLACK_BYTES } from './wasm-module.js';
import type { WasmXorCodec } from './wasm-codec.js';

const TWO_32 = 2 ** 32;

/**
 * Iterates one chunk sample by sample in WebAssembly: `next()` and
 * `seek(t)` move forward, `atT()`/`atV()` read the current sample, `err()`
 * tells why iteration stopped early. Reuse one iterator across chunks with
 * `reset()`; call `close()` to give its module memory back.
 *
 * @example
 * const it = new XorIterator(codec).reset(chunk);
 * if (it.seek(1_700_000_000_000n)) do sum += it.atV(); while (it.next());
 */
export class XorIterator {
  private readonly state: number;
  private readonly buf: WasmBlock;
  /** 16 bytes: the current timestamp then the current value's bits. */
  private readonly out: number;
  private len = 0;
  private error: ChunkDecodeError | undefined;

  constructor(private readonly codec: WasmXorCodec) {
    this.state = codec.wasm.alloc(ITERATOR_SIZE);
    this.out = codec.wasm.alloc(16);
    this.buf = new WasmBlock(codec.wasm);
  }

  /** Starts over on `chunk`; its bytes are copied, so the caller may reuse them. */
  reset(chunk: Uint8Array): this {
    const ptr = this.buf.ensure(chunk.length + SLACK_BYTES);
    this.codec.mem.u8().set(chunk, ptr);
    this.len = chunk.length;
    this.error = undefined;
    const count = this.codec.wasm.iterInit(this.state, ptr, chunk.length);
    if (count < 0) this.error = wasmDecodeError(count, 0);
    return this;
  }

  /** Moves to the next sample; false at the end of the chunk or on error. */
  next(): boolean {
    if (this.error !== undefined) return false;
    const r = this.codec.wasm.iterNext(this.state, this.buf.ptr, this.len, this.out, this.out + 8);
    return this.check(r);
  }

  /** Moves to the first sample at or after `t` (never backwards); false if none. */
  seek(t: bigint): boolean {
    if (this.error !== undefined) return false;
    const r = this.codec.wasm.iterSeek(this.state, this.buf.ptr, this.len, t, this.out, this.out + 8);
    return this.check(r);
  }

  /** The current timestamp in ms (exact within ±2^53). */
  atT(): number {
    const i32 = this.codec.mem.i32();
    const at = this.out >>> 2;
    return i32[at + 1]! * TWO_32 + (i32[at]! >>> 0);
  }

  /** The current value. Use `atValueBits` where NaN payloads matter. */
  atV(): number {
    return new Float64Array(this.codec.mem.u8().buffer, this.out + 8, 1)[0]!;
  }

  /** Copies the current value's 8 raw bytes into `dst` at `index` (bit exact). */
  atValueBits(dst: Float64Array, index: number): void {
    const u8 = this.codec.mem.u8();
    new Uint8Array(dst.buffer, dst.byteOffset + index * 8, 8).set(u8.subarray(this.out + 8, this.out + 16));
  }

  /** Why iteration stopped before the end, if it did. */
  err(): ChunkDecodeError | undefined {
    return this.error;
  }

  close(): void {
    this.buf.release();
    this.codec.wasm.free(this.state);
    this.codec.wasm.free(this.out);
  }

  private check(r: number): boolean {
    if (r < 0) {
      this.error = wasmDecodeError(r, this.codec.wasm.iterIndex(this.state));
      return false;
    }
    return r > 0;
  }
}
