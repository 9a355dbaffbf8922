/**
 * Runs `strata serve` as a user would (node bin/strata.js, built code) with
 * gRPC and HTTP on 127.0.0.1 and free ports, and stops it. Mirrors
 * test/http/support/strata-process.ts, adding gRPC flags and reading the
 * bound gRPC port from the "strata started" log line. Build first
 * (`npm run build:ts`).
 *
 * Every process started here is remembered; call {@link stopAll} in an
 * `after` hook so that no test leaves one running, and {@link removeTempDirs}
 * to delete the temporary directories made by {@link tempDir}.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = new URL('../../../bin/strata.js', import.meta.url).pathname;

/** How long a start may take before the test fails: workers, recovery, listen. */
const START_TIMEOUT_MS = 20_000;
/** How long a graceful stop may take before the process is killed (and the test fails on the exit code). */
const STOP_TIMEOUT_MS = 15_000;

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

const running = new Set<ChildProcess>();
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

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

export interface StartOptions {
  /** The data directory; a new temporary one by default. */
  dataDir?: string;
  /** Extra `serve` flags, e.g. ['--label', 'region=eu', '--replica-label', 'replica']. */
  args?: string[];
}

/** Starts `strata serve` and resolves once its "strata started" line names the bound gRPC port. */
export async function startStrata(options: StartOptions = {}): Promise<StrataGrpc> {
  const dataDir = options.dataDir ?? join(tempDir(), 'data');
  const args = [
    'serve', '--data-dir', dataDir, '--http-address', '127.0.0.1:0', '--grpc-address', '127.0.0.1:0', '--workers', '1',
    ...(options.args ?? []),
  ];
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  const grpcAddress = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`strata serve did not start in ${START_TIMEOUT_MS} ms:\n${stderr}`)), START_TIMEOUT_MS);
    const onData = () => {
      const line = stderr.split('\n').find((l) => l.includes('"strata started"'));
      if (line === undefined) return;
      const address = (JSON.parse(line) as { grpcAddress?: string }).grpcAddress ?? '';
      const port = Number(address.split(':').pop());
      if (!(port > 0)) return fail(new Error(`"strata started" does not name the bound gRPC port (grpcAddress: ${JSON.stringify(address)}):\n${line}`));
      done();
      resolve(`127.0.0.1:${port}`);
    };
    const onExit = (code: number | null) => fail(new Error(`strata serve exited with ${code} before listening:\n${stderr}`));
    function done() {
      clearTimeout(timer);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
    }
    function fail(err: Error) {
      done();
      child.kill('SIGKILL');
      reject(err);
    }
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
  });

  return {
    grpcAddress,
    dataDir,
    child,
    args,
    stderr: () => stderr,
    async stop() {
      const gone = exited(child);
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      const result = await gone;
      clearTimeout(timer);
      return result;
    },
    async kill9() {
      const gone = exited(child);
      child.kill('SIGKILL');
      await gone;
    },
    exit(timeoutMs = STOP_TIMEOUT_MS) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`strata serve did not exit within ${timeoutMs} ms:\n${stderr}`));
        }, timeoutMs);
        void exited(child).then((r) => {
          clearTimeout(timer);
          resolve(r);
        });
      });
    },
  };
}

/** SIGKILLs every process started here that is still running (for `after` hooks). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((child) => {
    const gone = exited(child);
    child.kill('SIGKILL');
    return gone;
  }));
}
