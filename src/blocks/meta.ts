/**
 * A block's `meta.json`, written as Prometheus 2.42 writes it
 * (tsdb/block.go writeMetaFile: json.MarshalIndent with a tab, to
 * `meta.json.tmp`, fsynced, renamed, directory fsynced) and, when a Thanos
 * section is given, as Thanos writes it (pkg/block/metadata/meta.go: the
 * same plus `"thanos"`, through json.Encoder, so a trailing newline).
 * Fields keep Go's order and Go's `omitempty` rules. Format:
 * docs/format/block.md.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compareUtf8 } from '../encoding/utf8.js';
import { writeFileDurably } from '../files/durable.js';
import type { BlockCompaction, BlockMeta, ThanosMeta } from './types.js';
import { isUlid } from './ulid.js';

export const META_FILENAME = 'meta.json';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function nonZero(o: Record<string, Json>, key: string, v: number | undefined): void {
  if (v !== undefined && v !== 0) o[key] = v;
}

function compactionJson(c: BlockCompaction): Record<string, Json> {
  const o: Record<string, Json> = { level: c.level };
  if (c.sources !== undefined && c.sources.length > 0) o.sources = [...c.sources];
  if (c.deletable === true) o.deletable = true;
  if (c.parents !== undefined && c.parents.length > 0) {
    o.parents = c.parents.map((p) => ({ ulid: p.ulid, minTime: p.minTime, maxTime: p.maxTime }));
  }
  if (c.failed === true) o.failed = true;
  if (c.hints !== undefined && c.hints.length > 0) o.hints = [...c.hints];
  return o;
}

function thanosJson(t: ThanosMeta): Record<string, Json> {
  const o: Record<string, Json> = {};
  nonZero(o, 'version', t.version);
  // Go writes a map's keys sorted by bytes.
  const labels: Record<string, Json> = {};
  for (const k of Object.keys(t.labels).sort(compareUtf8)) labels[k] = t.labels[k]!;
  o.labels = labels;
  o.downsample = { resolution: t.downsample.resolution };
  o.source = t.source;
  if (t.segment_files !== undefined && t.segment_files.length > 0) o.segment_files = [...t.segment_files];
  if (t.files !== undefined && t.files.length > 0) {
    o.files = t.files.map((f) => {
      const e: Record<string, Json> = { rel_path: f.rel_path };
      nonZero(e, 'size_bytes', f.size_bytes);
      return e;
    });
  }
  // A struct: present even when empty.
  const stats: Record<string, Json> = {};
  nonZero(stats, 'series_max_size', t.index_stats?.series_max_size);
  nonZero(stats, 'chunk_max_size', t.index_stats?.chunk_max_size);
  o.index_stats = stats;
  if (t.upload_time !== undefined) o.upload_time = t.upload_time;
  return o;
}

/**
 * The text of meta.json for `meta`, exactly as Prometheus (no Thanos
 * section) or Thanos (with one) would write it. Object keys are ordered as
 * Go's struct fields and `<`, `>`, `&`, U+2028 and U+2029 are escaped as Go
 * escapes them.
 */
export function encodeMeta(meta: BlockMeta): string {
  const stats: Record<string, Json> = {};
  nonZero(stats, 'numSamples', meta.stats.numSamples);
  nonZero(stats, 'numSeries', meta.stats.numSeries);
  nonZero(stats, 'numChunks', meta.stats.numChunks);
  nonZero(stats, 'numTombstones', meta.stats.numTombstones);
  nonZero(stats, 'numFloatSamples', meta.stats.numFloatSamples);
  nonZero(stats, 'numHistogramSamples', meta.stats.numHistogramSamples);
  const o: Record<string, Json> = {
    ulid: meta.ulid,
    minTime: meta.minTime,
    maxTime: meta.maxTime,
    stats,
    compaction: compactionJson(meta.compaction),
    version: 1,
  };
  if (meta.thanos !== undefined) o.thanos = thanosJson(meta.thanos);
  const text = goJson(o, '');
  return meta.thanos !== undefined ? `${text}\n` : text;
}

/** Go's string quoting in encoding/json (HTML-safe, as Marshal and Encoder default to). */
function goQuote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029) {
      out += `\\u${c.toString(16).padStart(4, '0')}`;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const d = s.charCodeAt(i + 1);
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        out += s[i]! + s[i + 1]!;
        i++;
      } else {
        out += '\\ufffd'; // Go writes invalid UTF-8 as U+FFFD
      }
    } else out += s[i]!;
  }
  return `${out}"`;
}

/** json.MarshalIndent(v, "", "\\t") of a JSON value whose numbers are integers. */
function goJson(v: Json, indent: string): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new RangeError(`meta.json: ${v} is not an integer within ±2^53`);
    return String(v);
  }
  if (typeof v === 'string') return goQuote(v);
  const inner = `${indent}\t`;
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[\n${v.map((x) => inner + goJson(x, inner)).join(',\n')}\n${indent}]`;
  }
  const keys = Object.keys(v);
  if (keys.length === 0) return '{}';
  return `{\n${keys.map((k) => `${inner}${goQuote(k)}: ${goJson(v[k]!, inner)}`).join(',\n')}\n${indent}}`;
}

/**
 * Writes `<dir>/meta.json` atomically: to `meta.json.tmp`, fsynced, renamed
 * over `meta.json`, then the directory fsynced. Returns the bytes written.
 */
export async function writeMetaFile(dir: string, meta: BlockMeta): Promise<number> {
  return writeFileDurably(dir, META_FILENAME, Buffer.from(encodeMeta(meta), 'utf8'));
}

class MetaError extends Error {
  override readonly name = 'MetaError';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Reads and checks `<dir>/meta.json`: version 1, a canonical ULID, times
 * and counts as safe integers (minTime ≤ maxTime), a compaction level ≥ 1,
 * and, when present, a well-formed Thanos section. Absent stats count as 0,
 * absent sources as []. Throws an Error naming the file and the problem.
 */
export async function readMetaFile(dir: string): Promise<BlockMeta> {
  const path = join(dir, META_FILENAME);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new MetaError(`${path}: cannot read: ${(err as Error).message}`);
  }
  return parseMeta(text, path);
}

/** Parses and checks the text of a meta.json; `path` names it in errors. */
export function parseMeta(text: string, path: string): BlockMeta {
  const fail = (problem: string): never => {
    throw new MetaError(`${path}: ${problem}`);
  };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return fail(`not valid JSON: ${(err as Error).message}`);
  }
  if (!isObject(raw)) return fail('not a JSON object');

  const int = (v: unknown, what: string, min = Number.MIN_SAFE_INTEGER): number => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
      fail(`${what} is ${JSON.stringify(v)}, not an integer${min >= 0 ? ` ≥ ${min}` : ''} within ±2^53`);
    }
    return v as number;
  };
  const ulid = (v: unknown, what: string): string => {
    if (!isUlid(v)) fail(`${what} ${JSON.stringify(v)} is not a ULID`);
    return v as string;
  };

  if (raw.version !== 1) fail(`unexpected meta file version ${JSON.stringify(raw.version)}, want 1`);
  const id = ulid(raw.ulid, 'ulid');
  const minTime = int(raw.minTime, 'minTime');
  const maxTime = int(raw.maxTime, 'maxTime');
  if (minTime > maxTime) fail(`minTime ${minTime} is after maxTime ${maxTime}`);

  const s = raw.stats ?? {};
  if (!isObject(s)) return fail('stats is not an object');
  const stats: BlockMeta['stats'] = {
    numSamples: int(s.numSamples ?? 0, 'stats.numSamples', 0),
    numSeries: int(s.numSeries ?? 0, 'stats.numSeries', 0),
    numChunks: int(s.numChunks ?? 0, 'stats.numChunks', 0),
  };
  for (const k of ['numTombstones', 'numFloatSamples', 'numHistogramSamples'] as const) {
    if (s[k] !== undefined) stats[k] = int(s[k], `stats.${k}`, 0);
  }

  const c = raw.compaction;
  if (!isObject(c)) return fail('compaction is missing or not an object');
  const compaction: BlockCompaction = { level: int(c.level, 'compaction.level', 1), sources: [] };
  if (c.sources !== undefined && c.sources !== null) {
    if (!Array.isArray(c.sources)) fail('compaction.sources is not an array');
    compaction.sources = (c.sources as unknown[]).map((u, i) => ulid(u, `compaction.sources[${i}]`));
  }
  if (c.parents !== undefined && c.parents !== null) {
    if (!Array.isArray(c.parents)) fail('compaction.parents is not an array');
    compaction.parents = (c.parents as unknown[]).map((p, i) => {
      if (!isObject(p)) return fail(`compaction.parents[${i}] is not an object`);
      return {
        ulid: ulid(p.ulid, `compaction.parents[${i}].ulid`),
        minTime: int(p.minTime, `compaction.parents[${i}].minTime`),
        maxTime: int(p.maxTime, `compaction.parents[${i}].maxTime`),
      };
    });
  }
  for (const k of ['failed', 'deletable'] as const) {
    if (c[k] !== undefined && typeof c[k] !== 'boolean') fail(`compaction.${k} is not a boolean`);
    if (c[k] === true) compaction[k] = true;
  }
  if (c.hints !== undefined && c.hints !== null) {
    if (!Array.isArray(c.hints) || c.hints.some((h) => typeof h !== 'string')) fail('compaction.hints is not an array of strings');
    compaction.hints = [...(c.hints as string[])];
  }

  const meta: BlockMeta = { ulid: id, minTime, maxTime, stats, compaction, version: 1 };
  if (raw.thanos !== undefined && raw.thanos !== null) meta.thanos = parseThanos(raw.thanos, int, fail);
  return meta;
}

function parseThanos(
  t: unknown,
  int: (v: unknown, what: string, min?: number) => number,
  fail: (problem: string) => never,
): ThanosMeta {
  if (!isObject(t)) return fail('thanos is not an object');
  if (t.version !== undefined && t.version !== 1) fail(`unexpected thanos section version ${JSON.stringify(t.version)}, want 1`);
  const labels: Record<string, string> = {};
  if (t.labels !== undefined && t.labels !== null) {
    if (!isObject(t.labels)) fail('thanos.labels is not an object');
    for (const [k, v] of Object.entries(t.labels as Record<string, unknown>)) {
      if (typeof v !== 'string') fail(`thanos.labels.${k} is not a string`);
      labels[k] = v as string;
    }
  }
  const d = t.downsample ?? { resolution: 0 };
  if (!isObject(d)) return fail('thanos.downsample is not an object');
  const out: ThanosMeta = {
    labels,
    downsample: { resolution: int(d.resolution ?? 0, 'thanos.downsample.resolution', 0) },
    source: typeof t.source === 'string' ? t.source : fail('thanos.source is not a string'),
  };
  if (t.version !== undefined) out.version = 1;
  if (t.segment_files !== undefined && t.segment_files !== null) {
    if (!Array.isArray(t.segment_files) || t.segment_files.some((f) => typeof f !== 'string')) {
      fail('thanos.segment_files is not an array of strings');
    }
    out.segment_files = [...(t.segment_files as string[])];
  }
  if (t.files !== undefined && t.files !== null) {
    if (!Array.isArray(t.files)) fail('thanos.files is not an array');
    out.files = (t.files as unknown[]).map((f, i) => {
      if (!isObject(f) || typeof f.rel_path !== 'string') return fail(`thanos.files[${i}] has no rel_path`);
      const e: { rel_path: string; size_bytes?: number } = { rel_path: f.rel_path };
      if (f.size_bytes !== undefined) e.size_bytes = int(f.size_bytes, `thanos.files[${i}].size_bytes`, 0);
      return e;
    });
  }
  if (t.index_stats !== undefined && t.index_stats !== null) {
    if (!isObject(t.index_stats)) fail('thanos.index_stats is not an object');
    const s = t.index_stats as Record<string, unknown>;
    const stats: NonNullable<ThanosMeta['index_stats']> = {};
    if (s.series_max_size !== undefined) stats.series_max_size = int(s.series_max_size, 'thanos.index_stats.series_max_size', 0);
    if (s.chunk_max_size !== undefined) stats.chunk_max_size = int(s.chunk_max_size, 'thanos.index_stats.chunk_max_size', 0);
    out.index_stats = stats;
  }
  if (typeof t.upload_time === 'string') out.upload_time = t.upload_time;
  return out;
}
