/**
 * What a data directory holds and what in it is damaged, read without
 * changing anything and without the lock (a running server may own it):
 * the WAL and its checkpoint, the head chunk files, every block (meta.json,
 * the index's series entries, every chunk's CRC), the quarantine, and
 * files that have no business there. `strata tsdb check` prints it.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BlockReader, isUlid } from '../blocks/block-reader.js';
import { TMP_FOR_CREATION_SUFFIX, TMP_FOR_DELETION_SUFFIX } from '../blocks/block-writer.js';
import { checkChunkDir, type ChunkDirCheck } from '../chunks/chunk-segments.js';
import { replayWalDir, type WalDamage, type WalTornTail } from '../wal/replay.js';
import { quarantinedBlocks } from './block-set.js';
import { QUARANTINE_DIR } from './options.js';

export interface BlockCheck {
  ulid: string;
  ok: boolean;
  /** What is wrong (the file and offset, where known), when not ok. */
  problem?: string;
  minTime?: number;
  maxTime?: number;
  series?: number;
  chunks?: number;
  samples?: number;
}

export interface DataDirCheck {
  dataDir: string;
  wal: {
    checkpoint?: number;
    segments: number;
    records: number;
    damaged: WalDamage[];
    /** What an open would repair (a torn tail cut, a torn last segment removed): not damage. */
    torn?: WalTornTail;
  };
  headChunks: ChunkDirCheck;
  blocks: BlockCheck[];
  /** Blocks moved aside by earlier starts. */
  quarantine: string[];
  /** Entries of blocks/ that are neither blocks nor a write's leftovers. */
  strayFiles: string[];
  /** Whether anything is damaged (repairs and quarantine are not damage). */
  damaged: boolean;
}

/** Checks the data directory `dataDir`; throws only when it is not a readable directory. */
export async function checkDataDir(dataDir: string): Promise<DataDirCheck> {
  if (!statSync(dataDir).isDirectory()) throw new Error(`${dataDir} is not a directory`);
  const wal = await checkWal(join(dataDir, 'wal'));
  const headChunks = checkChunkDir(join(dataDir, 'chunks_head'));
  const { blocks, strayFiles } = checkBlocks(join(dataDir, 'blocks'));
  const quarantine = quarantinedBlocks(join(dataDir, QUARANTINE_DIR));
  const damaged = wal.damaged.length > 0 || headChunks.damaged.length > 0 || blocks.some((b) => !b.ok);
  return { dataDir, wal, headChunks, blocks, quarantine, strayFiles, damaged };
}

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

async function checkWal(dir: string): Promise<DataDirCheck['wal']> {
  if (!existsSync(dir)) return { segments: 0, records: 0, damaged: [] };
  let records = 0;
  const r = await replayWalDir(dir, quiet, () => {
    records++;
  }, { readOnly: true });
  const out: DataDirCheck['wal'] = { segments: r.segments.length, records, damaged: r.damaged };
  if (r.checkpoint !== undefined) out.checkpoint = r.checkpoint.n;
  if (r.torn !== undefined) out.torn = r.torn;
  return out;
}

function checkBlocks(dir: string): { blocks: BlockCheck[]; strayFiles: string[] } {
  const blocks: BlockCheck[] = [];
  const strayFiles: string[] = [];
  if (!existsSync(dir)) return { blocks, strayFiles };
  for (const name of readdirSync(dir).sort()) {
    if (name.endsWith(TMP_FOR_CREATION_SUFFIX) || name.endsWith(TMP_FOR_DELETION_SUFFIX)) continue;
    if (!isUlid(name) || !statSync(join(dir, name)).isDirectory()) {
      strayFiles.push(name);
      continue;
    }
    blocks.push(checkBlock(join(dir, name), name));
  }
  return { blocks, strayFiles };
}

/** Opens the block and reads every series entry (CRC checked) and every chunk (CRC checked). */
function checkBlock(dir: string, ulid: string): BlockCheck {
  let block: BlockReader;
  try {
    block = BlockReader.open(dir);
  } catch (err) {
    return { ulid, ok: false, problem: (err as Error).message };
  }
  const out: BlockCheck = {
    ulid, ok: true, minTime: block.minTime, maxTime: block.maxTime,
    series: block.meta.stats.numSeries, chunks: block.meta.stats.numChunks, samples: block.meta.stats.numSamples,
  };
  try {
    const entry = { labels: [] as string[], chunks: [] as number[] };
    let series = 0;
    let chunkRefs = 0;
    for (const ref of block.index.allPostings()) {
      block.index.series(ref, entry);
      series++;
      chunkRefs += entry.chunks.length / 3;
    }
    const { chunks } = block.chunks.checkAll();
    if (series !== out.series) throw new Error(`the index lists ${series} series, meta.json says ${out.series}`);
    if (chunks !== chunkRefs) throw new Error(`the chunk files hold ${chunks} chunks, the index refers to ${chunkRefs}`);
  } catch (err) {
    out.ok = false;
    out.problem = (err as Error).message;
  } finally {
    block.close();
  }
  return out;
}
