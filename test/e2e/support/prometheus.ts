/**
 * Runs a real Prometheus (the Debian `prometheus` binary on PATH) on
 * 127.0.0.1 with a given configuration and a temporary storage directory,
 * and talks to its HTTP API. The end-to-end tests use it as a writer
 * (scraping itself, remote-writing) and as a reader (remote-reading).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Start-up of Prometheus 2.42 on an empty directory takes about a second; allow for a loaded CI machine. */
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
/** Output kept for failure messages. */
const KEEP_OUTPUT_CHARS = 32 * 1024;

/** The `prometheus` binary on PATH, or undefined. */
export function prometheusBinary(): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' });
  const path = r.stdout.trim();
  return r.status === 0 && path !== '' ? path : undefined;
}

/** A port free on 127.0.0.1 now (released before use; another process taking it in between is unlikely). */
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

/** One series of a PromQL answer: an instant vector element or a range matrix row. */
export interface PromSeries {
  metric: Record<string, string>;
  value?: [number, string];
  values?: Array<[number, string]>;
}

export interface PromAnswer {
  resultType: string;
  result: PromSeries[] | [number, string];
}

export interface PrometheusProcess {
  readonly name: string;
  readonly port: number;
  /** http://127.0.0.1:PORT */
  readonly base: string;
  readonly child: ChildProcess;
  output(): string;
  /** GET /api/v1/query at `timeSeconds`; throws on an error answer. */
  query(promql: string, timeSeconds: number): Promise<PromAnswer>;
  /** GET /api/v1/query_range; throws on an error answer. */
  queryRange(promql: string, startSeconds: number, endSeconds: number, stepSeconds: number): Promise<PromAnswer>;
  /** The text of its own /metrics. */
  metrics(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts Prometheus with `config(port)` as its configuration (the port is
 * chosen first, so a configuration can name its own address) and `flags`
 * (say `--enable-feature=exemplar-storage`), and waits until /-/ready
 * answers 200. `seed` may fill the storage directory first (say, with
 * blocks to read).
 */
export async function startPrometheus(
  name: string,
  config: (port: number) => string,
  flags: readonly string[] = [],
  options: { seed?: (dataDir: string) => void } = {},
): Promise<PrometheusProcess> {
  const binary = prometheusBinary();
  if (binary === undefined) throw new Error('prometheus is not on PATH');
  const dir = mkdtempSync(join(tmpdir(), `strata-e2e-${name}-`));
  const port = await freePort();
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, config(port));
  options.seed?.(join(dir, 'data'));
  const child = spawn(binary, [
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
    ...flags,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-KEEP_OUTPUT_CHARS);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const api = async (path: string): Promise<PromAnswer> => {
    const res = await fetch(base + path, { signal: AbortSignal.timeout(30_000) });
    const body = (await res.json()) as { status: string; data?: PromAnswer; error?: string; errorType?: string };
    if (res.status !== 200 || body.status !== 'success' || body.data === undefined) {
      throw new Error(`${name} ${path}: ${res.status} ${body.errorType ?? ''} ${body.error ?? JSON.stringify(body)}`);
    }
    return body.data;
  };

  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} (prometheus) exited with ${child.exitCode ?? child.signalCode}:\n${out}`);
      if (Date.now() > deadline) throw new Error(`${name} (prometheus) not ready in ${START_TIMEOUT_MS} ms:\n${out}`);
      try {
        const res = await fetch(`${base}/-/ready`, { signal: AbortSignal.timeout(2000) });
        await res.arrayBuffer();
        if (res.status === 200) break;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    name,
    port,
    base,
    child,
    output: () => out,
    query: (promql, time) => api(`/api/v1/query?${new URLSearchParams({ query: promql, time: time.toFixed(3) })}`),
    queryRange: (promql, start, end, step) =>
      api(`/api/v1/query_range?${new URLSearchParams({ query: promql, start: start.toFixed(3), end: end.toFixed(3), step: String(step) })}`),
    async metrics() {
      const res = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(10_000) });
      return res.text();
    },
    stop,
  };
}

/** The value of the first sample line of `name` in a text exposition (any labels), or undefined. */
export function metricValue(text: string, name: string): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== ' ' && line[name.length] !== '{')) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}
