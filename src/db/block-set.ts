import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { syncDir } from '../files/durable.js';
import { BlockReader, listBlockDirs } from '../blocks/block-reader.js';
import { TMP_FOR_DELETION_SUFFIX, removeTmpBlockDirs } from '../blocks/block-writer.js';
import type { BlockMeta } from '../blocks/types.js';
import { Yielder } from '../background/yielder.js';
import { BlockSeriesReader } from '../query/block-series.js';
import type { DbLog } from './options.js';

/**
 * The blocks of DATA/blocks/, open for reading, oldest first. A block is
 * added once it is complete on disk (written under a temporary name,
 * fsynced, renamed); a block is removed by renaming it to
 * `<ULID>.tmp-for-deletion` first, so a crash never leaves half a block
 * that is read as data. Readers keep answering from a removed block's
 * memory maps until they drop it.
 */
export class BlockSet {
  private list: BlockSeriesReader[] = [];

  private constructor(readonly dir: string) {}

  /**
   * Opens every block of `dir` (creating it). Leftovers of interrupted
   * writes and deletions go; so does a block whose data a later compaction
   * already holds (it names the block among its parents). A block that
   * cannot be opened (meta.json missing or invalid, index or chunk files
   * unreadable, an empty directory) is moved aside into `quarantineDir`,
   * logged, and everything else is served.
   */
  static async open(dir: string, log: DbLog, quarantineDir: string): Promise<BlockSet> {
    mkdirSync(dir, { recursive: true });
    const set = new BlockSet(dir);
    for (const name of await removeTmpBlockDirs(dir)) log.warn({ dir: name }, 'removed an unfinished block directory');
    const opened: BlockReader[] = [];
    for (const path of listBlockDirs(dir)) {
      try {
        opened.push(BlockReader.open(path));
      } catch (err) {
        const to = await quarantine(path, quarantineDir);
        log.warn({ block: basename(path), reason: (err as Error).message, movedTo: to }, 'a block that cannot be opened was moved to quarantine; the other blocks are served');
      }
    }
    const parents = new Set<string>();
    for (const b of opened) for (const p of b.meta.compaction.parents ?? []) parents.add(p.ulid);
    for (const b of opened) {
      if (parents.has(b.ulid)) {
        set.deleteDir(b.ulid);
        log.info({ block: b.ulid }, 'removed a block already compacted into another');
      } else {
        set.list.push(new BlockSeriesReader(b));
      }
    }
    set.sort();
    return set;
  }

  /** Open blocks, oldest first. */
  get readers(): readonly BlockSeriesReader[] {
    return this.list;
  }

  get size(): number {
    return this.list.length;
  }

  metas(): BlockMeta[] {
    return this.list.map((r) => r.block.meta);
  }

  /** Oldest sample time held in blocks, Infinity when none. */
  get minTime(): number {
    let min = Infinity;
    for (const r of this.list) if (r.minTime < min) min = r.minTime;
    return min;
  }

  /** Newest sample time blocks may hold (inclusive), -Infinity when none. */
  get maxTime(): number {
    let max = -Infinity;
    for (const r of this.list) if (r.maxTime > max) max = r.maxTime;
    return max;
  }

  /** The end (exclusive) of the newest block: the head holds nothing older. */
  get end(): number {
    let end = -Infinity;
    for (const r of this.list) if (r.block.maxTime > end) end = r.block.maxTime;
    return end;
  }

  /** Opens the complete block `ulid` of this directory (in steps, for a server at work) and adds it. */
  async add(ulid: string): Promise<BlockSeriesReader> {
    const y = new Yielder();
    const r = new BlockSeriesReader(await BlockReader.openAsync(join(this.dir, ulid), (n) => y.tick(n)));
    this.list.push(r);
    this.sort();
    return r;
  }

  /** Removes blocks from the set and from disk (renamed first, then deleted off the event loop). */
  async remove(ulids: ReadonlySet<string>): Promise<void> {
    const gone = this.list.filter((r) => ulids.has(r.block.ulid));
    this.list = this.list.filter((r) => !ulids.has(r.block.ulid));
    for (const r of gone) {
      // Reads in flight keep their views; the pages need not stay resident.
      r.block.releasePages();
      const tmp = this.renameForDeletion(r.block.ulid);
      await rm(tmp, { recursive: true, force: true });
    }
  }

  /** Bytes of every block's files. */
  sizeBytes(): number {
    let n = 0;
    for (const r of this.list) n += r.block.sizeBytes();
    return n;
  }

  private deleteDir(ulid: string): void {
    rmSync(this.renameForDeletion(ulid), { recursive: true, force: true });
  }

  private renameForDeletion(ulid: string): string {
    const tmp = join(this.dir, ulid + TMP_FOR_DELETION_SUFFIX);
    renameSync(join(this.dir, ulid), tmp);
    return tmp;
  }

  private sort(): void {
    this.list.sort((a, b) => a.minTime - b.minTime || (a.block.ulid < b.block.ulid ? -1 : 1));
  }
}

/**
 * Moves the block directory at `path` into `quarantineDir` as
 * `<ULID>-<unix ms>` (a second damaged copy of one block never collides),
 * durably: one rename, then both directories fsynced. Outside blocks/, so
 * that neither the shipper nor Thanos' tools ever read it. Returns where it went.
 */
async function quarantine(path: string, quarantineDir: string): Promise<string> {
  mkdirSync(quarantineDir, { recursive: true });
  const to = join(quarantineDir, `${basename(path)}-${Date.now()}`);
  renameSync(path, to);
  await syncDir(quarantineDir);
  await syncDir(join(path, '..'));
  return to;
}

/** What is in quarantine: one entry per block moved there. */
export function quarantinedBlocks(quarantineDir: string): string[] {
  try {
    return readdirSync(quarantineDir).sort();
  } catch {
    return [];
  }
}
