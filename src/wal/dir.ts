/**
 * What is in a WAL directory, by file name.
 */
import { readdir } from 'node:fs/promises';
import { parseWalFileName } from './format.js';

export interface WalDirListing {
  /** Segment numbers, ascending. */
  segments: number[];
  /** Checkpoint numbers, ascending. */
  checkpoints: number[];
  /** Names of checkpoints left half-written by a crash. */
  temps: string[];
  /** Names of anything else. */
  others: string[];
}

export async function listWalDir(dir: string): Promise<WalDirListing> {
  const listing: WalDirListing = { segments: [], checkpoints: [], temps: [], others: [] };
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const parsed = entry.isFile() ? parseWalFileName(entry.name) : { kind: 'other' as const };
    if (parsed.kind === 'segment') listing.segments.push(parsed.n);
    else if (parsed.kind === 'checkpoint') listing.checkpoints.push(parsed.n);
    else if (parsed.kind === 'temp') listing.temps.push(entry.name);
    else listing.others.push(entry.name);
  }
  listing.segments.sort((a, b) => a - b);
  listing.checkpoints.sort((a, b) => a - b);
  return listing;
}
