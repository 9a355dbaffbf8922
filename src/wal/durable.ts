/**
 * fsync helpers on the libuv pool: the event loop never waits on a disk.
 */
import { fdatasync } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * fdatasync(fd) off the event loop. fdatasync, not fsync: it flushes the
 * data and the file size (all a reader needs) without the mtime update.
 */
export function syncData(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}

/** Makes the directory's entries (created, renamed, removed files) durable. */
export async function syncDir(dir: string): Promise<void> {
  const h = await open(dir, 'r');
  try {
    await h.sync();
  } finally {
    await h.close();
  }
}
