/**
 * The series cache's table: keys of raw remote-write label bytes
 * (series-keys.ts; 96 of their 128 bits, below) to head series refs (series id + 1), in a
 * SharedArrayBuffer. The engine's thread is its one writer; the pool's
 * workers read it while they parse, so a series seen before is sent as a
 * ref and its labels are neither checked nor copied again.
 *
 * Layout (int32 words): [0] capacity in slots (a power of two), [1..4] the
 * table's two random 64-bit seeds (low word first), [5..7] zero; then
 * slots of four words: key A (low, high), key B's low word, ref. A slot
 * is published by its ref, stored last (Atomics.store). Slots are never
 * removed or reused: a table is replaced whole (series-cache.ts).
 *
 * 96 of the key's 128 bits are kept: 16 bytes a slot, not 20 (8 MiB less
 * at a million series, whose table has 2M slots). Two label sets then
 * share a key with a probability of about n^2 / 2^97 for n series: below
 * 10^-17 at a million, below 10^-16 at the 3 million a table holds.
 */
import { randomFillSync } from 'node:crypto';

const HEADER_WORDS = 8;
const SLOT_WORDS = 4;
const REF = 3;

/** Seeds of a table (xxh64 seeds of keys A and B) as the module takes them. */
export interface TableSeeds {
  a: bigint;
  b: bigint;
}

/** A new empty table of `capacity` slots (a power of two) with random seeds. */
export function newSeriesTable(capacity: number): SharedArrayBuffer {
  if (capacity < 2 || (capacity & (capacity - 1)) !== 0) throw new RangeError(`series table capacity ${capacity} is not a power of two`);
  const sab = new SharedArrayBuffer((HEADER_WORDS + capacity * SLOT_WORDS) * 4);
  const w = new Int32Array(sab);
  w[0] = capacity;
  randomFillSync(w, 1, 4);
  return sab;
}

export function tableSeeds(words: Int32Array): TableSeeds {
  return { a: u64(words[1]!, words[2]!), b: u64(words[3]!, words[4]!) };
}

function u64(lo: number, hi: number): bigint {
  return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
}

/** The ref stored for this key (key A's words, key B's low word), 0 when the table has none. Any thread. */
export function probeRef(words: Int32Array, aLo: number, aHi: number, bLo: number): number {
  const mask = words[0]! - 1;
  let i = aLo & mask;
  for (;;) {
    const s = HEADER_WORDS + i * SLOT_WORDS;
    // A plain read: the writer stores a slot's key, then its ref, each
    // exactly once, and slots are never reused. A reader racing with it
    // sees no ref (empty: a miss) or the final one, and a key it compares
    // partly written matches nothing: a miss, never a wrong ref.
    const ref = words[s + REF]!;
    if (ref === 0) return 0;
    if (words[s] === aLo && words[s + 1] === aHi && words[s + 2] === bLo) return ref >>> 0;
    i = (i + 1) & mask;
  }
}

/**
 * Stores key -> ref (the key as probeRef takes it) unless the key is there
 * already; false when it was. The writer's thread only; the caller keeps
 * the table below full.
 */
export function insertRef(words: Int32Array, aLo: number, aHi: number, bLo: number, ref: number): boolean {
  const mask = words[0]! - 1;
  let i = aLo & mask;
  for (;;) {
    const s = HEADER_WORDS + i * SLOT_WORDS;
    if (words[s + REF] === 0) {
      words[s] = aLo;
      words[s + 1] = aHi;
      words[s + 2] = bLo;
      Atomics.store(words, s + REF, ref | 0);
      return true;
    }
    if (words[s] === aLo && words[s + 1] === aHi && words[s + 2] === bLo) return false;
    i = (i + 1) & mask;
  }
}

/**
 * A table of `capacity` slots (a power of two, at least the old one's)
 * with the old table's seeds and every key -> ref it holds: its keys stay
 * valid, so a table that grows forgets nothing. The writer's thread only.
 */
export function grownSeriesTable(old: SharedArrayBuffer, capacity: number): SharedArrayBuffer {
  const from = new Int32Array(old);
  if (capacity < from[0]!) throw new RangeError(`series table cannot shrink from ${from[0]} to ${capacity} slots`);
  const sab = newSeriesTable(capacity);
  const to = new Int32Array(sab);
  to.set(from.subarray(1, 5), 1);
  const end = HEADER_WORDS + from[0]! * SLOT_WORDS;
  for (let s = HEADER_WORDS; s < end; s += SLOT_WORDS) {
    const ref = from[s + REF]!;
    if (ref !== 0) insertRef(to, from[s]!, from[s + 1]!, from[s + 2]!, ref);
  }
  return sab;
}

/** Bytes a table of `capacity` slots takes. */
export function tableBytes(capacity: number): number {
  return (HEADER_WORDS + capacity * SLOT_WORDS) * 4;
}
