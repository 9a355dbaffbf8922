import type { MatcherExports, MemoryExports } from '../wasm/exports.js';
import { instantiateStrataWasm } from '../wasm/module.js';

export {
  OUT_SLACK, DICT_SLACK, PROG_SLACK, PROG_FOLD, PROG_UNSURE_NON_ASCII, ANY_NONE, ANY_STAR, ANY_PLUS, UNSURE,
} from '../wasm/layout.js';

/** The matcher's exports of build/strata.wasm (src/wasm/exports.ts). */
export type MatcherWasm = MemoryExports & MatcherExports;

let instance: MatcherWasm | undefined;

/**
 * This thread's matcher module instance (its own memory, apart from the
 * codec's), created on first use. Not shared between threads.
 */
export function threadMatcherWasm(): MatcherWasm {
  instance ??= instantiateStrataWasm();
  return instance;
}

/**
 * Views over a module's memory, rebuilt after the memory grows (growing
 * detaches old views: a detached view has length 0).
 */
export class MatcherViews {
  private u8View = new Uint8Array(0);
  private u32View = new Uint32Array(0);

  constructor(readonly wasm: MatcherWasm) {}

  u8(): Uint8Array {
    if (this.u8View.length === 0) this.refresh();
    return this.u8View;
  }

  u32(): Uint32Array {
    if (this.u32View.length === 0) this.refresh();
    return this.u32View;
  }

  private refresh(): void {
    const buffer = this.wasm.memory.buffer;
    this.u8View = new Uint8Array(buffer);
    this.u32View = new Uint32Array(buffer);
  }
}
