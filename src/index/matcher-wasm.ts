import { instantiateStrataWasm, type StrataWasm } from '../wasm/module.js';

/**
 * The matcher's exports of build/strata.wasm (assembly/matcher.ts and
 * assembly/postings.ts). Pointers are byte offsets into `memory`; lists are
 * sorted, duplicate-free u32 ids; a descriptor table is `k` (pointer,
 * length) u32 pairs.
 */
export type MatcherWasm = StrataWasm & {
  intersect2(a: number, na: number, b: number, nb: number, out: number): number;
  intersectMany(desc: number, k: number, out: number, scratch: number): number;
  union2(a: number, na: number, b: number, nb: number, out: number): number;
  unionMany(desc: number, k: number, out: number, scratch: number): number;
  unionScratchBytes(desc: number, k: number): number;
  subtract(a: number, na: number, b: number, nb: number, out: number): number;
  matchValues(dict: number, offs: number, n: number, prog: number, want: number, out: number): number;
};

/** Writable ids an output buffer needs past its largest result (assembly/postings.ts). */
export const OUT_SLACK = 4;
/** Readable bytes needed past a value dictionary (assembly/matcher.ts). */
export const DICT_SLACK = 16;
/** Readable bytes needed past a program's last literal (assembly/matcher.ts). */
export const PROG_SLACK = 16;
/** Program flags and term kinds (assembly/matcher.ts). */
export const PROG_FOLD = 1;
export const PROG_UNSURE_NON_ASCII = 2;
export const ANY_NONE = 0;
export const ANY_STAR = 1;
export const ANY_PLUS = 2;
/** Set on a value index that `matchValues` could not decide. */
export const UNSURE = 0x80000000;

let instance: MatcherWasm | undefined;

/**
 * This thread's matcher module instance (its own memory, apart from the
 * codec's), created on first use. Not shared between threads.
 */
export function threadMatcherWasm(): MatcherWasm {
  instance ??= instantiateStrataWasm() as MatcherWasm;
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
