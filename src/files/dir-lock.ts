import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** DATA/lock names another live process: the data directory is in use. */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
}

/**
 * Takes DATA/lock for this process: two processes writing one data
 * directory would corrupt it. A lock left by a process that is gone (kill -9)
 * is taken over. Returns the release function.
 */
export function lockDataDir(dir: string): () => void {
  const path = join(dir, 'lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      try {
        writeSync(fd, `${process.pid}\n`);
      } catch (err) {
        // A full disk takes the file but not the pid: the lock is held all
        // the same, though another start would find no owner in it and take it over.
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') {
          closeSync(fd);
          rmSync(path, { force: true });
          throw err;
        }
      }
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number.parseInt(readFileSync(path, 'utf8'), 10);
      if (Number.isInteger(owner) && owner !== process.pid && isAlive(owner)) {
        throw new DataDirLockedError(`data directory ${dir} is in use by process ${owner} (${path})`);
      }
      rmSync(path, { force: true });
    }
  }
  throw new Error(`cannot take the lock ${path}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
