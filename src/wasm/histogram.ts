import type { HistogramExports, StrataWasm } from './exports.js';
import { HIST } from './layout.js';
import { WasmBlock, WasmMemory } from './memory.js';
import { instantiateStrataWasm } from './module.js';

/**
 * One module instance's histogram functions with the scratch memory every
 * histogram call on this thread shares: calls are synchronous and never
 * nested, so one set of blocks serves every codec and appender.
 */
export class HistogramWasm {
  readonly fns: HistogramExports;
  readonly mem: WasmMemory;
  /** Appender or decoder state, HIST.STATE_SIZE bytes. */
  readonly state: number;
  /** Per-bucket state. */
  readonly buckets: WasmBlock;
  /** The chunk (or its tail, for an appender), with slack. */
  readonly chunk: WasmBlock;
  /** Samples to append, or decoded samples. */
  readonly samples: WasmBlock;
  /** A layout to write, or decoded spans. */
  readonly layout: WasmBlock;

  constructor(readonly wasm: StrataWasm) {
    this.fns = wasm;
    this.mem = new WasmMemory(wasm);
    this.state = wasm.alloc(HIST.STATE_SIZE);
    this.buckets = new WasmBlock(wasm, 4096);
    this.chunk = new WasmBlock(wasm, 4096);
    this.samples = new WasmBlock(wasm, 65536);
    this.layout = new WasmBlock(wasm, 256);
  }
}

let threadInstance: HistogramWasm | undefined;

/** This thread's histogram module, created on first use (its own module instance). */
export function threadHistogramWasm(): HistogramWasm {
  threadInstance ??= new HistogramWasm(instantiateStrataWasm());
  return threadInstance;
}
