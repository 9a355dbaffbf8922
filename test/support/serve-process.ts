/**
 * The one way tests run `strata serve` as a process (node bin/strata.js,
 * built code: `npm run build:ts` first) on 127.0.0.1 with free ports. The
 * helpers of test/http and test/store are thin layers over it.
 *
 * Every process started here is remembered: call {@link killAll} in an
 * `after` hook (SIGKILL to whatever is left).
 */
import { spawn, type ChildProcess } from 'node:child_process';

const bin = new URL('../../bin/strata.js', import.meta.url).pathname;

/** How long a start may take before the test fails: workers, recovery, listening. */
export const START_TIMEOUT_MS = 20_000;
/** How long a graceful stop may take before the process is killed. */
export const STOP_TIMEOUT_MS = 15_000;

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly dataDir: string;
  /** The arguments after `serve`. */
  readonly args: readonly string[];
  /** Everything the process wrote to stderr so far (its JSON log lines). */
  stderr(): string;
  /** The first log line whose msg starts with `msg`, parsed; rejects if the process exits first or after the timeout. */
  line(msg: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** SIGTERM; resolves once the process is gone (SIGKILL after STOP_TIMEOUT_MS). */
  stop(): Promise<ExitStatus>;
  /** SIGKILL; resolves once the process is gone. */
  kill9(): Promise<void>;
}

const running = new Set<ChildProcess>();

/** Resolves when `child` has exited, with how. */
export function exited(child: ChildProcess): Promise<ExitStatus> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Spawns `strata serve --data-dir DIR` on free 127.0.0.1 ports with one worker, then `args`. */
export function spawnServe(options: { dataDir: string; args?: string[]; env?: Record<string, string> }): ServeProcess {
  const args = [
    'serve', '--data-dir', options.dataDir, '--http-address', '127.0.0.1:0', '--grpc-address', '127.0.0.1:0', '--workers', '1', '--log.format=json',
    ...(options.args ?? []),
  ];
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...options.env } });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  const text = (): string => stderr;
  return {
    child,
    dataDir: options.dataDir,
    args,
    stderr: text,
    line: (msg, timeoutMs = START_TIMEOUT_MS) => lineWith(child, text, msg, timeoutMs),
    async stop() {
      const gone = exited(child);
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      const status = await gone;
      clearTimeout(timer);
      return status;
    },
    async kill9() {
      const gone = exited(child);
      child.kill('SIGKILL');
      await gone;
    },
  };
}

function lineWith(child: ChildProcess, text: () => string, msg: string, timeoutMs: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const find = () => text().split('\n').find((l) => l.includes(`"msg":"${msg}`));
    const timer = setTimeout(() => finish(new Error(`no "${msg}" line in ${timeoutMs} ms:\n${text()}`)), timeoutMs);
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

/** SIGKILLs every process started here that is still running. */
export async function killAll(): Promise<void> {
  await Promise.all([...running].map((child) => {
    const gone = exited(child);
    child.kill('SIGKILL');
    return gone;
  }));
}

/** The port of a HOST:PORT address in a log line. */
export function portOf(address: unknown): number {
  return Number(String(address).split(':').pop());
}
