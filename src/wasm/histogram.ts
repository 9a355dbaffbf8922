import { WasmBlock, WasmMemory } from './memory.js';
import { instantiateStrataWasm, type StrataWasm } from './module.js';

/** The histogram exports of build/strata.wasm (assembly/histogram.ts). Pointers are byte offsets. */
export interface HistogramWasmExports {
  histAppenderInit(state: number, buf: number): void;
  histWriteLayout(state: number, buf: number, layout: number, nPos: number, nNeg: number): void;
  histAppendInt(state: number, buckets: number, buf: number, cap: number, input: number, n: number): number;
  histAppendFloat(state: number, buckets: number, buf: number, cap: number, input: number, n: number): number;
  histAppenderBytes(state: number): number;
  histDecodeInit(it: number, buf: number, len: number, float: number): number;
  histDecodeSpans(it: number, buf: number, len: number, out: number): void;
  histDecode(it: number, buckets: number, buf: number, len: number, out: number, cap: number, float: number): number;
  histDecodeIndex(it: number): number;
  histDecodeField(it: number, field: number): number;
}

/**
 * The module's memory layout for histograms, as this side relies on it.
 * Checked against the module's exported constants at instantiation, so a
 * change on one side fails loudly instead of corrupting chunks.
 */
export const HIST = {
  STATE_SIZE: 136,
  BUCKET_STATE_SIZE: 16,
  SAMPLE_FIXED: 32,
  LAYOUT_SPANS: 16,
  MAX_FIXED_BYTES: 40,
  MAX_BUCKET_BYTES: 10,
  SLACK_BYTES: 8,
  ENCODE_BAD_INT: 1 << 20,
  STATE_ZT: 112,
  STATE_POS: 0,
  STATE_COUNT: 4,
} as const;

/** histDecodeField's fields. */
export const FIELD = { COUNT: 0, HEADER: 1, SCHEMA: 2, POS_SPANS: 3, NEG_SPANS: 4, NUM_POS: 5, NUM_NEG: 6 } as const;

function checkLayout(wasm: StrataWasm): HistogramWasmExports {
  const exports = wasm as unknown as Record<string, unknown>;
  for (const [name, want] of Object.entries(HIST)) {
    const global = exports[`HIST_${name}`] as { value: unknown } | undefined;
    if (global?.value !== want) {
      throw new Error(`build/strata.wasm: HIST_${name} is ${String(global?.value)}, this code expects ${want}: rebuild with \`npm run build:wasm\``);
    }
  }
  return wasm as unknown as HistogramWasmExports;
}

/**
 * One module instance's histogram functions with the scratch memory every
 * histogram call on this thread shares: calls are synchronous and never
 * nested, so one set of blocks serves every codec and appender.
 */
export class HistogramWasm {
  readonly fns: HistogramWasmExports;
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
    this.fns = checkLayout(wasm);
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
