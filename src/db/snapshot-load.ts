import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Head } from '../head/head.js';
import type { Series } from '../head/series.js';
import { parseWalFileName } from '../wal/format.js';
import type { DbLog } from './options.js';
import { parseSnapshotName } from './snapshot-format.js';
import { readHeadSnapshot, type HeadSnapshot } from './snapshot-read.js';

/** The snapshot recovery can use, if any. */
export interface UsableSnapshot {
  name: string;
  snap: HeadSnapshot;
}

/**
 * Finds the newest head snapshot in `dataDir` and reads it when it covers
 * exactly the WAL's newest checkpoint (its segment is the checkpoint's
 * number: the engine wrote both at one clean close, with the same series).
 * Any other snapshot is stale (the WAL was checkpointed since) and is not
 * read. One that fails its checks is logged and ignored: the WAL is
 * replayed in full, as Prometheus does with a snapshot it cannot load.
 */
export function findSnapshot(dataDir: string, log: DbLog): UsableSnapshot | undefined {
  let best: { name: string; segment: number; offset: number } | undefined;
  for (const f of readdirSync(dataDir)) {
    const at = parseSnapshotName(f);
    if (at === undefined) continue;
    if (best === undefined || at.segment > best.segment || (at.segment === best.segment && at.offset > best.offset)) best = { name: f, ...at };
  }
  if (best === undefined) return undefined;
  const checkpoint = newestCheckpoint(join(dataDir, 'wal'));
  if (checkpoint !== best.segment || best.offset !== 0) {
    log.info({ snapshot: best.name, checkpoint: checkpoint ?? -1 }, 'head snapshot is older than the WAL checkpoint: not used');
    return undefined;
  }
  try {
    return { name: best.name, snap: readHeadSnapshot(join(dataDir, best.name)) };
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'head snapshot unusable: replaying the whole WAL instead');
    return undefined;
  }
}

/** Number of the newest checkpoint in the WAL directory (the one replay reads), undefined when none. */
function newestCheckpoint(walDir: string): number | undefined {
  if (!existsSync(walDir)) return undefined;
  let n: number | undefined;
  for (const f of readdirSync(walDir)) {
    const p = parseWalFileName(f);
    if (p.kind === 'checkpoint' && (n === undefined || p.n > n)) n = p.n;
  }
  return n;
}

/**
 * Loads a checked snapshot into an empty head: the series in bulk (one
 * call into the module per few MB of labels), then the postings index
 * whole (one string per distinct name and value, each list filled in one
 * step), with no decoding of labels per series. Returns the series in
 * the snapshot's order.
 */
export function loadSnapshot(head: Head, snap: HeadSnapshot): Series[] {
  if (head.seriesCount !== 0) throw new Error('a head snapshot loads into an empty head only');
  const series = head.loadSeries(snap.ids, snap.offs, snap.labels);
  head.reserveIds(snap.nextId);
  const p = snap.postings;
  const u32 = new Uint32Array(p.buffer, p.byteOffset, p.length >>> 2);
  let at = 0;
  while (at < p.length) {
    const nameLen = u32[at >>> 2]!;
    const count = u32[(at >>> 2) + 1]!;
    const name = p.toString('utf8', at + 8, at + 8 + nameLen);
    at += 8 + ((nameLen + 3) & ~3);
    for (let v = 0; v < count; v++) {
      const len = u32[at >>> 2]!;
      const ids = u32[(at >>> 2) + 1]!;
      const value = p.toString('utf8', at + 8, at + 8 + len);
      at += 8 + ((len + 3) & ~3);
      head.index.loadPostings(name, value, u32.subarray(at >>> 2, (at >>> 2) + ids));
      at += 4 * ids;
    }
  }
  head.index.loadAll(snap.ids);
  return series;
}
