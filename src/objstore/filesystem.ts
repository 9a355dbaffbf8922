import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { syncDir, syncFile, writeFileSynced } from '../files/durable.js';
import { ObjectNotFoundError, type Bucket } from './bucket.js';
import { invalidObjectName } from './errors.js';
import { dirPrefix, sortNames } from './names.js';

/**
 * Start of the name of a file being written; iter never lists such a file,
 * and an object name may not have a segment starting with it.
 */
export const TEMP_PREFIX = '.strata-upload-';

/**
 * Thanos' FILESYSTEM bucket: object `a/b/c` is the file `<directory>/a/b/c`,
 * so Thanos' own tools read the directory as their bucket and Strata reads
 * theirs. Unlike Thanos', every write is atomic and durable: the object is
 * written to a temporary file beside its final place, fsynced, renamed over
 * the name, and the directory fsynced, so a reader (or a crash) sees the old
 * object, the new one or none. Deleting an object removes the directories it
 * leaves empty, as Thanos does. Names that would leave the directory (`..`,
 * `.`, empty segments, a leading `/`) are refused.
 */
export class FilesystemBucket implements Bucket {
  readonly name: string;
  /** Absolute path of the bucket's directory. */
  readonly root: string;

  constructor(directory: string) {
    this.root = resolve(directory);
    this.name = `FILESYSTEM ${this.root}`;
  }

  private path(name: string): string {
    if (name === '' || name.startsWith('/') || name.endsWith('/')) throw invalidObjectName(this.name, name, 'is not an object name (empty, or starts or ends with /)');
    if (name.includes('\0')) throw invalidObjectName(this.name, name, 'contains a NUL byte');
    for (const seg of name.split('/')) {
      if (seg === '' || seg === '.' || seg === '..') throw invalidObjectName(this.name, name, 'has an empty, . or .. segment');
      if (seg.startsWith(TEMP_PREFIX)) throw invalidObjectName(this.name, name, `has a segment starting with ${TEMP_PREFIX}, which marks files being written`);
    }
    return join(this.root, name);
  }

  async upload(name: string, bytes: Uint8Array): Promise<void> {
    await this.writeAtomically(name, (tmp) => writeFileSynced(tmp, bytes, 'wx', 0o644));
  }

  /** Copies in the kernel (copy_file_range), never holding the file in memory. */
  async uploadFile(name: string, path: string): Promise<void> {
    await this.writeAtomically(name, async (tmp) => {
      await copyFile(path, tmp, constants.COPYFILE_EXCL);
      await syncFile(tmp);
    });
  }

  private async writeAtomically(name: string, write: (tmp: string) => Promise<void>): Promise<void> {
    const file = this.path(name);
    const dir = dirname(file);
    const tmp = join(dir, `${TEMP_PREFIX}${randomBytes(8).toString('hex')}`);
    // A concurrent delete may remove the (then empty) directory between
    // mkdir and the write: make it again, a few times at most.
    for (let attempt = 0; ; attempt++) {
      await mkdir(dir, { recursive: true });
      try {
        await write(tmp);
        break;
      } catch (err) {
        await unlink(tmp).catch(() => {});
        if (code(err) === 'ENOENT' && attempt < 3 && !(await exists(dir))) continue;
        throw err;
      }
    }
    try {
      await rename(tmp, file);
    } catch (err) {
      await unlink(tmp).catch(() => {});
      throw err;
    }
    await syncDir(dir);
  }

  async get(name: string): Promise<Buffer> {
    try {
      return await readFile(this.path(name));
    } catch (err) {
      throw this.mapNotFound(err, name);
    }
  }

  async exists(name: string): Promise<boolean> {
    try {
      return (await stat(this.path(name))).isFile();
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  async size(name: string): Promise<number> {
    try {
      const st = await stat(this.path(name));
      if (!st.isFile()) throw new ObjectNotFoundError(name, this.name);
      return st.size;
    } catch (err) {
      throw this.mapNotFound(err, name);
    }
  }

  /**
   * As Thanos' filesystem Iter: directories that hold nothing are skipped,
   * the others are listed as `dir/`; recursive lists only files.
   */
  async iter(dir: string, opts?: { recursive?: boolean }): Promise<string[]> {
    const prefix = dirPrefix(dir);
    if (prefix !== '') this.path(prefix.slice(0, -1));
    const out: string[] = [];
    await this.walk(prefix, opts?.recursive === true, out);
    return sortNames(out);
  }

  /** Deletes the temporary files of interrupted writes under `dir` (a writer that owns `dir` is about to write it again). */
  async dropPartial(dir: string): Promise<void> {
    const root = this.path(dir);
    let entries;
    try {
      entries = await readdir(root, { withFileTypes: true, recursive: true });
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
    for (const e of entries) {
      if (e.isFile() && e.name.startsWith(TEMP_PREFIX)) await unlink(join(e.parentPath, e.name)).catch(() => {});
    }
  }

  private async walk(prefix: string, recursive: boolean, out: string[]): Promise<void> {
    let entries;
    try {
      entries = await readdir(join(this.root, prefix), { withFileTypes: true });
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
    for (const e of entries) {
      if (e.name.startsWith(TEMP_PREFIX)) continue;
      const name = prefix + e.name;
      if (!e.isDirectory()) {
        out.push(name);
      } else if (recursive) {
        await this.walk(`${name}/`, true, out);
      } else if (await this.holdsObjects(`${name}/`)) {
        out.push(`${name}/`);
      }
    }
  }

  /** Whether the directory holds anything but files being written (Thanos' isDirEmpty, less our temporary files). */
  private async holdsObjects(prefix: string): Promise<boolean> {
    try {
      return (await readdir(join(this.root, prefix))).some((n) => !n.startsWith(TEMP_PREFIX));
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  async delete(name: string): Promise<void> {
    const file = this.path(name);
    try {
      await unlink(file);
    } catch (err) {
      // Not there, or a directory (not an object): nothing to delete.
      if (isMissing(err) || code(err) === 'EISDIR' || code(err) === 'EPERM') return;
      throw err;
    }
    // rmdir removes a directory only when empty, atomically; stop at the first that is not.
    for (let dir = dirname(file); dir !== this.root && dir.startsWith(this.root); dir = dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        break;
      }
    }
  }

  async close(): Promise<void> {}

  private mapNotFound(err: unknown, name: string): unknown {
    if (isMissing(err) || code(err) === 'EISDIR') return new ObjectNotFoundError(name, this.name);
    return err;
  }
}

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

function isMissing(err: unknown): boolean {
  return code(err) === 'ENOENT' || code(err) === 'ENOTDIR';
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}
