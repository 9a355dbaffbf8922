/**
 * Runs `strata serve` as a process (built code: `npm run build:ts` first)
 * with extra flags and environment, on 127.0.0.1 and free ports. Unlike
 * ../../support/strata-process.ts it can stop waiting as soon as HTTP
 * listens (the "HTTP listening" line), before the server is ready.
 *
 * Every process started here is remembered: call {@link stopAll} in an
 * `after` hook (SIGKILL to whatever is left), and {@link removeTempDirs}.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { removeDir, tempDir } from '../../support/strata-process.js';
import { killAll, portOf, spawnServe } from '../../../support/serve-process.js';

export interface Served {
  /** http://127.0.0.1:PORT */
  readonly base: string;
  readonly dataDir: string;
  readonly child: ChildProcess;
  stderr(): string;
  /** Resolves with the "strata started" line (parsed) once the server is ready. */
  started(): Promise<{ grpcAddress: string; httpAddress: string }>;
  /** SIGTERM; resolves with the exit code (SIGKILL after a deadline). */
  stop(): Promise<number | null>;
}

const dirs = new Set<string>();

/**
 * Starts `strata serve` with `args` after the usual ones and `env` added,
 * and resolves once HTTP listens (`until: 'listening'`) or the server is
 * ready (`until: 'started'`, the default). On a new data directory, or on
 * `dataDir` (a restart: that of a stopped Served).
 */
export async function serve(options: { args?: string[]; env?: Record<string, string>; until?: 'listening' | 'started'; dataDir?: string } = {}): Promise<Served> {
  let dataDir = options.dataDir;
  if (dataDir === undefined) {
    const dir = tempDir('strata-prom-');
    dirs.add(dir);
    dataDir = join(dir, 'data');
  }
  const p = spawnServe({ dataDir, args: options.args, env: options.env });
  const started = p.line('strata started') as Promise<{ grpcAddress: string; httpAddress: string }>;
  started.catch(() => {}); // observed by whoever awaits started()
  try {
    const listening = await p.line('HTTP listening');
    if (options.until !== 'listening') await started;
    return {
      base: `http://127.0.0.1:${portOf(listening.httpAddress)}`,
      dataDir,
      child: p.child,
      stderr: p.stderr,
      started: () => started,
      stop: async () => (await p.stop()).code,
    };
  } catch (err) {
    await p.kill9();
    throw err;
  }
}

/** SIGKILLs every process started by the tests that is still running. */
export const stopAll = killAll;

export function removeTempDirs(): void {
  for (const d of dirs) removeDir(d);
  dirs.clear();
}
