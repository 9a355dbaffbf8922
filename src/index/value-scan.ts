import type { LabelDict } from './label-dict.js';
import { DICT_SLACK } from '../wasm/layout.js';
import { threadMatcherWasm, type MatcherWasm } from '../wasm/matcher.js';
import { WasmMemory } from '../wasm/memory.js';

/**
 * Runs fast-path programs (scan-program.ts) over value dictionaries in
 * WebAssembly: one copy of the dictionary's bytes and offsets into module
 * memory, one call, one copy of the answer out.
 */
export class ValueScanner {
  private readonly views: WasmMemory;
  private result = new Uint32Array(256);

  constructor(readonly wasm: MatcherWasm = threadMatcherWasm()) {
    this.views = new WasmMemory(wasm);
  }

  /**
   * Indexes of the values of `dict` whose match result is `want`, in
   * order, plus undecided ones with UNSURE set (the caller decides those).
   * A view valid until the next call.
   */
  scan(dict: LabelDict, program: Uint8Array, want: boolean): Uint32Array {
    const n = dict.size;
    const bytes = dict.bytes();
    const offsets = dict.offsets();
    const wasm = this.wasm;
    // One block: program, offsets, output, then the bytes and their slack.
    const progAt = 0;
    const offsAt = align16(program.length);
    const outAt = offsAt + align16((n + 1) * 4);
    const bytesAt = outAt + align16(n * 4);
    const size = bytesAt + bytes.length + DICT_SLACK;
    const base = wasm.alloc(size);
    try {
      const u8 = this.views.u8();
      u8.set(program, base + progAt);
      this.views.u32().set(offsets, (base + offsAt) >>> 2);
      u8.set(bytes, base + bytesAt);
      u8.fill(0, base + bytesAt + bytes.length, base + size);
      const k = wasm.matchValues(base + bytesAt, base + offsAt, n, base + progAt, want ? 1 : 0, base + outAt);
      if (k > this.result.length) this.result = new Uint32Array(Math.max(k, this.result.length * 2));
      const start = (base + outAt) >>> 2;
      this.result.set(this.views.u32().subarray(start, start + k));
      return this.result.subarray(0, k);
    } finally {
      wasm.free(base);
    }
  }
}

function align16(n: number): number {
  return (n + 15) & ~15;
}

let scanner: ValueScanner | undefined;

/** This thread's scanner. */
export function threadValueScanner(): ValueScanner {
  scanner ??= new ValueScanner();
  return scanner;
}
