/**
 * Runs `strata serve` for the Store API tests (over
 * ../../support/serve-process.ts), reading the bound gRPC port from the
 * "strata started" log line. Build first (`npm run build:ts`).
 *
 * Every process started here is remembered; call {@link stopAll} in an
 * `after` hook so that no test leaves one running, and {@link removeTempDirs}
 * to delete the temporary directories made by {@link tempDir}.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STOP_TIMEOUT_MS, exited, killAll, portOf, spawnServe } from '../../support/serve-process.js';

export interface StrataGrpc {
  /** 127.0.0.1:PORT of the gRPC listener. */
  readonly grpcAddress: string;
  readonly dataDir: string;
  readonly child: ChildProcess;
  /** The arguments after `serve`. */
  readonly args: readonly string[];
  /** Everything the process wrote to stderr so far (its JSON log lines). */
  stderr(): string;
  /** SIGTERM; resolves with the exit code and signal once the process is gone (SIGKILL after a deadline). */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL; resolves once the process is gone. */
  kill9(): Promise<void>;
  /** Resolves when the process exits by itself; rejects after `timeoutMs` (the process is then killed). */
  exit(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const dirs = new Set<string>();

/** A fresh temporary directory, removed by {@link removeTempDirs}. */
export function tempDir(prefix = 'strata-store-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}

export interface StartOptions {
  /** The data directory; a new temporary one by default. */
  dataDir?: string;
  /** Extra `serve` flags, e.g. ['--label', 'region="eu"', '--replica-label', 'replica']. */
  args?: string[];
}

/** Starts `strata serve` and resolves once its "strata started" line names the bound gRPC port. */
export async function startStrata(options: StartOptions = {}): Promise<StrataGrpc> {
  const dataDir = options.dataDir ?? join(tempDir(), 'data');
  const p = spawnServe({ dataDir, args: options.args });
  let port: number;
  try {
    const started = await p.line('strata started');
    port = portOf(started.grpcAddress);
    if (!(port > 0)) throw new Error(`"strata started" does not name the bound gRPC port (grpcAddress: ${JSON.stringify(started.grpcAddress)})`);
  } catch (err) {
    await p.kill9();
    throw err;
  }
  return {
    grpcAddress: `127.0.0.1:${port}`,
    dataDir,
    child: p.child,
    args: p.args,
    stderr: p.stderr,
    stop: p.stop,
    kill9: p.kill9,
    exit(timeoutMs = STOP_TIMEOUT_MS) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          p.child.kill('SIGKILL');
          reject(new Error(`strata serve did not exit within ${timeoutMs} ms:\n${p.stderr()}`));
        }, timeoutMs);
        void exited(p.child).then((r) => {
          clearTimeout(timer);
          resolve(r);
        });
      });
    },
  };
}

/** SIGKILLs every process started here that is still running (for `after` hooks). */
export const stopAll = killAll;
