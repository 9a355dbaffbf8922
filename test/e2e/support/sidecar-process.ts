/**
 * Processes for the end-to-end tests of `strata sidecar`: Prometheus 2.42
 * with any flags, in a directory it can be started in again (same data,
 * same port: stop() leaves its files), and `strata sidecar` (node
 * bin/strata.js, built code: `npm run build:ts` first) on free 127.0.0.1
 * ports, started or expected to exit.
 *
 * Every process started here is remembered: call {@link stopAll} in an
 * `after` hook. Every wait is bounded and throws with the process' output.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StoreClient } from '../../store/support/client.js';
import { exited, portOf, type ExitStatus } from '../../support/serve-process.js';
import { freePort } from './prometheus.js';
import { waitFor } from './strata-blocks.js';

const bin = new URL('../../../bin/strata.js', import.meta.url).pathname;
/** Start-up of either takes a second or two; allow for a loaded machine. */
const START_MS = 30_000;
const STOP_MS = 15_000;

export interface Prom {
  readonly base: string;
  readonly port: number;
  /** Its --storage.tsdb.path. */
  readonly data: string;
  output(): string;
  /** SIGTERM; resolves once it is gone (SIGKILL after STOP_MS). Its files stay. */
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();

/** Stops every process started here that is still running (SIGTERM, then SIGKILL after STOP_MS). */
export async function stopAll(): Promise<void> {
  await Promise.all([...children].map((c) => stopChild(c)));
}

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** SIGTERM; resolves with how it ended once it is gone (SIGKILL after STOP_MS). */
export async function stopChild(child: ChildProcess): Promise<ExitStatus> {
  const gone = exited(child);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_MS);
  const status = await gone;
  clearTimeout(timer);
  return status;
}

/** The status of a GET of `url`; 0 when nothing answers within 2 s. */
export async function httpStatus(url: string): Promise<number> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** Runs Prometheus on DIR/prometheus.yml and DIR/data at 127.0.0.1:PORT with `flags`; resolves once /-/ready answers 200. */
export async function runPrometheus(dir: string, port: number, flags: readonly string[]): Promise<Prom> {
  const data = join(dir, 'data');
  const child = track(spawn('prometheus', [
    `--config.file=${join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${data}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--storage.tsdb.retention.time=100y',
    '--log.level=info',
    ...flags,
  ], { stdio: ['ignore', 'pipe', 'pipe'] }));
  let output = '';
  const keep = (b: Buffer) => (output = (output + b.toString()).slice(-32768));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(START_MS, async () => {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`prometheus exited with ${child.exitCode ?? child.signalCode}:\n${output}`);
    return (await httpStatus(`${base}/-/ready`)) === 200 ? true : undefined;
  }, () => `prometheus not ready:\n${output}`, 100);
  return { base, port, data, output: () => output, stop: async () => void (await stopChild(child)) };
}

/** A Prometheus in a new temporary directory under `root` with `config(port)` as its configuration. */
export async function newPrometheus(root: string, name: string, config: (port: number) => string, flags: readonly string[]): Promise<Prom> {
  const dir = join(root, name);
  mkdirSync(dir);
  const port = await freePort();
  writeFileSync(join(dir, 'prometheus.yml'), config(port));
  return runPrometheus(dir, port, flags);
}

export interface SidecarRun {
  readonly child: ChildProcess;
  stderr(): string;
  readonly exit: Promise<ExitStatus>;
}

export interface Sidecar extends SidecarRun {
  /** http://127.0.0.1:PORT */
  readonly base: string;
  readonly client: StoreClient;
}

/** Spawns `strata sidecar` against `prom` on free 127.0.0.1 ports with `args` after. */
export function spawnSidecar(prom: Prom, args: readonly string[]): SidecarRun {
  const child = track(spawn(process.execPath, [
    bin, 'sidecar', '--prometheus.url', prom.base, '--tsdb.path', prom.data,
    '--grpc-address', '127.0.0.1:0', '--http-address', '127.0.0.1:0', '--log.format=json', ...args,
  ], { stdio: ['ignore', 'ignore', 'pipe'] }));
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  return { child, stderr: () => stderr, exit: exited(child) };
}

/** `strata sidecar` against `prom`, once it logs "strata sidecar started". */
export async function startSidecar(prom: Prom, args: readonly string[]): Promise<Sidecar> {
  const run = spawnSidecar(prom, args);
  const started = await waitFor(START_MS, () => {
    const line = run.stderr().split('\n').find((l) => l.includes('"msg":"strata sidecar started"'));
    if (line !== undefined) return JSON.parse(line) as Record<string, unknown>;
    if (run.child.exitCode !== null || run.child.signalCode !== null) throw new Error(`strata sidecar exited with ${run.child.exitCode ?? run.child.signalCode}:\n${run.stderr()}`);
    return undefined;
  }, () => `strata sidecar did not start:\n${run.stderr()}`);
  return { ...run, base: `http://127.0.0.1:${portOf(started.httpAddress)}`, client: new StoreClient(`127.0.0.1:${portOf(started.grpcAddress)}`) };
}

/** How a process ended, bounded: a process still running after `ms` is killed and reported. */
export async function exitWithin(run: SidecarRun, ms: number): Promise<ExitStatus> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  const status = await Promise.race([run.exit, late]);
  clearTimeout(timer);
  if (status === 'late') {
    await stopChild(run.child);
    assert.fail(`strata sidecar still running after ${ms} ms:\n${run.stderr()}`);
  }
  return status;
}

/** The error lines a process logged, parsed (--log.format=json). */
export function errorLines(run: SidecarRun): Array<Record<string, unknown>> {
  return run.stderr().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 'error');
}

/** The text of the sidecar's /metrics. */
export async function sidecarMetrics(s: Sidecar): Promise<string> {
  const res = await fetch(`${s.base}/metrics`, { signal: AbortSignal.timeout(10_000) });
  return res.text();
}
