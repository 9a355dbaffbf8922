import { basename } from 'node:path';
import { Yielder } from '../background/yielder.js';
import { BlockReader, listBlockDirs } from '../blocks/block-reader.js';
import { BlockSeriesReader } from '../query/block-series.js';

export interface BlocksLog {
  info(o: object, msg: string): void;
  warn(o: object, msg: string): void;
}

/**
 * The blocks of a running Prometheus' data directory, read-only: memory
 * mapped and read lazily as Strata's own. `refresh` picks up blocks
 * Prometheus has cut (it renames a block into place once complete, so a
 * ULID directory is whole) and forgets those it deleted; a block deleted
 * while a read holds it keeps answering from its maps until dropped.
 */
export class PrometheusBlocks {
  private byUlid = new Map<string, BlockSeriesReader>();
  private list: BlockSeriesReader[] = [];

  constructor(readonly dir: string, private readonly log: BlocksLog) {}

  /** Open blocks, oldest first. */
  get readers(): readonly BlockSeriesReader[] {
    return this.list;
  }

  /** Where the blocks end (exclusive): Prometheus' head holds what comes after. -Infinity without blocks. */
  get end(): number {
    let end = -Infinity;
    for (const r of this.list) if (r.block.maxTime > end) end = r.block.maxTime;
    return end;
  }

  private running: Promise<boolean> | undefined;

  /**
   * Re-lists the directory: opens new blocks, forgets deleted ones. Returns
   * whether anything changed. One runs at a time: a call made meanwhile starts when it ends.
   */
  refresh(): Promise<boolean> {
    const next = (this.running ?? Promise.resolve(false)).then(() => this.relist(), () => this.relist());
    const mine = next.finally(() => {
      if (this.running === mine) this.running = undefined;
    });
    this.running = mine;
    return mine;
  }

  private async relist(): Promise<boolean> {
    const y = new Yielder();
    let paths: string[];
    try {
      paths = listBlockDirs(this.dir);
    } catch (err) {
      this.log.warn({ dir: this.dir, err: (err as Error).message }, 'cannot list the Prometheus data directory');
      return false;
    }
    const seen = new Set<string>();
    let changed = false;
    for (const path of paths) {
      const ulid = basename(path);
      seen.add(ulid);
      if (this.byUlid.has(ulid)) continue;
      try {
        const block = await BlockReader.openAsync(path, (n) => y.tick(n));
        this.byUlid.set(ulid, new BlockSeriesReader(block));
        changed = true;
        this.log.info({ block: ulid, minTime: block.minTime, maxTime: block.maxTime }, 'Prometheus block opened');
      } catch (err) {
        // Being deleted as we looked, or broken: tried again at the next refresh.
        this.log.warn({ block: ulid, err: (err as Error).message }, 'Prometheus block not opened');
      }
    }
    for (const [ulid, r] of this.byUlid) {
      if (seen.has(ulid)) continue;
      this.byUlid.delete(ulid);
      r.block.releasePages();
      changed = true;
      this.log.info({ block: ulid }, 'Prometheus block gone');
    }
    if (changed) this.list = [...this.byUlid.values()].sort((a, b) => a.minTime - b.minTime || (a.block.ulid < b.block.ulid ? -1 : 1));
    return changed;
  }
}
