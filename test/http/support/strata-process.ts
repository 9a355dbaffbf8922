/**
 * Runs `strata serve` as a user would for the HTTP tests (see
 * ../../support/serve-process.ts) and waits until it is ready.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { portOf, spawnServe } from '../../support/serve-process.js';

export interface StrataProcess {
  /** http://127.0.0.1:PORT */
  readonly base: string;
  readonly dataDir: string;
  readonly child: ChildProcess;
  /** Everything the process wrote to stderr so far (its JSON log lines). */
  stderr(): string;
  /** Sends SIGTERM and resolves with the exit code (null if killed by a signal). */
  stop(): Promise<number | null>;
  /** SIGKILL, no goodbye; resolves once the process is gone. */
  kill9(): Promise<void>;
}

/** A fresh temporary directory; remove it with {@link removeDir}. */
export function tempDir(prefix = 'strata-http-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Starts `strata serve` on `dataDir` (a new temporary one by default) and waits until it is ready. */
export async function startStrata(options: { dataDir?: string; env?: 'development' | 'production' } = {}): Promise<StrataProcess> {
  const dataDir = options.dataDir ?? join(tempDir(), 'data');
  const p = spawnServe({ dataDir, args: options.env === undefined ? [] : ['--env', options.env] });
  try {
    const started = await p.line('strata started');
    return {
      base: `http://127.0.0.1:${portOf(started.httpAddress)}`,
      dataDir,
      child: p.child,
      stderr: p.stderr,
      stop: async () => (await p.stop()).code,
      kill9: p.kill9,
    };
  } catch (err) {
    await p.kill9();
    throw err;
  }
}
