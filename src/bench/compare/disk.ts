/**
 * Disk use of a data directory, by top-level entry: allocated bytes (what
 * `du` counts: st_blocks x 512, so preallocated or sparse files count what
 * they really take) and apparent bytes (file sizes).
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export interface DiskUse {
  allocated: number;
  apparent: number;
  files: number;
}

/** Disk use of `path` (a file or a directory, recursively; links are not followed). */
export function diskUse(path: string): DiskUse {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st === undefined) return { allocated: 0, apparent: 0, files: 0 };
  if (!st.isDirectory()) return { allocated: st.blocks * 512, apparent: st.size, files: 1 };
  const total: DiskUse = { allocated: st.blocks * 512, apparent: 0, files: 0 };
  for (const name of readdirSync(path)) {
    const u = diskUse(join(path, name));
    total.allocated += u.allocated;
    total.apparent += u.apparent;
    total.files += u.files;
  }
  return total;
}

/** Disk use of each top-level entry of `dir` (name -> use). */
export function diskUseByEntry(dir: string): Map<string, DiskUse> {
  const out = new Map<string, DiskUse>();
  for (const name of readdirSync(dir).sort()) out.set(name, diskUse(join(dir, name)));
  return out;
}

/** The sum over the named entries (missing ones count zero). */
export function sumOf(byEntry: Map<string, DiskUse>, names: string[]): DiskUse {
  const total: DiskUse = { allocated: 0, apparent: 0, files: 0 };
  for (const n of names) {
    const u = byEntry.get(n);
    if (u === undefined) continue;
    total.allocated += u.allocated;
    total.apparent += u.apparent;
    total.files += u.files;
  }
  return total;
}
