/**
 * Child processes of the comparison: started with their output kept (for
 * error messages), waited for with a bound, and stopped (SIGTERM, then
 * SIGKILL after a grace period). Every child started here is remembered,
 * so that `stopAll` can end whatever is left when the run fails or is
 * interrupted.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Output kept per child for error messages (the tail is what matters). */
const KEEP_OUTPUT_CHARS = 64 * 1024;

export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  readonly pid: number;
  /** The last KEEP_OUTPUT_CHARS of stdout and stderr. */
  output(): string;
  /** SIGTERM, SIGKILL after `graceMs`; resolves with the exit code (null after a signal). */
  stop(graceMs?: number): Promise<number | null>;
}

const running = new Set<Child>();

/** Starts `command` with `args`; stdout and stderr are kept. */
export function startChild(name: string, command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Child {
  const proc = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (proc.pid === undefined) throw new Error(`${name}: could not start ${command}`);
  let out = '';
  const keep = (b: Buffer) => {
    out += b.toString();
    if (out.length > 2 * KEEP_OUTPUT_CHARS) out = out.slice(-KEEP_OUTPUT_CHARS);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const child: Child = {
    name,
    process: proc,
    pid: proc.pid,
    output: () => out.slice(-KEEP_OUTPUT_CHARS),
    async stop(graceMs = 30_000) {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      running.delete(child);
      return proc.exitCode;
    },
  };
  running.add(child);
  void exited.then(() => running.delete(child));
  return child;
}

/** Stops every child still running (used on failure and on SIGINT). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((c) => c.stop(10_000)));
}

/** A port free on 127.0.0.1 right now (another process could take it before use; rare on a quiet machine). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Polls `url` until `ok(status)` holds, the child exits, or `timeoutMs`
 * passes (then it throws with the child's output).
 */
export async function waitForHttp(child: Child, url: string, timeoutMs: number, ok: (status: number) => boolean = (s) => s === 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) {
      throw new Error(`${child.name} exited (${child.process.exitCode ?? child.process.signalCode}) before ${url} answered:\n${child.output()}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (ok(res.status)) return;
      last = `status ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(100);
  }
  throw new Error(`${child.name}: ${url} not ready in ${timeoutMs} ms (${last}):\n${child.output()}`);
}

/** Resolves with the first line of the child's output that `pick` maps to a value, within `timeoutMs`. */
export function waitForLine<T>(child: Child, pick: (line: string) => T | undefined, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const finish = (f: () => void) => {
      clearTimeout(timer);
      child.process.stdout!.off('data', onData);
      child.process.stderr!.off('data', onData);
      child.process.off('exit', onExit);
      f();
    };
    const onData = (b: Buffer) => {
      buffer += b.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const v = pick(line);
        if (v !== undefined) return finish(() => resolve(v));
      }
    };
    const onExit = (code: number | null) => finish(() => reject(new Error(`${child.name} exited with ${code}:\n${child.output()}`)));
    const timer = setTimeout(() => finish(() => reject(new Error(`${child.name}: no start line in ${timeoutMs} ms:\n${child.output()}`))), timeoutMs);
    child.process.stdout!.on('data', onData);
    child.process.stderr!.on('data', onData);
    child.process.once('exit', onExit);
  });
}

/** The path of `command` on PATH, or undefined. */
export function which(command: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  const path = r.stdout.trim();
  return r.status === 0 && path !== '' ? path : undefined;
}

/** The first line `command args` prints (stdout or stderr), e.g. a version. */
export function firstLine(command: string, args: string[]): string {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  return `${r.stdout ?? ''}${r.stderr ?? ''}`.split('\n')[0]!.trim();
}
