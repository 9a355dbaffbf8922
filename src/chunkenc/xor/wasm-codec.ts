import { ENCODING_XOR } from '../encoding.js';
import type { Samples, XorCodec } from './codec.js';
import { chunkFull, wasmDecodeError } from './errors.js';
import { WasmBlock, WasmMemory, copyIn } from '../../wasm/memory.js';
import type { StrataWasm } from '../../wasm/exports.js';
import { APPENDER_SIZE, ITERATOR_SIZE, MAX_SAMPLES, MAX_SAMPLE_BYTES, SLACK_BYTES } from '../../wasm/layout.js';
import { instantiateStrataWasm } from '../../wasm/module.js';

/** Chunk bytes needed for `n` samples in the worst case, slack included. */
export function chunkCapacity(n: number): number {
  return 2 + n * MAX_SAMPLE_BYTES + SLACK_BYTES;
}

/** Reads the sample count from a chunk's 2-byte big-endian header. */
export function chunkSampleCount(chunk: Uint8Array): number {
  return chunk.length < 2 ? 0 : (chunk[0]! << 8) | chunk[1]!;
}

/**
 * The XOR codec in WebAssembly (assembly/xor.ts). One instance owns one
 * module instance and its memory; it is not shared between threads. Calls
 * are synchronous: use it directly on the main thread for small jobs and
 * through the worker pool for large ones.
 */
export class WasmXorCodec implements XorCodec {
  readonly name = 'wasm';
  readonly encoding = ENCODING_XOR;
  readonly mem: WasmMemory;
  private readonly state: number;
  private readonly input: WasmBlock;
  private readonly tsBlock: WasmBlock;
  private readonly valBlock: WasmBlock;
  private readonly output: WasmBlock;

  constructor(readonly wasm: StrataWasm = instantiateStrataWasm()) {
    this.mem = new WasmMemory(wasm);
    this.input = new WasmBlock(wasm);
    this.tsBlock = new WasmBlock(wasm);
    this.valBlock = new WasmBlock(wasm);
    this.output = new WasmBlock(wasm);
    this.state = wasm.alloc(Math.max(APPENDER_SIZE, ITERATOR_SIZE));
  }

  encode(timestamps: BigInt64Array, values: Float64Array): Uint8Array {
    const n = timestamps.length;
    if (values.length !== n) throw new RangeError(`${n} timestamps but ${values.length} values`);
    if (n > MAX_SAMPLES) throw chunkFull(MAX_SAMPLES);
    const cap = chunkCapacity(n);
    const out = this.input.ensure(cap);
    const ts = this.tsBlock.ensure(n * 8);
    const vals = this.valBlock.ensure(n * 8);
    copyIn(this.mem, ts, timestamps);
    copyIn(this.mem, vals, values);
    this.wasm.appenderInit(this.state, out);
    this.wasm.appendSamples(this.state, out, cap, ts, vals, n);
    const len = this.wasm.appenderBytes(this.state);
    return this.mem.u8().slice(out, out + len);
  }

  decode(chunk: Uint8Array): Samples {
    const n = chunkSampleCount(chunk);
    const samples = { timestamps: new BigInt64Array(n), values: new Float64Array(n) };
    this.decodeInto(chunk, samples.timestamps, samples.values);
    return samples;
  }

  /**
   * Decodes `chunk` into the first samples of `timestamps` and `values`
   * (each at least the chunk's sample count long) and returns the count.
   */
  decodeInto(chunk: Uint8Array, timestamps: BigInt64Array, values: Float64Array): number {
    const n = chunkSampleCount(chunk);
    const max = Math.min(timestamps.length, values.length);
    const buf = this.input.ensure(chunk.length + SLACK_BYTES);
    const out = this.output.ensure(n * 16);
    this.mem.u8().set(chunk, buf);
    const got = this.wasm.decodeChunk(this.state, buf, chunk.length, out, out + n * 8, max);
    if (got < 0) throw wasmDecodeError(got, this.wasm.iterIndex(this.state));
    // Same-type set() is a memcpy: value bits, NaN payloads included, stay as they are.
    this.outputViews(out, n, got);
    timestamps.set(this.outTs);
    values.set(this.outVals);
    return got;
  }

  /** Views of the decode output, rebuilt only when the place, count or memory changed. */
  private outputViews(ptr: number, n: number, got: number): void {
    const buffer = this.mem.u8().buffer;
    if (this.outTs.buffer !== buffer || this.outTs.byteOffset !== ptr || this.outTs.length !== got || this.outN !== n) {
      this.outTs = new BigInt64Array(buffer, ptr, got);
      this.outVals = new Float64Array(buffer, ptr + n * 8, got);
      this.outN = n;
    }
  }

  private outTs: BigInt64Array<ArrayBufferLike> = new BigInt64Array(0);
  private outVals: Float64Array<ArrayBufferLike> = new Float64Array(0);
  private outN = 0;
}
