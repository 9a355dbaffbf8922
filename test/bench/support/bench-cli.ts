/**
 * Runs `strata bench ...` as a user does (node bin/strata.js, built code:
 * `npm run build:ts` first), with a bounded time, and reads its JSON
 * report. Every process started here is remembered: call {@link killBench}
 * in an `after` hook.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchReport } from '../../../src/bench/report/schema.js';

const bin = new URL('../../../bin/strata.js', import.meta.url).pathname;

export interface BenchRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const running = new Set<ChildProcess>();

// The bench remembers each --url's last sample time in TMPDIR (last-sample.ts):
// a temporary directory of this test process's own keeps tests apart.
let benchTmp: string | undefined;
function benchEnv(): NodeJS.ProcessEnv {
  if (benchTmp === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'strata-bench-tmp-'));
    benchTmp = dir;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return { ...process.env, TMPDIR: benchTmp };
}

/** Starts `strata ARGS`; `onStderr` sees stderr as it comes. */
export function startStrata(args: string[], onStderr?: (text: string, child: ChildProcess) => void): { child: ChildProcess; done: Promise<BenchRun> } {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: benchEnv() });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (b: Buffer) => { stdout += b.toString(); });
  child.stderr!.on('data', (b: Buffer) => {
    stderr += b.toString();
    onStderr?.(stderr, child);
  });
  const done = new Promise<BenchRun>((resolve) => child.once('exit', (code, signal) => {
    running.delete(child);
    resolve({ code, signal, stdout, stderr });
  }));
  return { child, done };
}

/** Runs `strata ARGS` to the end; kills it (and fails) after `timeoutMs`. */
export async function runStrata(args: string[], timeoutMs = 60_000): Promise<BenchRun> {
  const { child, done } = startStrata(args);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const r = await done;
  clearTimeout(timer);
  if (r.signal === 'SIGKILL') throw new Error(`strata ${args.join(' ')} did not finish in ${timeoutMs} ms:\n${r.stderr}`);
  return r;
}

export function readReport(path: string): BenchReport {
  return JSON.parse(readFileSync(path, 'utf8')) as BenchReport;
}

export async function killBench(): Promise<void> {
  await Promise.all([...running].map((c) => new Promise<void>((resolve) => {
    c.once('exit', () => resolve());
    c.kill('SIGKILL');
  })));
}
