/**
 * Runs `strata serve` as a process (built code: `npm run build:ts` first)
 * with extra flags and environment, on 127.0.0.1 and free ports. Unlike
 * ../../support/strata-process.ts it can stop waiting as soon as HTTP
 * listens (the "HTTP listening" line), before the server is ready.
 *
 * Every process started here is remembered: call {@link stopAll} in an
 * `after` hook (SIGKILL to whatever is left), and {@link removeTempDirs}.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { removeDir, tempDir } from '../../support/strata-process.js';

const bin = new URL('../../../../bin/strata.js', import.meta.url).pathname;
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 15_000;

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

const running = new Set<ChildProcess>();
const dirs = new Set<string>();

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Waits for a log line containing `msg`; rejects if the process exits first or after the timeout. */
function lineWith(child: ChildProcess, text: () => string, msg: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const find = () => text().split('\n').find((l) => l.includes(`"msg":"${msg}`));
    const timer = setTimeout(() => finish(new Error(`no "${msg}" line in ${START_TIMEOUT_MS} ms:\n${text()}`)), START_TIMEOUT_MS);
    const onData = () => {
      const line = find();
      if (line !== undefined) finish(JSON.parse(line) as Record<string, unknown>);
    };
    const onExit = (code: number | null) => finish(new Error(`strata serve exited with ${code} before "${msg}":\n${text()}`));
    function finish(result: Record<string, unknown> | Error) {
      clearTimeout(timer);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
      if (result instanceof Error) reject(result);
      else resolve(result);
    }
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
    onData();
  });
}

/**
 * Starts `strata serve` with `args` after the usual ones and `env` added,
 * and resolves once HTTP listens (`until: 'listening'`) or the server is
 * ready (`until: 'started'`, the default).
 */
export async function serve(options: { args?: string[]; env?: Record<string, string>; until?: 'listening' | 'started' } = {}): Promise<Served> {
  const dir = tempDir('strata-prom-');
  dirs.add(dir);
  const dataDir = join(dir, 'data');
  const args = [bin, 'serve', '--data-dir', dataDir, '--http-address', '127.0.0.1:0', '--grpc-address', '127.0.0.1:0', '--workers', '1', ...(options.args ?? [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...options.env } });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  const text = () => stderr;
  const started = lineWith(child, text, 'strata started') as Promise<{ grpcAddress: string; httpAddress: string }>;
  started.catch(() => {}); // observed by whoever awaits started()
  try {
    const listening = await lineWith(child, text, 'HTTP listening');
    if (options.until !== 'listening') await started;
    const port = Number((listening.httpAddress as string).split(':').pop());
    return {
      base: `http://127.0.0.1:${port}`,
      dataDir,
      child,
      stderr: text,
      started: () => started,
      async stop() {
        const done = exited(child);
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        const code = await done;
        clearTimeout(timer);
        return code;
      },
    };
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
}

/** SIGKILLs every process started here that is still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((child) => {
    const done = exited(child);
    child.kill('SIGKILL');
    return done;
  }));
}

export function removeTempDirs(): void {
  for (const d of dirs) removeDir(d);
  dirs.clear();
}
