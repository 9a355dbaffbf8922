/**
 * The worker's half of the series cache: the 128-bit key of each
 * TimeSeries' raw label bytes (assembly/series-keys.ts: its leading Label
 * fields, hashed with the table's two seeds mixed with the tenant), looked
 * up in the shared table (series-table.ts, which keeps 96 of its bits).
 */
import type { HeadWasm } from '../wasm/head.js';
import { KEYED, SERIES_KEY } from '../wasm/layout.js';
import { probeRef, tableSeeds } from './series-table.js';

// Record of one TimeSeries, as assembly/series-keys.ts writes it, in int32 words.
const REC_WORDS = SERIES_KEY.size / 4;
const LABELS_END = SERIES_KEY.labelsEnd / 4;
const FLAGS = SERIES_KEY.flags / 4;
const KEY_A = SERIES_KEY.a / 4;

/** Refs found by the last RequestKeys.of on this thread, by TimeSeries. */
let refScratch = new Int32Array(4096);

/** A request's keys, in this thread's module memory until free(). */
export class RequestKeys {
  private i32: Int32Array;
  private readonly base: number;

  private constructor(
    private readonly wasm: HeadWasm,
    private readonly ptr: number,
    out: number,
    private readonly table: Int32Array,
  ) {
    this.i32 = new Int32Array(wasm.memory.buffer);
    this.base = out >>> 2;
  }

  /**
   * Keys the `series` TimeSeries of `bytes` (a WriteRequest whose tenant
   * label, canonical `name 0xFF value 0xFF`, is `tenant`); undefined when
   * the walk finds another count (a malformed request: read it in full).
   */
  static of(wasm: HeadWasm, bytes: Uint8Array, series: number, tenant: Uint8Array, table: Int32Array): RequestKeys | undefined {
    const w = wasm;
    const out = (bytes.length + 7) & ~7;
    const tenantAt = out + series * REC_WORDS * 4;
    const ptr = w.alloc(tenantAt + tenant.length + 8);
    const mem = new Uint8Array(w.memory.buffer);
    mem.set(bytes, ptr);
    mem.set(tenant, ptr + tenantAt);
    const seeds = tableSeeds(table);
    const seedA = w.xxh64(ptr + tenantAt, tenant.length, seeds.a);
    const seedB = w.xxh64(ptr + tenantAt, tenant.length, seeds.b);
    const n = w.seriesKeys(ptr, bytes.length, ptr + out, series, seedA, seedB);
    if (n !== series) {
      w.free(ptr);
      return undefined;
    }
    const keys = new RequestKeys(w, ptr, ptr + out, table);
    keys.probeAll(series);
    return keys;
  }

  /**
   * Looks every keyed TimeSeries up in one tight loop before the parse:
   * the table's cache misses, independent of each other, overlap there,
   * where one lookup per series inside the parse would wait for each.
   */
  private probeAll(n: number): void {
    if (refScratch.length < n) refScratch = new Int32Array(Math.max(n, refScratch.length * 2));
    const refs = refScratch;
    const w = this.i32;
    const table = this.table;
    for (let i = 0, r = this.base; i < n; i++, r += REC_WORDS) {
      refs[i] = (w[r + FLAGS]! & KEYED) === 0 ? 0 : probeRef(table, w[r + KEY_A]!, w[r + KEY_A + 1]!, w[r + KEY_A + 2]!);
    }
  }

  private words(): Int32Array {
    if (this.i32.length === 0) this.i32 = new Int32Array(this.wasm.memory.buffer);
    return this.i32;
  }

  /** Whether TimeSeries `i`'s key stands for its labels (see assembly/series-keys.ts). */
  keyed(i: number): boolean {
    return (this.words()[this.base + i * REC_WORDS + FLAGS]! & KEYED) !== 0;
  }

  /** The series ref the table held for TimeSeries `i` (keyed) when it was keyed, 0 when none. */
  ref(i: number): number {
    return refScratch[i]! >>> 0;
  }

  /** Where TimeSeries `i`'s leading labels end, as an offset of the request. */
  labelsEnd(i: number): number {
    return this.words()[this.base + i * REC_WORDS + LABELS_END]! - this.ptr;
  }

  /** Writes TimeSeries `i`'s key (four words) at `out[at]`. */
  copyKey(i: number, out: Int32Array, at: number): void {
    const w = this.words();
    const k = this.base + i * REC_WORDS + KEY_A;
    out[at] = w[k]!;
    out[at + 1] = w[k + 1]!;
    out[at + 2] = w[k + 2]!;
    out[at + 3] = w[k + 3]!;
  }

  free(): void {
    this.wasm.free(this.ptr);
  }
}
