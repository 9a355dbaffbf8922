/**
 * Writes an immutable block directory in Prometheus 2.x's on-disk format, as
 * Prometheus 2.42's LeveledCompactor.write does (tsdb/compact.go): into
 * `<blocksDir>/<ULID>.tmp-for-creation/`, every file fsynced, the
 * directory fsynced, renamed to `<blocksDir>/<ULID>`, `blocksDir` fsynced.
 * Format and crash safety: docs/format/block.md.
 */
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ENCODING_FLOAT_HISTOGRAM, ENCODING_HISTOGRAM, ENCODING_XOR, isKnownEncoding } from '../chunkenc/encoding.js';
import { ChunkWriter } from './chunk-writer.js';
import { uvarintSize } from '../encoding/varint.js';
import { syncDir } from '../files/durable.js';
import { IndexWriter } from './index-writer.js';
import { writeMetaFile } from './meta.js';
import { writeEmptyTombstones } from './tombstones.js';
import {
  type BlockCompaction,
  type BlockMeta,
  type BlockSeriesInput,
  type ThanosMeta,
} from './types.js';
import { isUlid, newUlid } from './ulid.js';

/** Suffix of a block directory being written; never read as a block. */
export const TMP_FOR_CREATION_SUFFIX = '.tmp-for-creation';
/** Suffix of a block directory being deleted; never read as a block. */
export const TMP_FOR_DELETION_SUFFIX = '.tmp-for-deletion';

export interface WriteBlockOptions {
  /** Parent directory of the blocks, e.g. DATA/blocks (created if missing). */
  blocksDir: string;
  /** Block start, inclusive (ms). Every chunk's minT must be ≥ minTime. */
  minTime: number;
  /** Block end, exclusive (ms), as meta.json's maxTime. Every chunk's maxT must be < maxTime. */
  maxTime: number;
  /** Default: level 1, sources [this block's ULID]. */
  compaction?: { level: number; sources?: string[]; parents?: BlockCompaction['parents']; hints?: string[] };
  /**
   * Adds Thanos' section to meta.json (version 1, `files` filled as Thanos'
   * GatherFileStats fills them, `index_stats` with the largest series entry
   * and chunk). Default downsample resolution 0.
   */
  thanos?: { labels: Record<string, string>; source: string; downsample?: { resolution: number } };
  /** Every label name and value of the series, any order, duplicates allowed. */
  symbols: Iterable<string> | AsyncIterable<string>;
  /** Series sorted by label set (labels.Compare); series without chunks are skipped. */
  series: AsyncIterable<BlockSeriesInput> | Iterable<BlockSeriesInput>;
  /** Chunk segment size limit; default 512 MiB. */
  segmentBytes?: number;
  /** Default: a new ULID. */
  ulid?: string;
  log?: { info(o: object, msg: string): void };
}

/** Samples in a chunk: its first two bytes, big-endian (XOR, histogram and float histogram chunks alike). */
export function chunkSampleCount(encoding: number, data: Uint8Array): number {
  if (!isKnownEncoding(encoding)) {
    throw new Error(`unknown chunk encoding ${encoding} (want ${ENCODING_XOR}, ${ENCODING_HISTOGRAM} or ${ENCODING_FLOAT_HISTOGRAM})`);
  }
  if (data.length < 2) throw new Error(`chunk of ${data.length} bytes has no sample count`);
  return (data[0]! << 8) | data[1]!;
}

function describe(labels: readonly string[]): string {
  const parts: string[] = [];
  for (let i = 0; i + 1 < labels.length; i += 2) parts.push(`${labels[i]}=${JSON.stringify(labels[i + 1])}`);
  return `{${parts.join(', ')}}`;
}

/**
 * Writes one block and returns its meta, or undefined (writing nothing)
 * when the series hold no sample, as Prometheus does not keep an empty
 * block. On any error the temporary directory is removed and the error
 * rethrown.
 */
export async function writeBlock(opts: WriteBlockOptions): Promise<BlockMeta | undefined> {
  const started = performance.now();
  const { blocksDir, minTime, maxTime } = opts;
  if (!Number.isSafeInteger(minTime) || !Number.isSafeInteger(maxTime) || minTime >= maxTime) {
    throw new RangeError(`block time range [${minTime}, ${maxTime}) is not a non-empty integer range`);
  }
  const ulid = opts.ulid ?? newUlid();
  if (!isUlid(ulid)) throw new Error(`${JSON.stringify(ulid)} is not a ULID`);
  const compaction: BlockCompaction = {
    level: opts.compaction?.level ?? 1,
    sources: opts.compaction?.sources ?? [ulid],
  };
  if (!Number.isSafeInteger(compaction.level) || compaction.level < 1) {
    throw new RangeError(`compaction level ${compaction.level} is not an integer ≥ 1`);
  }
  if (opts.compaction?.parents !== undefined) compaction.parents = opts.compaction.parents;
  if (opts.compaction?.hints !== undefined) compaction.hints = [...opts.compaction.hints].sort();

  const dir = join(blocksDir, ulid);
  const tmp = dir + TMP_FOR_CREATION_SUFFIX;
  if (await exists(dir)) throw new Error(`${dir}: block already exists`);

  await mkdir(blocksDir, { recursive: true });
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp);

  let chunkw: ChunkWriter | undefined;
  let indexw: IndexWriter | undefined;
  try {
    chunkw = await ChunkWriter.create(join(tmp, 'chunks'), opts.segmentBytes !== undefined ? { segmentBytes: opts.segmentBytes } : {});
    indexw = await IndexWriter.create(join(tmp, 'index'));
    await indexw.addSymbols(opts.symbols);

    let numSeries = 0;
    let numChunks = 0;
    let numSamples = 0;
    let maxChunkBytes = 0;
    const refs: number[] = [];
    for await (const s of opts.series) {
      const { labels, chunks } = s;
      if (chunks.length === 0) continue;
      let samples = 0;
      for (let i = 0; i < chunks.length; i++) {
        const c = chunks[i]!;
        if (!Number.isSafeInteger(c.minT) || !Number.isSafeInteger(c.maxT) || c.minT > c.maxT) {
          throw new Error(`chunk ${i} of ${describe(labels)} has a bad time range [${c.minT}, ${c.maxT}]`);
        }
        if (c.minT < minTime || c.maxT >= maxTime) {
          throw new Error(
            `chunk ${i} of ${describe(labels)} spans [${c.minT}, ${c.maxT}], outside the block's [${minTime}, ${maxTime})`,
          );
        }
        if (i > 0 && c.minT <= chunks[i - 1]!.maxT) {
          throw new Error(
            `chunk ${i} of ${describe(labels)} starts at ${c.minT}, not after the previous chunk's end ${chunks[i - 1]!.maxT}`,
          );
        }
        try {
          samples += chunkSampleCount(c.encoding, c.data);
        } catch (err) {
          throw new Error(`chunk ${i} of ${describe(labels)}: ${(err as Error).message}`);
        }
        // On disk: uvarint length, encoding, data, CRC.
        const bytes = uvarintSize(c.data.length) + 1 + c.data.length + 4;
        if (bytes > maxChunkBytes) maxChunkBytes = bytes;
      }
      await chunkw.writeChunks(chunks, refs);
      await indexw.addSeries(labels, chunks, refs);
      numSeries++;
      numChunks += chunks.length;
      numSamples += samples;
    }

    const index = await indexw.close();
    indexw = undefined;
    const segments = await chunkw.close();
    chunkw = undefined;

    if (numSamples === 0) {
      await rm(tmp, { recursive: true, force: true });
      opts.log?.info({ ulid, minTime, maxTime }, 'no samples: no block written');
      return undefined;
    }

    const meta: BlockMeta = {
      ulid,
      minTime,
      maxTime,
      stats: { numSamples, numSeries, numChunks },
      compaction,
      version: 1,
    };
    if (opts.thanos !== undefined) {
      const files: NonNullable<ThanosMeta['files']> = segments.map((s) => ({ rel_path: `chunks/${s.name}`, size_bytes: s.size }));
      files.push({ rel_path: 'index', size_bytes: index.size }, { rel_path: 'meta.json' });
      files.sort((a, b) => (a.rel_path < b.rel_path ? -1 : a.rel_path > b.rel_path ? 1 : 0));
      meta.thanos = {
        version: 1,
        labels: { ...opts.thanos.labels },
        downsample: { resolution: opts.thanos.downsample?.resolution ?? 0 },
        source: opts.thanos.source,
        files,
        index_stats: { series_max_size: Math.ceil(index.maxSeriesBytes / 16) * 16, chunk_max_size: maxChunkBytes },
      };
    }

    await writeMetaFile(tmp, meta);
    await writeEmptyTombstones(tmp);
    await syncDir(tmp);
    await rename(tmp, dir);
    await syncDir(blocksDir);

    opts.log?.info(
      {
        ulid,
        minTime,
        maxTime,
        numSeries,
        numChunks,
        numSamples,
        indexBytes: index.size,
        segments: segments.length,
        durationMs: Math.round(performance.now() - started),
      },
      'block written',
    );
    return meta;
  } catch (err) {
    await indexw?.abort();
    await chunkw?.abort();
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw err;
  }
}

/** Whether a directory entry named `name` is a block in the making or being deleted (never read as a block). */
export function isTmpBlockDirName(name: string): boolean {
  return name.endsWith(TMP_FOR_CREATION_SUFFIX) || name.endsWith(TMP_FOR_DELETION_SUFFIX);
}

/**
 * Removes the `*.tmp-for-creation` and `*.tmp-for-deletion` directories
 * left in `blocksDir` by a process that stopped while writing or deleting a
 * block; for start-up, before blocks are read. Returns the names removed.
 */
export async function removeTmpBlockDirs(blocksDir: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(blocksDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const removed = entries.filter(isTmpBlockDirName).sort();
  for (const name of removed) await rm(join(blocksDir, name), { recursive: true, force: true });
  if (removed.length > 0) await syncDir(blocksDir);
  return removed;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}
