import { writeBlock } from '../blocks/block-writer.js';
import { compactedMeta, compactionRanges, mergeBlockSeries, planCompaction, symbolsOf } from '../blocks/compactor.js';
import type { BlockSet } from './block-set.js';
import type { DbLog } from './options.js';
import { isDiskFault } from '../files/disk-reserve.js';

export interface CompactBlocksOptions {
  blocks: BlockSet;
  rangeMs: number;
  retentionMs: number;
  thanosLabels?: Record<string, string>;
  /** Blocks whose compaction failed since start: left out of plans. */
  failed: Set<string>;
  closed: () => boolean;
  log: DbLog;
  /** Called once the compacted block is in the set: deletes its parents. */
  onCompacted: (parents: ReadonlySet<string>) => Promise<void>;
  onFailed: () => void;
}

/**
 * Compacts blocks while the planner finds work: the new block is written
 * whole (temporary name, fsync, rename) and opened before its parents are
 * deleted, so a crash at any moment leaves either the parents or the new
 * block (start-up removes parents a block names). Runs in the background,
 * yielding to the event loop as the writer does.
 */
export async function compactBlocks(o: CompactBlocksOptions): Promise<void> {
  const ranges = compactionRanges(o.rangeMs, o.retentionMs);
  while (!o.closed()) {
    const plan = planCompaction(o.blocks.metas(), ranges, o.failed);
    if (plan.length === 0) return;
    const readers = plan.map((ulid) => o.blocks.readers.find((r) => r.block.ulid === ulid)!.block);
    const m = compactedMeta(readers.map((b) => b.meta));
    // The planner only groups blocks of the same external labels: the new block keeps them.
    const labels = readers[0]!.meta.thanos?.labels ?? o.thanosLabels;
    const started = Date.now();
    try {
      const meta = await writeBlock({
        blocksDir: o.blocks.dir,
        minTime: m.minTime,
        maxTime: m.maxTime,
        compaction: { level: m.level, sources: m.sources, parents: m.parents },
        symbols: symbolsOf(readers),
        series: mergeBlockSeries(readers),
        ...(labels !== undefined ? { thanos: { labels, source: 'receive' } } : {}),
      });
      if (meta !== undefined) await o.blocks.add(meta.ulid);
      o.log.info({ block: meta?.ulid, parents: plan, level: m.level, minTime: m.minTime, maxTime: m.maxTime, ms: Date.now() - started }, 'blocks compacted');
    } catch (err) {
      o.onFailed();
      if (isDiskFault(err)) {
        // The disk's fault, not the blocks': the next maintenance pass tries again.
        o.log.error({ err, blocks: plan }, 'block compaction failed on a disk error; it is tried again later');
        return;
      }
      for (const u of plan) o.failed.add(u);
      o.log.error({ err, blocks: plan }, 'block compaction failed; these blocks are left as they are until restart');
      return;
    }
    await o.onCompacted(new Set(plan));
  }
}
