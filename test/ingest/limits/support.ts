/**
 * Helpers of the write-limit tests: requests of a given shape, /metrics
 * values by labels, the limits file, and bounded waits.
 */
import assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { call } from '../../http/support/http-client.js';
import { bitsOf, samples, type Series } from '../../http/prometheus/support/prom-wire.js';
import { encodeWriteRequest, samplesOf, type WriteSeries } from '../../store/support/write-request.js';

/** Sample times: a fixed day, so that every run writes the same requests. */
export const T0 = 1_700_000_000_000;

/** `n` series `{__name__=metric, i="k"}` with `per` samples each, one a second from `t0`. */
export function seriesOf(metric: string, n: number, per: number, t0 = T0): Series[] {
  return Array.from({ length: n }, (_, k) => ({
    labels: [['__name__', metric], ['i', String(k)]] as const,
    samples: samples(per, t0, 1000, (j) => bitsOf(k * 1000 + j)),
  }));
}

/** The same as thanos.WriteRequest bytes for gRPC RemoteWrite. */
export function grpcWrite(metric: string, n: number, per: number, opts: { tenant?: string; t0?: number; pad?: string } = {}): Buffer {
  const timeseries: WriteSeries[] = Array.from({ length: n }, (_, k) => ({
    labels: [['__name__', metric], ['i', String(k)], ...(opts.pad === undefined ? [] : [['pad', opts.pad] as const])],
    samples: samplesOf(per, BigInt(opts.t0 ?? T0), 1000n, (j) => k * 1000 + j),
  }));
  return encodeWriteRequest(opts.tenant === undefined ? { timeseries } : { timeseries, tenant: opts.tenant });
}

/** A label value of `n` random characters: snappy, which only finds repeats, cannot shrink it. */
export function noise(n: number): string {
  let s = '';
  while (s.length < n) s += Math.random().toString(36).slice(2);
  return s.slice(0, n);
}

/** One exposition's samples: name, labels, value. */
export interface MetricLine {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export async function scrape(base: string): Promise<MetricLine[]> {
  const a = await call(base, 'GET', '/metrics');
  assert.equal(a.status, 200);
  const out: MetricLine[] = [];
  for (const line of a.text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of `name` whose labels include `labels` (0 when there is none, as a counter not yet born). */
export function metric(lines: readonly MetricLine[], name: string, labels: Record<string, string> = {}): number {
  const hit = lines.find((l) => l.name === name && Object.entries(labels).every(([k, v]) => l.labels[k] === v));
  return hit?.value ?? 0;
}

/** Whether `name` with exactly these labels is listed. */
export function listed(lines: readonly MetricLine[], name: string, labels: Record<string, string>): boolean {
  return lines.some((l) => l.name === name && Object.entries(labels).every(([k, v]) => l.labels[k] === v));
}

/** Samples the engine stored so far. */
export async function ingested(base: string): Promise<number> {
  return metric(await scrape(base), 'strata_samples_ingested_total');
}

/**
 * Writes the limits file whole, as an editor's rename or a ConfigMap's swap
 * puts it in place: a poll never reads it half written.
 */
export function writeLimits(dir: string, yaml: string, name = 'limits.yaml'): string {
  const path = join(dir, name);
  writeFileSync(`${path}.tmp`, yaml);
  renameSync(`${path}.tmp`, path);
  return path;
}

/** Polls `check` every 50 ms until it returns true; fails after `timeoutMs` with `what`. */
export async function waitFor(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** How many log lines carry message `msg`. */
export function logLines(stderr: string, msg: string): Array<Record<string, unknown>> {
  return stderr.split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).map((l) => JSON.parse(l) as Record<string, unknown>);
}
