import { readFileSync } from 'node:fs';

/** The exports of build/strata.wasm (see assembly/index.ts). Pointers are byte offsets. */
export interface StrataWasm {
  memory: WebAssembly.Memory;
  alloc(size: number): number;
  free(ptr: number): void;
  appenderInit(state: number, buf: number): void;
  appenderBytes(state: number): number;
  appenderCount(state: number): number;
  appendSamples(state: number, buf: number, cap: number, ts: number, vals: number, n: number): number;
  iterInit(it: number, buf: number, len: number): number;
  iterBatch(it: number, buf: number, len: number, tsOut: number, valOut: number, max: number): number;
  iterSeek(it: number, buf: number, len: number, target: bigint, tsOut: number, valOut: number): number;
  iterIndex(it: number): number;
  iterErr(it: number): number;
  decodeChunk(it: number, buf: number, len: number, tsOut: number, valOut: number, max: number): number;
}

/** Sizes fixed by assembly/xor.ts. */
export const APPENDER_SIZE = 48;
export const ITERATOR_SIZE = 48;
/** Readable slack the module needs after every chunk buffer. */
export const SLACK_BYTES = 8;
/** Upper bound of the bytes one sample adds to a chunk (157 bits, rounded up). */
export const MAX_SAMPLE_BYTES = 20;
export const MAX_SAMPLES = 65535;

const wasmUrl = new URL('../../build/strata.wasm', import.meta.url);
let compiled: WebAssembly.Module | undefined;

/**
 * Compiles build/strata.wasm once per thread (synchronously: it is small)
 * and returns a new instance with its own memory.
 */
export function instantiateStrataWasm(): StrataWasm {
  if (compiled === undefined) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(wasmUrl);
    } catch (err) {
      throw new Error(`cannot read ${wasmUrl.pathname}: run \`npm run build:wasm\` first (${(err as Error).message})`);
    }
    compiled = new WebAssembly.Module(bytes);
  }
  const instance = new WebAssembly.Instance(compiled, {
    env: {
      abort(_msg: number, _file: number, line: number, column: number): never {
        throw new Error(`strata.wasm aborted at ${line}:${column}`);
      },
    },
  });
  return instance.exports as unknown as StrataWasm;
}
