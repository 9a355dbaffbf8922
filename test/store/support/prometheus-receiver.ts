/**
 * A real Prometheus 2.42 (the Debian `prometheus` binary on PATH) on
 * 127.0.0.1 that takes remote writes, for tests of a sidecar in front of
 * it: a temporary data directory, global.external_labels as asked, no
 * scrape targets, 2 h blocks (min = max block duration, as a sidecar that
 * ships blocks wants). Every wait is bounded and throws with Prometheus'
 * output.
 *
 * What 2.42 does with remote writes (test/e2e/prometheus-blocks.test.ts):
 * a write answers 204 once appended to the head; a sample older than the
 * head's newest minus 1 h (half the block range) makes the whole write 400;
 * a commit that leaves the head spanning more than 1.5 block ranges starts
 * head compaction at once, which writes the oldest 2 h of the head as a
 * block into the data directory and then drops it from the head, until the
 * head spans at most 3 h.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { postWrite, type Series } from '../../http/prometheus/support/prom-wire.js';
import { freePort, metricValue, prometheusBinary } from '../../e2e/support/prometheus.js';

/** Start-up on an empty directory takes 1-2 s; allow for a loaded machine. */
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
/** Head compaction of a long write (the suite's longest spans 83 h: 42 blocks) takes seconds on a slow machine. */
const SETTLE_TIMEOUT_MS = 60_000;
const KEEP_OUTPUT_CHARS = 32 * 1024;
const BLOCK_RANGE_MS = 2 * 3_600_000;

export interface PrometheusReceiver {
  /** http://127.0.0.1:PORT */
  readonly base: string;
  /** Its TSDB directory (blocks, wal, chunks_head). */
  readonly dataDir: string;
  /** Remote-writes `series` (values as raw bits); throws unless Prometheus answers 204. */
  write(series: readonly Series[]): Promise<void>;
  /** Waits until no head compaction is due or running: every block it will cut for the data so far is in dataDir. */
  settled(): Promise<void>;
  output(): string;
  stop(): Promise<void>;
}

/** Whether the binary is there (tests skip with a reason when not). */
export const hasPrometheus = (): boolean => prometheusBinary() !== undefined;

/** Those started and not stopped yet, for stopAllReceivers. */
const running = new Set<PrometheusReceiver>();

/** Stops every Prometheus still running (a test file's last `after`: none outlives the tests). */
export async function stopAllReceivers(): Promise<void> {
  await Promise.all([...running].map((p) => p.stop()));
}

/** Starts Prometheus with `externalLabels` (none: no external_labels at all) and waits for /-/ready. */
export async function startPrometheusReceiver(externalLabels: Record<string, string>): Promise<PrometheusReceiver> {
  const binary = prometheusBinary();
  if (binary === undefined) throw new Error('prometheus is not on PATH');
  const dir = mkdtempSync(join(tmpdir(), 'strata-sidecar-prom-'));
  const dataDir = join(dir, 'data');
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, configYaml(externalLabels));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(binary, [
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${dataDir}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--web.enable-remote-write-receiver',
    '--storage.tsdb.min-block-duration=2h',
    '--storage.tsdb.max-block-duration=2h',
    // Retention counts back from the newest block, not from now; the suite's data is from 2023.
    '--storage.tsdb.retention.time=100y',
    '--log.level=warn',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-KEEP_OUTPUT_CHARS);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  let receiver: PrometheusReceiver | undefined;

  const stop = async (): Promise<void> => {
    if (receiver !== undefined) running.delete(receiver);
    if (alive()) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await until(START_TIMEOUT_MS, async () => {
      if (!alive()) throw new Error(`prometheus exited with ${child.exitCode ?? child.signalCode}:\n${out}`);
      try {
        const res = await fetch(`${base}/-/ready`, { signal: AbortSignal.timeout(2000) });
        await res.arrayBuffer();
        return res.status === 200;
      } catch {
        return false;
      }
    }, () => `prometheus not ready:\n${out}`);
  } catch (err) {
    await stop();
    throw err;
  }

  receiver = {
    base,
    dataDir,
    async write(series) {
      const a = await postWrite(base, series);
      if (a.status !== 204) throw new Error(`Prometheus answered the remote write ${a.status}: ${a.text}\n${out}`);
    },
    async settled() {
      await until(SETTLE_TIMEOUT_MS, async () => {
        const res = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(10_000) });
        const text = await res.text();
        const min = metricValue(text, 'prometheus_tsdb_head_min_time');
        const max = metricValue(text, 'prometheus_tsdb_head_max_time');
        if (min === undefined || max === undefined) throw new Error(`/metrics has no prometheus_tsdb_head_min_time/max_time:\n${text.slice(0, 500)}`);
        // Head.compactable() in 2.42; an empty head reports min > max. Its
        // compaction writes the block before it truncates the head, so
        // once this holds every block is in place.
        return max - min <= (BLOCK_RANGE_MS / 2) * 3;
      }, () => `Prometheus' head still spans more than 3 h:\n${out}`);
    },
    output: () => out,
    stop,
  };
  running.add(receiver);
  return receiver;
}

/** A configuration without scrape targets; external labels as Go-quoted YAML strings. */
function configYaml(externalLabels: Record<string, string>): string {
  const pairs = Object.entries(externalLabels);
  const ext = pairs.length === 0 ? '' : `  external_labels:\n${pairs.map(([n, v]) => `    ${n}: ${JSON.stringify(v)}\n`).join('')}`;
  return `global:\n  scrape_interval: 1h\n${ext}scrape_configs: []\n`;
}

async function until(timeoutMs: number, probe: () => Promise<boolean>, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`not done in ${timeoutMs} ms: ${describe()}`);
    await sleep(50);
  }
}
