/**
 * Making writes durable, on the libuv pool (the event loop never waits on a
 * disk): fsync of a file or a directory, and a small file written whole
 * under its name or not at all.
 */
import { fdatasync, fsync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * fdatasync(fd) off the event loop. fdatasync, not fsync: it flushes the
 * data and the file size (all a reader needs) without the mtime update.
 */
export function syncData(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}

/** fsync(fd) off the event loop. */
export function syncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
}

/** fsyncs a directory, making the creation, deletion or renaming of its entries durable. */
export function syncDir(dir: string): Promise<void> {
  return syncPath(dir, 'r');
}

/** fsyncs the file at `path` (written by someone else, a copy for one). */
export function syncFile(path: string): Promise<void> {
  return syncPath(path, 'r+');
}

async function syncPath(path: string, flags: string): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `bytes` to the file at `path`, opened with `flags` and created with
 * `mode`, then fsyncs and closes it.
 */
export async function writeFileSynced(path: string, bytes: Uint8Array, flags: string, mode: number): Promise<void> {
  const handle = await open(path, flags, mode);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes a small file whole and durably: to `<name>.tmp`, fsynced, renamed
 * over `<name>`, then the directory fsynced. Returns the bytes written.
 */
export async function writeFileDurably(dir: string, name: string, bytes: Uint8Array): Promise<number> {
  const path = join(dir, name);
  const tmp = `${path}.tmp`;
  try {
    await writeFileSynced(tmp, bytes, 'w', 0o666);
    await rename(tmp, path);
  } finally {
    await rm(tmp, { force: true });
  }
  await syncDir(dir);
  return bytes.length;
}
