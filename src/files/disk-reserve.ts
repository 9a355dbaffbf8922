/**
 * Space held back on the data directory's filesystem, so that a write
 * that finds the disk full can still finish: a file of zeros written for
 * real (no holes), deleted when a write fails with ENOSPC, written again
 * once the filesystem has room for it and as much again.
 */
import { statSync, statfsSync, unlinkSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** The reserve file's name in its directory; no engine file is named so. */
export const RESERVE_FILE = 'space-reserve';
/** Zeros written per call while the reserve is laid down. */
const STEP = 1 << 20;
/** Free space writes need, at the least, to resume after a full disk when no reserve is kept. */
const MIN_FREE_BYTES = 1 << 20;
const zeros = new Uint8Array(STEP);

/** True for the errors that mean "no room": ENOSPC, and EDQUOT (a quota is a full disk too). */
export function isNoSpace(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** A full disk, a quota or an I/O error: what a later attempt may get past. */
export function isDiskFault(err: unknown): boolean {
  return isNoSpace(err) || (err as { code?: unknown } | undefined)?.code === 'EIO';
}

/** Bytes an unprivileged writer may still take on the filesystem holding `path`. */
export function freeBytes(path: string): number {
  const s = statfsSync(path);
  return s.bavail * s.bsize;
}

export class DiskReserve {
  private present = false;

  /**
   * @param dir where the reserve file lives (the data directory)
   * @param bytes its size; 0 keeps no reserve
   */
  constructor(readonly dir: string, readonly bytes: number) {}

  /** Whether the reserve is on disk (always true for a reserve of 0 bytes). */
  get held(): boolean {
    return this.bytes === 0 || this.present;
  }

  /**
   * Lays the reserve down (zeros written and fsynced, off the event loop)
   * unless it is there, a whole one left by an earlier run included.
   * Resolves false, leaving no file behind, when the filesystem has no
   * room for it; other errors reject.
   */
  async ensure(): Promise<boolean> {
    if (this.held) return true;
    const path = join(this.dir, RESERVE_FILE);
    if (sizeOf(path) === this.bytes) {
      this.present = true;
      return true;
    }
    const file = await open(path, 'w');
    try {
      for (let at = 0; at < this.bytes; at += STEP) await file.write(zeros, 0, Math.min(STEP, this.bytes - at), at);
      await file.sync();
    } catch (err) {
      await file.close();
      await rm(path, { force: true });
      if (isNoSpace(err)) return false;
      throw err;
    }
    await file.close();
    this.present = true;
    return true;
  }

  /** Deletes the reserve, giving its space to the writes that need it; false when there was none to give. */
  release(): boolean {
    if (!this.present) return false;
    this.present = false;
    unlinkSync(join(this.dir, RESERVE_FILE));
    return true;
  }

  /** Whether the filesystem has room for the reserve and as much again (the rule for writes to resume). */
  roomToResume(): boolean {
    const need = this.present ? this.bytes : 2 * this.bytes;
    return freeBytes(this.dir) >= Math.max(need, MIN_FREE_BYTES);
  }
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}
