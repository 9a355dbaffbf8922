/**
 * Opens a Prometheus TSDB block directory for reading: meta.json (parsed and
 * validated), tombstones (checked and counted), index and chunks (mapped;
 * see index-reader.ts and chunk-reader.ts). Works on blocks Strata wrote and
 * blocks a real Prometheus (or Thanos) wrote.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BlockChunkReader } from './chunk-reader.js';
import { BlockFormatError, BlockIndexReader } from './index-reader.js';
import type { BlockMeta } from './types.js';
import { parseMeta } from './meta.js';
import { parseTombstones } from './tombstones.js';
import { isUlid } from './ulid.js';

export { isUlid };


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
    const meta = asFormatError(metaPath, () => parseMeta(metaText.toString('utf8'), metaPath));
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

/** Runs a parser whose errors read `<path>: <problem>` and throws them as BlockFormatErrors. */
function asFormatError<T>(path: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof BlockFormatError) throw err;
    const message = (err as Error).message;
    throw new BlockFormatError(path, 0, message.startsWith(`${path}: `) ? message.slice(path.length + 2) : message);
  }
}

// ------------------------------------------------------------ tombstones

/** Checks a tombstones file and counts its intervals (a missing file is an empty one, as for Prometheus). */
function readTombstones(path: string): { count: number; bytes: number } {
  let b: Buffer;
  try {
    b = readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { count: 0, bytes: 0 };
    throw new BlockFormatError(path, 0, `cannot read: ${(err as Error).message}`);
  }
  return { count: asFormatError(path, () => parseTombstones(b, path)).count, bytes: b.length };
}
