/**
 * A read's merge of out-of-order samples into an XOR chunk, in this
 * thread's codec module: the chunk is decoded there, the samples (columns:
 * f64 times, value bits as u32 pairs) copied in beside it, merged and
 * encoded there as chunks of a given size in one call (assembly/merge.ts
 * mergeEncode); only the encoded bytes come back. The JS path (decode to columns, merge, encode
 * from columns) converted every time between i64 and f64 twice and cost
 * about 2x as much (issue 26).
 */
import { ENCODING_XOR } from '../encoding.js';
import { chunkFull, wasmDecodeError } from './errors.js';
import { WasmBlock } from '../../wasm/memory.js';
import { APPENDER_SIZE, ITERATOR_SIZE, MAX_SAMPLES, MERGED, SLACK_BYTES } from '../../wasm/layout.js';
import { chunkCapacity, chunkSampleCount, type WasmXorCodec } from './wasm-codec.js';

const TWO_32 = 4294967296;

/** An encoded chunk the merge made. */
export interface MergedXorChunk {
  minT: number;
  maxT: number;
  encoding: number;
  data: Uint8Array;
}

/**
 * Where merged chunks' bytes are copied (a read's ByteArena: one buffer
 * for many chunks, no ArrayBuffer a chunk); without one, each is a slice.
 */
export interface MergedBytes {
  /** A copy of src[from, to) that stays valid while the caller holds it. */
  own(src: Uint8Array, from: number, to: number): Uint8Array;
}

export class XorMerger {
  private readonly state: number;
  private readonly input: WasmBlock;
  private readonly decoded: WasmBlock;
  private readonly late: WasmBlock;
  private readonly merged: WasmBlock;
  private readonly encoded: WasmBlock;
  private readonly records: WasmBlock;

  constructor(private readonly codec: WasmXorCodec) {
    const w = codec.wasm;
    this.state = w.alloc(Math.max(APPENDER_SIZE, ITERATOR_SIZE));
    this.input = new WasmBlock(w);
    this.decoded = new WasmBlock(w);
    this.late = new WasmBlock(w);
    this.merged = new WasmBlock(w);
    this.encoded = new WasmBlock(w);
    this.records = new WasmBlock(w);
  }

  /**
   * Pushes to `out` the samples of XOR `chunk` (none when undefined) merged
   * with samples [from, to) of the sorted, distinct columns `t`/`v` (a
   * time in both keeps the chunk's sample), encoded as chunks of at most
   * `per` samples in time order, their bytes copied into `bytes`.
   */
  mergeInto(chunk: Uint8Array | undefined, t: Float64Array, v: Uint32Array, from: number, to: number, per: number, out: { push(c: MergedXorChunk): unknown }, bytes?: MergedBytes): void {
    if (!(per >= 1 && per <= MAX_SAMPLES)) throw chunkFull(MAX_SAMPLES);
    const w = this.codec.wasm;
    const mem = this.codec.mem;
    const an = chunk === undefined ? 0 : chunkSampleCount(chunk);
    const bn = to - from;
    const cap = chunkCapacity(per);
    const input = chunk === undefined ? 0 : this.input.ensure(chunk.length + SLACK_BYTES);
    const dec = this.decoded.ensure(an * 16);
    const late = this.late.ensure(bn * 16);
    const merged = this.merged.ensure((an + bn) * 16);
    const most = Math.ceil((an + bn) / per);
    const enc = this.encoded.ensure(most * cap);
    const recs = this.records.ensure(most * MERGED.size);
    let got = 0;
    if (chunk !== undefined) {
      mem.u8().set(chunk, input);
      got = w.decodeChunk(this.state, input, chunk.length, dec, dec + an * 8, an);
      if (got < 0) throw wasmDecodeError(got, w.iterIndex(this.state));
    }
    // Two memcpys (same-type set: the value bits stay as they are).
    mem.f64().set(t.subarray(from, to), late >>> 3);
    mem.u32().set(v.subarray(2 * from, 2 * to), (late + bn * 8) >>> 2);
    const nChunks = w.mergeEncode(this.state, dec, dec + an * 8, got, late, late + bn * 8, bn, merged, merged + (an + bn) * 8, per, enc, cap, recs);
    if (nChunks < 0) throw chunkFull(per);
    const words = mem.u32();
    const u8 = mem.u8();
    for (let c = 0; c < nChunks; c++) {
      const q = (recs + c * MERGED.size) >>> 2;
      const at = enc + words[q + (MERGED.off >>> 2)]!;
      const end = at + words[q + (MERGED.len >>> 2)]!;
      out.push({ minT: i64At(words, q + (MERGED.minT >>> 2)), maxT: i64At(words, q + (MERGED.maxT >>> 2)), encoding: ENCODING_XOR, data: bytes === undefined ? u8.slice(at, end) : bytes.own(u8, at, end) });
    }
  }
}

/** The i64 at word `q` (low word first) as a number, exact within ±2^53. */
function i64At(u32: Uint32Array, q: number): number {
  return (u32[q + 1]! | 0) * TWO_32 + u32[q]!;
}
