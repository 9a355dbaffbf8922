import type { BlockMeta } from '../blocks/types.js';

export interface RetentionPlan {
  byTime: string[];
  bySize: string[];
}

/**
 * The blocks retention deletes (Prometheus' rules): those whose data ends
 * before `cutoff`; then, with a size limit, walking from the newest block,
 * every block from the first that takes the total (head bytes included)
 * past `limitBytes`.
 */
export function blocksPastRetention(
  blocks: ReadonlyArray<{ meta: BlockMeta; sizeBytes(): number }>, cutoff: number, limitBytes: number, headBytes: number,
): RetentionPlan {
  const byTime = blocks.filter((b) => b.meta.maxTime - 1 < cutoff).map((b) => b.meta.ulid);
  const bySize: string[] = [];
  if (limitBytes > 0) {
    const gone = new Set(byTime);
    const newestFirst = blocks.slice().sort((a, b) => b.meta.minTime - a.meta.minTime);
    let total = headBytes;
    for (const b of newestFirst) {
      if (gone.has(b.meta.ulid)) continue;
      total += b.sizeBytes();
      if (total > limitBytes || bySize.length > 0) bySize.push(b.meta.ulid);
    }
  }
  return { byTime, bySize };
}
