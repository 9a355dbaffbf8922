import { LIST_DESC, OUT_SLACK } from '../wasm/layout.js';
import { threadMatcherWasm, type MatcherWasm } from '../wasm/matcher.js';
import { WasmMemory } from '../wasm/memory.js';

/** Where a workspace copies stored postings lists from (PostingsLists). */
export interface ListSource {
  length(list: number): number;
  /** Copies the list's ids into `dst` from index `at`; returns how many. */
  copyTo(list: number, dst: Uint32Array, at: number): number;
}

/** A sorted id list in module memory; valid until its workspace is released. */
export interface Resident {
  /** Byte offset in module memory. */
  readonly ptr: number;
  readonly length: number;
}

const EMPTY: Resident = { ptr: 0, length: 0 };

// A descriptor table entry (LIST_DESC) in u32 words.
const DESC_WORDS = LIST_DESC.size >>> 2;
const DESC_PTR = LIST_DESC.ptr >>> 2;
const DESC_LENGTH = LIST_DESC.length >>> 2;

/** Plain arrays as a ListSource: list number i is lists[i]. */
class ArraysSource implements ListSource {
  constructor(private readonly lists: readonly Uint32Array[]) {}

  length(list: number): number {
    return this.lists[list]!.length;
  }

  copyTo(list: number, dst: Uint32Array, at: number): number {
    const src = this.lists[list]!;
    // A short loop beats set() on a tiny array.
    if (src.length <= 16) for (let i = 0; i < src.length; i++) dst[at + i] = src[i]!;
    else dst.set(src, at);
    return src.length;
  }
}

/**
 * Postings set algebra in WebAssembly (assembly/postings.ts). The simple
 * methods copy their inputs in and the result out; `workspace()` keeps
 * intermediate results in module memory so that a chain of operations
 * (unions of many lists, then an intersection, then a subtraction) copies
 * each input once and only the final result out.
 */
export class PostingsAlgebra {
  readonly views: WasmMemory;

  constructor(readonly wasm: MatcherWasm = threadMatcherWasm()) {
    this.views = new WasmMemory(wasm);
  }

  /** A workspace; release it (try/finally) to free its module memory. */
  workspace(): Workspace {
    return new Workspace(this.wasm, this.views);
  }

  /** Ids in every list (none for no lists). Lists are sorted and duplicate-free. */
  intersect(lists: readonly Uint32Array[]): Uint32Array {
    return this.run((ws) => ws.intersect(ws.fromArrays(lists)));
  }

  /** Ids in any list, sorted, without duplicates. */
  union(lists: readonly Uint32Array[]): Uint32Array {
    return this.run((ws) => ws.unionArrays(lists));
  }

  /** Ids of `a` not in `b`. */
  subtract(a: Uint32Array, b: Uint32Array): Uint32Array {
    return this.run((ws) => ws.subtract(ws.fromArray(a), ws.fromArray(b)));
  }

  private run(op: (ws: Workspace) => Resident): Uint32Array {
    const ws = this.workspace();
    try {
      return ws.toArray(op(ws));
    } finally {
      ws.release();
    }
  }
}

/**
 * Module memory for one chain of set operations. Every Resident it returns
 * lives until `release`, which frees this workspace's blocks only (several
 * workspaces may share a module instance).
 */
export class Workspace {
  private blocks: number[] = [];

  constructor(
    private readonly wasm: MatcherWasm,
    private readonly views: WasmMemory,
  ) {}

  /** Copies a sorted id list in. */
  fromArray(ids: Uint32Array): Resident {
    if (ids.length === 0) return EMPTY;
    const ptr = this.alloc(ids.length + OUT_SLACK);
    this.views.u32().set(ids, ptr >>> 2);
    return { ptr, length: ids.length };
  }

  /** Copies several sorted id lists in, into one block. */
  fromArrays(lists: readonly Uint32Array[]): Resident[] {
    let total = 0;
    for (const l of lists) total += l.length;
    const block = this.alloc(total + OUT_SLACK);
    const u32 = this.views.u32();
    let at = block >>> 2;
    return lists.map((l) => {
      u32.set(l, at);
      const r = { ptr: at * 4, length: l.length };
      at += l.length;
      return r;
    });
  }

  /** The union of sorted id lists: copied into one block, then merged in WebAssembly. */
  unionArrays(lists: readonly Uint32Array[]): Resident {
    const keys = new Uint32Array(lists.length);
    for (let i = 0; i < keys.length; i++) keys[i] = i;
    return this.fromLists(new ArraysSource(lists), keys);
  }

  /** The union of stored lists: each copied in once, then merged in WebAssembly. */
  fromLists(src: ListSource, lists: Uint32Array): Resident {
    const k = lists.length;
    if (k === 0) return EMPTY;
    let total = 0;
    for (let i = 0; i < k; i++) total += src.length(lists[i]!);
    if (total === 0) return EMPTY;
    const data = this.alloc(total + OUT_SLACK);
    if (k === 1) {
      src.copyTo(lists[0]!, this.views.u32(), data >>> 2);
      return { ptr: data, length: total };
    }
    const desc = this.allocBytes(k * LIST_DESC.size);
    const u32 = this.views.u32();
    let at = data >>> 2;
    for (let i = 0; i < k; i++) {
      const n = src.copyTo(lists[i]!, u32, at);
      const e = (desc >>> 2) + i * DESC_WORDS;
      u32[e + DESC_PTR] = at * 4;
      u32[e + DESC_LENGTH] = n;
      at += n;
    }
    return this.unionDesc(desc, k, total, data);
  }

  /** Ids in every set (empty for no sets). */
  intersect(sets: readonly Resident[]): Resident {
    if (sets.length === 0) return EMPTY;
    if (sets.length === 1) return sets[0]!;
    let min = Infinity;
    for (const s of sets) min = Math.min(min, s.length);
    if (min === 0) return EMPTY;
    const desc = this.table(sets);
    const out = this.alloc(min + OUT_SLACK);
    const scratch = this.alloc(min + OUT_SLACK);
    const n = this.wasm.intersectMany(desc, sets.length, out, scratch) >>> 0;
    this.freeNow(scratch);
    this.freeNow(desc);
    return { ptr: out, length: n };
  }

  /** Ids of `a` not in `b`. */
  subtract(a: Resident, b: Resident): Resident {
    if (a.length === 0 || b.length === 0) return a;
    const out = this.alloc(a.length + OUT_SLACK);
    return { ptr: out, length: this.wasm.subtract(a.ptr, a.length, b.ptr, b.length, out) >>> 0 };
  }

  /** Copies a set out into a new array. */
  toArray(r: Resident): Uint32Array {
    if (r.length === 0) return new Uint32Array(0);
    return this.views.u32().slice(r.ptr >>> 2, (r.ptr >>> 2) + r.length);
  }

  /** Frees everything this workspace allocated. */
  release(): void {
    for (const p of this.blocks) this.wasm.free(p);
    this.blocks = [];
  }

  /** Unites the lists of a descriptor table, then frees the table and the block `inputs` that held the lists. */
  private unionDesc(desc: number, k: number, total: number, inputs: number): Resident {
    const scratch = this.allocBytes(this.wasm.unionScratchBytes(desc, k) >>> 0);
    const out = this.alloc(total + OUT_SLACK);
    const n = this.wasm.unionMany(desc, k, out, scratch) >>> 0;
    this.freeNow(scratch);
    this.freeNow(desc);
    this.freeNow(inputs);
    return { ptr: out, length: n };
  }

  /** A descriptor table (LIST_DESC entries) of the sets. */
  private table(sets: readonly Resident[]): number {
    const desc = this.allocBytes(sets.length * LIST_DESC.size);
    const u32 = this.views.u32();
    sets.forEach((s, i) => {
      const e = (desc >>> 2) + i * DESC_WORDS;
      u32[e + DESC_PTR] = s.ptr;
      u32[e + DESC_LENGTH] = s.length;
    });
    return desc;
  }

  /** Allocates room for `ids` u32 values. Module memory may grow: views are refetched after. */
  private alloc(ids: number): number {
    return this.allocBytes(ids * 4);
  }

  private allocBytes(bytes: number): number {
    const p = this.wasm.alloc(Math.max(bytes, 16)) >>> 0;
    this.blocks.push(p);
    return p;
  }

  private freeNow(p: number): void {
    const i = this.blocks.lastIndexOf(p);
    if (i >= 0) {
      this.blocks.splice(i, 1);
      this.wasm.free(p);
    }
  }
}
