/**
 * Helpers for the end-to-end tests of Strata's blocks (blocks-promtool,
 * blocks-reads): `strata serve` on free 127.0.0.1 ports with both
 * addresses known, remote writes of many series in time order, bounded
 * waits for blocks to appear, and meta.json as found on disk.
 *
 * Everything here waits a bounded time and throws with the server's log on
 * a timeout.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { postWrite, type Sample, type Series } from '../../http/prometheus/support/prom-wire.js';
import { portOf, spawnServe, type ServeProcess } from '../../support/serve-process.js';

export interface Served {
  readonly proc: ServeProcess;
  /** http://127.0.0.1:PORT */
  readonly base: string;
  /** 127.0.0.1:PORT of the Store API. */
  readonly grpcAddress: string;
  readonly dataDir: string;
  /** The parsed "storage recovered" line of this start. */
  readonly recovered: Record<string, unknown>;
}

/** Starts `strata serve` on `dataDir` with `args` and waits for "strata started". */
export async function serveStrata(dataDir: string, args: string[] = []): Promise<Served> {
  const proc = spawnServe({ dataDir, args });
  try {
    const started = await proc.line('strata started');
    const recovered = await proc.line('storage recovered', 1000);
    return {
      proc,
      base: `http://127.0.0.1:${portOf(started.httpAddress)}`,
      grpcAddress: `127.0.0.1:${portOf(started.grpcAddress)}`,
      dataDir,
      recovered,
    };
  } catch (err) {
    await proc.kill9();
    throw err;
  }
}

/** Every log line of `proc` whose msg is `msg`, parsed, in order. */
export function logLines(proc: ServeProcess, msg: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const line of proc.stderr().split('\n')) {
    if (!line.includes(`"msg":"${msg}"`)) continue;
    out.push(JSON.parse(line) as Record<string, unknown>);
  }
  return out;
}

/** Polls `probe` every `everyMs` until it returns something other than undefined; throws `describe()` after `timeoutMs`. */
export async function waitFor<T>(timeoutMs: number, probe: () => T | undefined | Promise<T | undefined>, describe: () => string, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not done in ${timeoutMs} ms: ${describe()}`);
    await sleep(everyMs);
  }
}

/** meta.json as found on disk (the fields these tests look at). */
export interface DiskMeta {
  ulid: string;
  minTime: number;
  maxTime: number;
  stats: { numSamples: number; numSeries: number; numChunks: number };
  compaction: { level: number; sources?: string[]; parents?: unknown[] };
  thanos?: {
    version?: number;
    labels: Record<string, string>;
    downsample: { resolution: number };
    source: string;
    files?: Array<{ rel_path: string; size_bytes?: number }>;
    index_stats?: Record<string, number>;
  };
}

const ULID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/** The complete blocks of `blocksDir` (ULID-named dirs with a meta.json), by minTime. */
export function diskBlocks(blocksDir: string): DiskMeta[] {
  if (!existsSync(blocksDir)) return [];
  const out: DiskMeta[] = [];
  for (const name of readdirSync(blocksDir)) {
    if (!ULID.test(name)) continue;
    try {
      out.push(JSON.parse(readFileSync(join(blocksDir, name, 'meta.json'), 'utf8')) as DiskMeta);
    } catch {
      // A block being deleted between readdir and read: not there.
    }
  }
  return out.sort((a, b) => a.minTime - b.minTime);
}

/** Whether the blocks' ranges together cover [from, to) without a gap. */
export function covers(metas: readonly DiskMeta[], from: number, to: number): boolean {
  let at = from;
  for (const m of metas) {
    if (m.minTime > at) return false;
    if (m.maxTime > at) at = m.maxTime;
    if (at >= to) return true;
  }
  return at >= to;
}

/** Labels in byte order of their names, as remote write wants them. */
export function sortedLabels(pairs: Record<string, string>): Array<[string, string]> {
  return Object.entries(pairs).sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/**
 * Remote-writes `series` over HTTP in requests of increasing time: request
 * k holds every sample in [from + k * windowMs, from + (k + 1) * windowMs),
 * so the store's newest time only moves forward. Every answer must be 2xx.
 * Returns the number of requests sent.
 */
export async function writeInTimeOrder(base: string, series: readonly Series[], from: number, to: number, windowMs: number): Promise<number> {
  const next = series.map(() => 0);
  let requests = 0;
  for (let t = from; t < to; t += windowMs) {
    const end = t + windowMs;
    const batch: Series[] = [];
    series.forEach((s, k) => {
      let i = next[k]!;
      const start = i;
      while (i < s.samples.length && s.samples[i]!.t < end) i++;
      next[k] = i;
      if (i > start) batch.push({ labels: s.labels, samples: s.samples.slice(start, i) });
    });
    if (batch.length === 0) continue;
    const answer = await postWrite(base, batch);
    assert.ok(answer.status >= 200 && answer.status < 300, `remote write of [${t}, ${end}): ${answer.status} ${answer.text}`);
    requests++;
  }
  series.forEach((s, k) => assert.equal(next[k], s.samples.length, `samples of series ${k} outside [${from}, ${to})`));
  return requests;
}

/** Samples of `s` in [min, max]. */
export function samplesIn(s: { samples: readonly Sample[] }, min: number, max: number): Sample[] {
  return s.samples.filter((x) => x.t >= min && x.t <= max);
}

/** The float64 of raw bits (for arithmetic; a NaN's payload may not survive). */
export function floatOf(bits: bigint): number {
  return new Float64Array(BigUint64Array.of(bits).buffer)[0]!;
}
