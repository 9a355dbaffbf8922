/**
 * A block's `tombstones` file (Prometheus tsdb/tombstones/tombstones.go,
 * tsdb/docs/format/tombstones.md):
 *
 *   magic 0x0130BA30 (BE) | version 1 | stone* | CRC32C (BE) of the stones
 *   stone = series ref (uvarint) | mint (varint) | maxt (varint)
 *
 * The CRC covers the stones only, not the version byte. An empty file is
 * the 9 bytes `01 30 BA 30 01 00 00 00 00`. Format: docs/format/block.md.
 */
import { readFile } from 'node:fs/promises';
import { crc32c } from '@node-rs/crc32';
import { readUvarint64, VARINT_CUT_SHORT, type Uvarint64Read } from '../encoding/varint.js';
import { putBE32, readBE32 } from '../encoding/big-endian.js';
import { writeFileDurably } from '../files/durable.js';
import { BlockFormatError } from './index-reader.js';

export const TOMBSTONES_FILENAME = 'tombstones';
export const TOMBSTONES_MAGIC = 0x0130ba30;
export const TOMBSTONES_FORMAT_V1 = 1;

/** A deleted time range of a series, inclusive at both ends (ms). */
export interface TombstoneInterval {
  minT: number;
  maxT: number;
}

/** The tombstones of a block. */
export interface Tombstones {
  /** Intervals per series reference, sorted and merged as Prometheus merges them. */
  bySeries: Map<number, TombstoneInterval[]>;
  /** Number of intervals after merging (Prometheus' Total(), meta's numTombstones). */
  count: number;
}

/**
 * Writes an empty tombstones file into `dir` as Prometheus does: to
 * `tombstones.tmp`, fsynced, renamed over `tombstones`, directory fsynced.
 * Returns its size (9).
 */
export async function writeEmptyTombstones(dir: string): Promise<number> {
  const bytes = new Uint8Array(9);
  putBE32(bytes, 0, TOMBSTONES_MAGIC);
  bytes[4] = TOMBSTONES_FORMAT_V1;
  putBE32(bytes, 5, crc32c(new Uint8Array(0)) >>> 0);
  return writeFileDurably(dir, TOMBSTONES_FILENAME, bytes);
}

/**
 * Reads a tombstones file. A missing file means no tombstones (as in
 * Prometheus). Throws an Error naming the file on a bad magic number,
 * version or checksum, or a malformed stone.
 */
export async function readTombstones(path: string): Promise<Tombstones> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { bySeries: new Map(), count: 0 };
    throw err;
  }
  return parseTombstones(bytes, path);
}

/** Parses the bytes of a tombstones file; `path` names it in errors. */
export function parseTombstones(bytes: Uint8Array, path: string): Tombstones {
  const fail = (problem: string, offset = 0): never => {
    throw new BlockFormatError(path, offset, problem);
  };
  if (bytes.length < 9) fail(`${bytes.length} bytes, too short for a tombstones file (at least 9)`);
  const magic = readBE32(bytes, 0);
  if (magic !== TOMBSTONES_MAGIC) {
    fail(`bad tombstones magic 0x${magic.toString(16).padStart(8, '0')}, want 0x${TOMBSTONES_MAGIC.toString(16).padStart(8, '0')}`);
  }
  const end = bytes.length - 4;
  const stored = readBE32(bytes, end);
  const computed = crc32c(bytes.subarray(5, end)) >>> 0;
  if (stored !== computed) {
    fail(`tombstones CRC32C mismatch: stored 0x${stored.toString(16).padStart(8, '0')}, computed 0x${computed.toString(16).padStart(8, '0')} over bytes 5..${end}`, end);
  }
  const version = bytes[4]!;
  if (version !== TOMBSTONES_FORMAT_V1) fail(`unsupported tombstones format version ${version}, want ${TOMBSTONES_FORMAT_V1}`, 4);

  const bySeries = new Map<number, TombstoneInterval[]>();
  let at = 5;
  const read: Uvarint64Read = { value: 0n, next: 0 };
  const uint64 = (what: string): bigint => {
    const { next } = readUvarint64(bytes, at, end, read);
    if (next === VARINT_CUT_SHORT) fail(`truncated ${what}`, at);
    if (next < 0) fail(`${what} is longer than 64 bits`, at);
    at = next;
    return read.value;
  };
  const time = (what: string): number => {
    const u = uint64(what);
    const v = BigInt.asIntN(64, (u >> 1n) ^ -(u & 1n));
    // Prometheus uses math.MinInt64/MaxInt64 for open ends; clamp them to
    // the range of times we can hold, which no sample lies outside of.
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) return Number.MAX_SAFE_INTEGER;
    if (v < BigInt(Number.MIN_SAFE_INTEGER)) return Number.MIN_SAFE_INTEGER;
    return Number(v);
  };
  while (at < end) {
    const refAt = at;
    const ref = uint64('series reference');
    if (ref > BigInt(Number.MAX_SAFE_INTEGER)) fail(`series reference ${ref} is too large`, refAt);
    const minT = time('interval start');
    const maxT = time('interval end');
    const key = Number(ref);
    bySeries.set(key, addInterval(bySeries.get(key) ?? [], { minT, maxT }));
  }
  let count = 0;
  for (const ivs of bySeries.values()) count += ivs.length;
  return { bySeries, count };
}

/**
 * Adds `n` to sorted, non-overlapping intervals, merging it with those it
 * overlaps or touches (a gap of one millisecond or less), as Prometheus'
 * Intervals.Add does. Returns the new list (`list` may be changed).
 */
export function addInterval(list: TombstoneInterval[], n: TombstoneInterval): TombstoneInterval[] {
  // First interval that ends at or after n.minT - 1.
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.maxT >= n.minT - 1) hi = mid;
    else lo = mid + 1;
  }
  const mini = lo;
  if (mini === list.length) {
    list.push({ ...n });
    return list;
  }
  // First interval at or after mini that starts after n.maxT + 1.
  lo = mini;
  hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.minT > n.maxT + 1) hi = mid;
    else lo = mid + 1;
  }
  const after = lo;
  if (after === mini) {
    list.splice(mini, 0, { ...n });
    return list;
  }
  const merged = {
    minT: Math.min(n.minT, list[mini]!.minT),
    maxT: Math.max(n.maxT, list[after - 1]!.maxT),
  };
  list.splice(mini, after - mini, merged);
  return list;
}
