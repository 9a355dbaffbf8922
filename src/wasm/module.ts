import { readFileSync } from 'node:fs';
import type { StrataWasm } from './exports.js';
import { checkLayout } from './layout-check.js';

const wasmUrl = new URL('../../build/strata.wasm', import.meta.url);
let compiled: WebAssembly.Module | undefined;

function readModule(): WebAssembly.Module {
  let bytes: Buffer;
  try {
    bytes = readFileSync(wasmUrl);
  } catch (err) {
    throw new Error(`cannot read ${wasmUrl.pathname}: run \`npm run build:wasm\` first (${(err as Error).message})`);
  }
  return new WebAssembly.Module(bytes);
}

function instantiate(module: WebAssembly.Module): StrataWasm {
  const instance = new WebAssembly.Instance(module, {
    env: {
      abort(_msg: number, _file: number, line: number, column: number): never {
        throw new Error(`strata.wasm aborted at ${line}:${column}`);
      },
    },
  });
  return instance.exports as unknown as StrataWasm;
}

/**
 * A new instance of build/strata.wasm, with its own memory. The module is
 * compiled once per thread (synchronously: it is small), and its first
 * instance is checked against layout.ts (checkLayout): a module built from
 * other sources throws here, naming the constant, not later as corrupt data.
 * A module that fails the check is not kept, so every call fails alike.
 */
export function instantiateStrataWasm(): StrataWasm {
  if (compiled !== undefined) return instantiate(compiled);
  const module = readModule();
  const wasm = instantiate(module);
  checkLayout(wasm as unknown as Readonly<Record<string, unknown>>);
  compiled = module;
  return wasm;
}
