import { hasSurrogate, mergeUtf8, sortUtf8 } from '../encoding/utf8.js';

const encoder = new TextEncoder();

/**
 * The values of one label name: each distinct value once, numbered densely
 * in insertion order, with the number of its postings list. The UTF-8 bytes
 * of all values sit back to back in one buffer with n + 1 offsets (value i
 * is bytes[offsets[i], offsets[i + 1])), so the WebAssembly matcher scans a
 * whole dictionary with one call. Append-only; `retain` rebuilds it after
 * values lose their last series.
 */
export class LabelDict {
  private index = new Map<string, number>();
  /** Value by number: the one copy of each string the index keeps. */
  private strings: string[] = [];
  private listOf = new Uint32Array(8);
  private buf = new Uint8Array(64);
  private offs = new Uint32Array(9);
  /** Values sorted by UTF-8 bytes, covering the first `sortedCount` values. */
  private sorted: readonly string[] | undefined;
  private sortedCount = 0;
  /** Whether any value has a surrogate (then code unit order is not byte order). */
  private surrogates = false;
  /** Open addressing over the values' UTF-8 bytes: value number, or -1 for an empty slot (findBytes). */
  private slots = new Int32Array(16).fill(-1);
  private hashes = new Int32Array(8);
  /** The name's UTF-8 bytes and their hashBytes(), for finding the dictionary by bytes (PostingsIndex.addBytes). */
  readonly nameBytes: Uint8Array;
  readonly nameHash: number;

  /** Whether any value holds a surrogate: only then does UTF-16 order differ from UTF-8 byte order. */
  get hasSurrogates(): boolean {
    return this.surrogates;
  }

  constructor(readonly name: string) {
    this.nameBytes = encoder.encode(name);
    this.nameHash = hashBytes(this.nameBytes, 0, this.nameBytes.length);
  }

  /** Number of distinct values. */
  get size(): number {
    return this.strings.length;
  }

  /** The number of `value`, or -1. */
  find(value: string): number {
    return this.index.get(value) ?? -1;
  }

  /**
   * The number of the value whose UTF-8 bytes are `bytes[from, to)` and
   * whose {@link hashBytes} is `hash`, or -1: no string is made. Bytes that
   * are not valid UTF-8 are never found (values are stored re-encoded).
   */
  findBytes(bytes: Uint8Array, from: number, to: number, hash: number): number {
    const slots = this.slots;
    const mask = slots.length - 1;
    const buf = this.buf;
    const offs = this.offs;
    const len = to - from;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const v = slots[i]!;
      if (v < 0) return -1;
      if (this.hashes[v] !== hash) continue;
      const at = offs[v]!;
      if (offs[v + 1]! - at !== len) continue;
      let k = 0;
      while (k < len && buf[at + k] === bytes[from + k]) k++;
      if (k === len) return v;
    }
  }

  value(i: number): string {
    return this.strings[i]!;
  }

  /** The postings list number of value `i`. */
  list(i: number): number {
    return this.listOf[i]!;
  }

  /** Adds a value not yet present with its postings list; returns its number. */
  add(value: string, list: number): number {
    const i = this.strings.length;
    this.strings.push(value);
    this.index.set(value, i);
    if (i === this.listOf.length) this.listOf = grow32(this.listOf, i * 2);
    this.listOf[i] = list;
    if (i + 2 > this.offs.length) this.offs = grow32(this.offs, this.offs.length * 2);
    this.appendBytes(value);
    this.hashValue(i);
    return i;
  }

  /** UTF-8 bytes of all values; a view valid until the next change. */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.offs[this.size]!);
  }

  /** The n + 1 value offsets into `bytes()`; a view valid until the next change. */
  offsets(): Uint32Array {
    return this.offs.subarray(0, this.size + 1);
  }

  /**
   * All values, sorted by their UTF-8 bytes. Cached: values added since
   * the last call are sorted alone and merged in. Frozen: the same array
   * is answered until the values change, a new one after.
   */
  sortedValues(): readonly string[] {
    const n = this.strings.length;
    if (this.sorted === undefined) {
      this.sorted = Object.freeze(sortUtf8(this.strings.slice(), this.surrogates));
    } else if (this.sortedCount < n) {
      const fresh = sortUtf8(this.strings.slice(this.sortedCount), this.surrogates);
      this.sorted = Object.freeze(mergeUtf8(this.sorted, fresh, this.surrogates));
    }
    this.sortedCount = n;
    return this.sorted;
  }

  /**
   * Keeps only the values for which `keep(list)` is true (`list` is the
   * value's postings list), renumbering them in order; returns how many remain.
   */
  retain(keep: (list: number) => boolean): number {
    const strings = this.strings;
    const lists = this.listOf;
    this.index = new Map();
    this.strings = [];
    this.offs[0] = 0;
    this.slots.fill(-1);
    let k = 0;
    for (let i = 0; i < strings.length; i++) {
      const list = lists[i]!;
      if (!keep(list)) continue;
      const s = strings[i]!;
      this.index.set(s, k);
      this.strings.push(s);
      lists[k] = list;
      this.appendBytes(s);
      this.hashValue(k);
      k++;
    }
    this.sorted = undefined;
    return k;
  }

  /** Bytes held by the typed arrays (strings and the map are counted by the caller's estimate). */
  arrayBytes(): number {
    return this.buf.byteLength + this.offs.byteLength + this.listOf.byteLength;
  }

  /** Enters value `i` (its bytes appended) in the byte table, growing the table to stay at most half full. */
  private hashValue(i: number): void {
    if (i >= this.hashes.length) {
      const grown = new Int32Array(this.hashes.length * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    const hash = hashBytes(this.buf, this.offs[i]!, this.offs[i + 1]!);
    this.hashes[i] = hash;
    if ((i + 1) * 2 > this.slots.length) {
      this.slots = new Int32Array(this.slots.length * 2).fill(-1);
      for (let v = 0; v < i; v++) this.place(v, this.hashes[v]!);
    }
    this.place(i, hash);
  }

  private place(v: number, hash: number): void {
    const slots = this.slots;
    const mask = slots.length - 1;
    let at = hash & mask;
    while (slots[at]! >= 0) at = (at + 1) & mask;
    slots[at] = v;
  }

  /** Appends the bytes of the value just numbered `this.size - 1`. */
  private appendBytes(value: string): void {
    const n = this.strings.length;
    const at = this.offs[n - 1]!;
    // A UTF-16 code unit becomes at most 3 UTF-8 bytes.
    if (at + value.length * 3 > this.buf.length) {
      const grown = new Uint8Array(Math.max(this.buf.length * 2, at + value.length * 3));
      grown.set(this.buf.subarray(0, at));
      this.buf = grown;
    }
    const { written } = encoder.encodeInto(value, this.buf.subarray(at));
    this.offs[n] = at + written;
    // All-ASCII values (as many bytes as code units) have no surrogates.
    if (written !== value.length && !this.surrogates) this.surrogates = hasSurrogate(value);
  }
}

export const FNV_OFFSET = 0x811c9dc5 | 0;
export const FNV_PRIME = 16777619;

/** FNV-1a (32 bits) of `bytes[from, to)`: the key of LabelDict's byte table. */
function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = FNV_OFFSET;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, FNV_PRIME);
  return h;
}

function grow32(a: Uint32Array, n: number) {
  const b = new Uint32Array(n);
  b.set(a.subarray(0, Math.min(a.length, n)));
  return b;
}
