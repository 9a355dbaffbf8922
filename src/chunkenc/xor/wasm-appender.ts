import type { ChunkAppender } from '../chunk.js';
import { ENCODING_XOR } from '../encoding.js';
import { chunkFull } from './errors.js';
import { WasmBlock, copyIn } from '../../wasm/memory.js';
import { APPENDER_SIZE, MAX_SAMPLES, MAX_SAMPLE_BYTES, SLACK_BYTES } from '../../wasm/layout.js';
import type { WasmXorCodec } from './wasm-codec.js';

const INITIAL_CAPACITY = 256;

/**
 * Builds one chunk by appending batches of samples, as a head does with an
 * open chunk. The chunk lives in module memory and grows as needed;
 * `close()` gives that memory back.
 *
 * @example
 * const app = new XorAppender(codec);
 * app.append(timestamps, values);
 * const chunk = app.bytes();
 */
export class XorAppender implements ChunkAppender<typeof ENCODING_XOR> {
  readonly encoding = ENCODING_XOR;
  private readonly state: number;
  private chunk: WasmBlock;
  private readonly ts: WasmBlock;
  private readonly vals: WasmBlock;

  constructor(private readonly codec: WasmXorCodec) {
    this.state = codec.wasm.alloc(APPENDER_SIZE);
    this.chunk = new WasmBlock(codec.wasm, INITIAL_CAPACITY);
    this.ts = new WasmBlock(codec.wasm);
    this.vals = new WasmBlock(codec.wasm);
    codec.wasm.appenderInit(this.state, this.chunk.ptr);
  }

  /** Samples in the chunk. */
  get numSamples(): number {
    return this.codec.wasm.appenderCount(this.state);
  }

  /**
   * Appends the samples, copied, after those in the chunk: all or none
   * (a ChunkEncodeError if they would pass 65535, a RangeError if the
   * columns' lengths differ).
   */
  append(timestamps: BigInt64Array, values: Float64Array): void {
    const n = timestamps.length;
    if (values.length !== n) throw new RangeError(`${n} timestamps but ${values.length} values`);
    if (this.numSamples + n > MAX_SAMPLES) throw chunkFull(MAX_SAMPLES);
    const wasm = this.codec.wasm;
    const need = wasm.appenderBytes(this.state) + n * MAX_SAMPLE_BYTES + SLACK_BYTES;
    if (need > this.chunk.size) this.grow(need);
    const ts = this.ts.ensure(n * 8);
    const vals = this.vals.ensure(n * 8);
    copyIn(this.codec.mem, ts, timestamps);
    copyIn(this.codec.mem, vals, values);
    wasm.appendSamples(this.state, this.chunk.ptr, this.chunk.size, ts, vals, n);
  }

  /** A copy of the chunk as it stands (the contract allows a view; this one is the caller's). */
  bytes(): Uint8Array {
    const len = this.codec.wasm.appenderBytes(this.state);
    return this.codec.mem.u8().slice(this.chunk.ptr, this.chunk.ptr + len);
  }

  /** Empties the chunk for reuse. */
  reset(): void {
    this.codec.wasm.appenderInit(this.state, this.chunk.ptr);
  }

  /** Gives the appender's module memory back; it is not used again. */
  close(): void {
    this.chunk.release();
    this.ts.release();
    this.vals.release();
    this.codec.wasm.free(this.state);
  }

  private grow(need: number): void {
    const old = this.chunk;
    const len = this.codec.wasm.appenderBytes(this.state);
    const next = new WasmBlock(this.codec.wasm, need);
    const u8 = this.codec.mem.u8();
    u8.copyWithin(next.ptr, old.ptr, old.ptr + len);
    old.release();
    this.chunk = next;
  }
}
