/**
 * Builds the JSON report (schema.ts) from what the recorders measured, and
 * writes it and the HTML page where the flags say.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { StopReason } from '../run/stop.js';
import type { LatencyHistogram } from '../run/latency-histogram.js';
import type { Recorder } from '../run/recorder.js';
import { renderHtml } from './html.js';
import { SCHEMA_ID, type BenchReport, type Latency, type RunReport } from './schema.js';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;
const orNull = (x: number): number | null => (Number.isFinite(x) ? round(x) : null);

export function latencyJson(h: LatencyHistogram): Latency {
  return {
    count: h.count,
    mean: orNull(h.mean()),
    p50: orNull(h.quantile(0.5)),
    p90: orNull(h.quantile(0.9)),
    p99: orNull(h.quantile(0.99)),
    p999: orNull(h.quantile(0.999)),
    max: orNull(h.count === 0 ? NaN : h.max),
  };
}

/** A run's common part from its recorder (the caller adds load, calls or server). */
export function runJson(name: string, target: string, unit: RunReport['unit'], r: Recorder, stoppedBy: StopReason | 'error'): RunReport {
  const seconds = Math.max(1e-3, (r.last - r.t0) / 1000);
  return {
    name,
    target,
    stoppedBy,
    interrupted: stoppedBy === 'interrupt',
    seconds: round(seconds),
    unit,
    totals: { requests: r.requests, items: r.items, histograms: r.histograms, frames: r.frames, bytes: r.bytes },
    rates: {
      requestsPerSecond: round(r.requests / seconds),
      itemsPerSecond: round(r.items / seconds),
      framesPerSecond: round(r.frames / seconds),
      bytesPerSecond: round(r.bytes / seconds),
    },
    latencyMs: latencyJson(r.latency),
    answers: r.answers.toJson(),
    timelineBucketSeconds: r.bucketMs / 1000,
    timeline: r.timeline,
  };
}

export function reportJson(mode: BenchReport['mode'], command: string[], startedAt: Date, runs: RunReport[], notes: string[] = []): BenchReport {
  return {
    schema: SCHEMA_ID,
    mode,
    strataVersion: pkg.version,
    startedAt: startedAt.toISOString(),
    command,
    machine: {
      cores: cpus().length,
      cpu: cpus()[0]?.model.trim() ?? 'unknown',
      node: process.version,
      loadAverage: loadavg().map((x) => round(x, 2)),
    },
    runs,
    notes,
  };
}

/** Writes --json (a file, or stdout for "-") and --report, as asked. */
export function writeReports(report: BenchReport, files: { json?: string; report?: string }): string[] {
  const written: string[] = [];
  if (files.json !== undefined) {
    const text = `${JSON.stringify(report, null, 2)}\n`;
    if (files.json === '-') process.stdout.write(text);
    else {
      writeFileSync(files.json, text);
      written.push(files.json);
    }
  }
  if (files.report !== undefined) {
    writeFileSync(files.report, renderHtml(report));
    written.push(files.report);
  }
  return written;
}
