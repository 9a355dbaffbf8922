/**
 * Runs `strata serve` as a user would (node bin/strata.js, built code) on
 * 127.0.0.1 with a free port, and stops it. Tests must build first
 * (`npm run build:ts`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = new URL('../../../bin/strata.js', import.meta.url).pathname;

/** How long a start may take before the test fails: workers, store recovery, listen. */
const START_TIMEOUT_MS = 20_000;
/** How long a graceful stop may take. */
const STOP_TIMEOUT_MS = 15_000;

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

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Starts `strata serve` on `dataDir` (a new temporary one by default) and waits until it listens. */
export async function startStrata(options: { dataDir?: string; env?: 'development' | 'production' } = {}): Promise<StrataProcess> {
  const dataDir = options.dataDir ?? join(tempDir(), 'data');
  const args = [bin, 'serve', '--data-dir', dataDir, '--http-address', '127.0.0.1:0', '--grpc-address', '127.0.0.1:0', '--workers', '1'];
  if (options.env !== undefined) args.push('--env', options.env);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`strata serve did not start in ${START_TIMEOUT_MS} ms:\n${stderr}`)), START_TIMEOUT_MS);
    const onData = () => {
      const line = stderr.split('\n').find((l) => l.includes('"strata started"'));
      if (line === undefined) return;
      clearTimeout(timer);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
      resolve(Number((JSON.parse(line) as { httpAddress: string }).httpAddress.split(':').pop()));
    };
    const onExit = (code: number | null) => fail(new Error(`strata serve exited with ${code} before listening:\n${stderr}`));
    function fail(err: Error) {
      clearTimeout(timer);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
      child.kill('SIGKILL');
      reject(err);
    }
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
  });

  return {
    base: `http://127.0.0.1:${port}`,
    dataDir,
    child,
    stderr: () => stderr,
    async stop() {
      const done = exited(child);
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      const code = await done;
      clearTimeout(timer);
      return code;
    },
    async kill9() {
      const done = exited(child);
      child.kill('SIGKILL');
      await done;
    },
  };
}
