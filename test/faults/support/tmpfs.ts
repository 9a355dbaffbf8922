/**
 * A small tmpfs for the fault tests: a filesystem that really fills up,
 * and where touching a hole of a shared map needs real space (what turns
 * a careless map into SIGBUS). Mounting needs root (CI runs as root);
 * elsewhere the tests that need it skip, saying why.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Tmpfs {
  readonly dir: string;
  /** Takes every free byte of the filesystem with a file of zeros; returns the file's path. */
  fill(): string;
  unmount(): void;
}

/** Mounts a tmpfs of `size` (e.g. '48m'); a string saying why when it cannot. */
export function mountTmpfs(size: string): Tmpfs | string {
  const dir = mkdtempSync(join(tmpdir(), 'strata-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const why = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim();
    return `cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): ${why}`;
  }
  let fillers = 0;
  return {
    dir,
    fill() {
      const path = join(dir, `filler-${++fillers}`);
      const fd = openSync(path, 'w');
      const zeros = Buffer.alloc(1 << 16);
      try {
        for (;;) writeSync(fd, zeros);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        closeSync(fd);
      }
      // The last pages a partial write left: take them too.
      const fd2 = openSync(path, 'a');
      try {
        for (let i = 0; i < 64; i++) writeSync(fd2, zeros, 0, 512);
      } catch {
        // full
      } finally {
        closeSync(fd2);
      }
      return path;
    },
    unmount() {
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Deletes a filler file: the space comes back. */
export function freeFiller(path: string): void {
  unlinkSync(path);
}
