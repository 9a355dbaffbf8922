/**
 * Opens a Prometheus TSDB block directory for reading: meta.json (parsed and
 * validated), tombstones (checked and counted), index and chunks (mapped;
 * see index-reader.ts and chunk-reader.ts). Works on blocks Strata wrote and
 * blocks a real Prometheus (or Thanos) wrote.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BlockChunkReader } from './chunk-reader.js';
import { BlockFormatError, BlockIndexReader, crc32cRange, readU32BE } from './index-reader.js';
import type { BlockCompaction, BlockMeta, ThanosMeta } from './types.js';

/** First four bytes of a tombstones file (big endian). */
export const TOMBSTONES_MAGIC = 0x0130ba30;
/** Tombstones format version this reader decodes. */
export const TOMBSTONES_FORMAT_V1 = 1;

/** A ULID as oklog/ulid's ParseStrict accepts it: 26 Crockford base32 digits, at most 2^128 - 1. */
const ULID_RE = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/i;

/** Whether `name` is a block ULID (26 Crockford base32 characters). */
export function isUlid(name: string): boolean {
  return ULID_RE.test(name);
}

/**
 * The block directories in `blocksDir`: subdirectories whose names are
 * ULIDs, as full paths sorted by ULID (so by creation time). Anything else,
 * `*.tmp-for-creation` and `*.tmp-for-deletion` included, is ignored.
 */
export function listBlockDirs(blocksDir: string): string[] {
  const names: string[] = [];
  for (const e of readdirSync(blocksDir, { withFileTypes: true })) {
    if (!isUlid(e.name)) continue;
    let dir = e.isDirectory();
    if (!dir && e.isSymbolicLink()) {
      try {
        dir = statSync(join(blocksDir, e.name)).isDirectory();
      } catch {
        dir = false;
      }
    }
    if (dir) names.push(e.name);
  }
  names.sort((a, b) => {
    const x = a.toUpperCase();
    const y = b.toUpperCase();
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return names.map((n) => join(blocksDir, n));
}

export class BlockReader {
  readonly ulid: string;
  /** First sample's time, inclusive (meta.json). */
  readonly minTime: number;
  /** Exclusive end of the block's time range (meta.json). */
  readonly maxTime: number;
  /** Number of tombstone intervals (deleted time ranges) in the tombstones file; 0 without one. */
  readonly tombstones: number;

  private constructor(
    readonly dir: string,
    readonly meta: BlockMeta,
    readonly index: BlockIndexReader,
    readonly chunks: BlockChunkReader,
    tombstones: number,
    private readonly metaBytes: number,
    private readonly tombstonesBytes: number,
  ) {
    this.ulid = meta.ulid;
    this.minTime = meta.minTime;
    this.maxTime = meta.maxTime;
    this.tombstones = tombstones;
  }

  /** Opens the block in `dir`; throws a BlockFormatError naming the bad file otherwise. */
  static open(dir: string): BlockReader {
    return BlockReader.assemble(dir, (path) => BlockIndexReader.open(path));
  }

  /** open() that pauses where `tick` asks while it walks the index (see BlockIndexReader.openAsync). */
  static async openAsync(dir: string, tick: (work: number) => Promise<void> | undefined): Promise<BlockReader> {
    const index = await BlockIndexReader.openAsync(join(dir, 'index'), tick);
    return BlockReader.assemble(dir, () => index);
  }

  private static assemble(dir: string, openIndex: (path: string) => BlockIndexReader): BlockReader {
    const metaPath = join(dir, 'meta.json');
    let metaText: Buffer;
    try {
      metaText = readFileSync(metaPath);
    } catch (err) {
      throw new BlockFormatError(metaPath, 0, `cannot read: ${(err as Error).message}`);
    }
    const meta = parseMeta(metaText, metaPath);
    const { count, bytes } = readTombstones(join(dir, 'tombstones'));
    const chunks = BlockChunkReader.open(join(dir, 'chunks'));
    let index: BlockIndexReader;
    try {
      index = openIndex(join(dir, 'index'));
    } catch (err) {
      chunks.close();
      throw err;
    }
    return new BlockReader(dir, meta, index, chunks, count, metaText.length, bytes);
  }

  /** Lets the process' resident pages of the block's files go; reads still work. */
  releasePages(): void {
    this.index.releasePages();
    this.chunks.releasePages();
  }

  /** Closes index and chunks; views and strings handed out stay valid. */
  close(): void {
    this.index.close();
    this.chunks.close();
  }

  /** Bytes of the block's files as Prometheus' Block.Size() counts them: chunks, index, tombstones, meta.json. */
  sizeBytes(): number {
    return this.chunks.size + this.index.size + this.tombstonesBytes + this.metaBytes;
  }
}

// ------------------------------------------------------------ tombstones

/**
 * Checks a tombstones file (magic, version, CRC32C of the intervals) and
 * counts its intervals. A missing file is an empty one, as for Prometheus.
 */
function readTombstones(path: string): { count: number; bytes: number } {
  let b: Buffer;
  try {
    b = readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { count: 0, bytes: 0 };
    throw new BlockFormatError(path, 0, `cannot read: ${(err as Error).message}`);
  }
  if (b.length < 9) throw new BlockFormatError(path, 0, `tombstones file of ${b.length} bytes is shorter than magic, version and CRC32C (9)`);
  const magic = readU32BE(b, 0);
  if (magic !== TOMBSTONES_MAGIC) {
    throw new BlockFormatError(path, 0, `bad tombstones magic 0x${magic.toString(16).padStart(8, '0')}, want 0x${TOMBSTONES_MAGIC.toString(16).padStart(8, '0')}`);
  }
  if (b[4] !== TOMBSTONES_FORMAT_V1) throw new BlockFormatError(path, 4, `unknown tombstones format version ${b[4]}, want ${TOMBSTONES_FORMAT_V1}`);
  const end = b.length - 4;
  // Prometheus checksums the intervals only, not the version byte.
  const stored = readU32BE(b, end);
  const computed = crc32cRange(b, 5, end);
  if (stored !== computed) {
    throw new BlockFormatError(path, end, `tombstones CRC32C mismatch: stored 0x${stored.toString(16).padStart(8, '0')}, computed 0x${computed.toString(16).padStart(8, '0')} over bytes 5..${end}`);
  }
  // Intervals: series ref <uvarint>, mint <varint>, maxt <varint>.
  let count = 0;
  let p = 5;
  while (p < end) {
    const start = p;
    for (let k = 0; k < 3; k++) {
      let n = 0;
      while (p < end && b[p]! >= 0x80 && n < 9) {
        p++;
        n++;
      }
      if (p >= end || b[p]! >= 0x80) throw new BlockFormatError(path, start, `tombstone ${count} is truncated or has a bad varint`);
      p++;
    }
    count++;
  }
  return { count, bytes: b.length };
}

// ------------------------------------------------------------ meta.json

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Parses and validates meta.json (version 1) the way Go's encoding/json
 * reads it into Prometheus' BlockMeta: absent stats count as 0 and absent
 * sources as none, but wrong types, a bad ULID or a bad time range fail.
 */
function parseMeta(text: Buffer, path: string): BlockMeta {
  const fail = (problem: string): never => {
    throw new BlockFormatError(path, 0, problem);
  };
  let raw: unknown;
  try {
    raw = JSON.parse(text.toString('utf8'));
  } catch (err) {
    return fail(`not JSON: ${(err as Error).message}`);
  }
  if (!isObject(raw)) return fail('meta.json is not a JSON object');
  if (raw.version !== 1) fail(`unexpected meta file version ${JSON.stringify(raw.version)}, want 1`);
  const ulid = raw.ulid;
  if (typeof ulid !== 'string' || !isUlid(ulid)) fail(`"ulid" ${JSON.stringify(ulid)} is not a ULID`);
  const int = (v: unknown, what: string, min = Number.MIN_SAFE_INTEGER): number => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
      return fail(`${what} ${JSON.stringify(v)} is not ${min === 0 ? 'a non-negative' : 'an'} integer (within ±2^53)`);
    }
    return v;
  };
  const minTime = int(raw.minTime, '"minTime"');
  const maxTime = int(raw.maxTime, '"maxTime"');

  const rawStats = raw.stats ?? {};
  if (!isObject(rawStats)) return fail('"stats" is not an object');
  const stat = (key: string): number => (rawStats[key] === undefined ? 0 : int(rawStats[key], `"stats.${key}"`, 0));
  const stats: BlockMeta['stats'] = {
    numSamples: stat('numSamples'),
    numSeries: stat('numSeries'),
    numChunks: stat('numChunks'),
  };
  for (const key of ['numTombstones', 'numFloatSamples', 'numHistogramSamples'] as const) {
    if (rawStats[key] !== undefined) stats[key] = stat(key);
  }
  if (!(minTime < maxTime || (minTime === maxTime && stats.numSamples === 0))) {
    fail(`"minTime" ${minTime} must be less than "maxTime" ${maxTime} (or equal for an empty block)`);
  }

  const rawCompaction = raw.compaction ?? {};
  if (!isObject(rawCompaction)) return fail('"compaction" is not an object');
  const ulids = (v: unknown, what: string): string[] => {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) return fail(`${what} is not an array`);
    return v.map((u, i) => (typeof u === 'string' && isUlid(u) ? u : fail(`${what}[${i}] ${JSON.stringify(u)} is not a ULID`)));
  };
  const compaction: BlockCompaction = {
    level: rawCompaction.level === undefined ? 0 : int(rawCompaction.level, '"compaction.level"', 0),
    sources: ulids(rawCompaction.sources, '"compaction.sources"'),
  };
  if (rawCompaction.parents !== undefined && rawCompaction.parents !== null) {
    if (!Array.isArray(rawCompaction.parents)) fail('"compaction.parents" is not an array');
    compaction.parents = (rawCompaction.parents as unknown[]).map((p, i) => {
      if (!isObject(p)) return fail(`"compaction.parents[${i}]" is not an object`);
      const u = p.ulid;
      if (typeof u !== 'string' || !isUlid(u)) return fail(`"compaction.parents[${i}].ulid" ${JSON.stringify(u)} is not a ULID`);
      return { ulid: u, minTime: int(p.minTime, `"compaction.parents[${i}].minTime"`), maxTime: int(p.maxTime, `"compaction.parents[${i}].maxTime"`) };
    });
  }
  if (rawCompaction.hints !== undefined && rawCompaction.hints !== null) {
    const h = rawCompaction.hints;
    if (!Array.isArray(h) || !h.every((x) => typeof x === 'string')) fail('"compaction.hints" is not an array of strings');
    compaction.hints = h as string[];
  }
  for (const key of ['failed', 'deletable'] as const) {
    const v = rawCompaction[key];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') fail(`"compaction.${key}" is not a boolean`);
    compaction[key] = v as boolean;
  }

  const meta: BlockMeta = { ulid: ulid as string, minTime, maxTime, stats, compaction, version: 1 };
  if (raw.thanos !== undefined && raw.thanos !== null) meta.thanos = parseThanos(raw.thanos, fail);
  return meta;
}

/** The optional "thanos" section; missing parts get Thanos' zero values. */
function parseThanos(v: unknown, fail: (problem: string) => never): ThanosMeta {
  if (!isObject(v)) return fail('"thanos" is not an object');
  const labels: Record<string, string> = {};
  if (v.labels !== undefined && v.labels !== null) {
    if (!isObject(v.labels)) return fail('"thanos.labels" is not an object');
    for (const [k, x] of Object.entries(v.labels)) {
      if (typeof x !== 'string') return fail(`"thanos.labels.${k}" is not a string`);
      labels[k] = x;
    }
  }
  let resolution = 0;
  if (v.downsample !== undefined && v.downsample !== null) {
    if (!isObject(v.downsample)) return fail('"thanos.downsample" is not an object');
    const r = v.downsample.resolution ?? 0;
    if (typeof r !== 'number' || !Number.isSafeInteger(r) || r < 0) return fail('"thanos.downsample.resolution" is not a non-negative integer');
    resolution = r;
  }
  const source = v.source ?? '';
  if (typeof source !== 'string') return fail('"thanos.source" is not a string');
  const out: ThanosMeta = { labels, downsample: { resolution }, source };
  if (v.version !== undefined) {
    if (typeof v.version !== 'number') return fail('"thanos.version" is not a number');
    out.version = v.version;
  }
  if (v.segment_files !== undefined && v.segment_files !== null) {
    if (!Array.isArray(v.segment_files) || !v.segment_files.every((s) => typeof s === 'string')) return fail('"thanos.segment_files" is not an array of strings');
    out.segment_files = v.segment_files as string[];
  }
  if (v.files !== undefined && v.files !== null) {
    if (!Array.isArray(v.files)) return fail('"thanos.files" is not an array');
    out.files = v.files.map((f, i) => {
      if (!isObject(f) || typeof f.rel_path !== 'string') return fail(`"thanos.files[${i}]" has no "rel_path" string`);
      const file: { rel_path: string; size_bytes?: number } = { rel_path: f.rel_path };
      if (f.size_bytes !== undefined) {
        if (typeof f.size_bytes !== 'number') return fail(`"thanos.files[${i}].size_bytes" is not a number`);
        file.size_bytes = f.size_bytes;
      }
      return file;
    });
  }
  if (v.index_stats !== undefined && v.index_stats !== null) {
    if (!isObject(v.index_stats)) return fail('"thanos.index_stats" is not an object');
    const s: { series_max_size?: number; chunk_max_size?: number } = {};
    for (const key of ['series_max_size', 'chunk_max_size'] as const) {
      const x = v.index_stats[key];
      if (x === undefined) continue;
      if (typeof x !== 'number') return fail(`"thanos.index_stats.${key}" is not a number`);
      s[key] = x;
    }
    out.index_stats = s;
  }
  return out;
}
