/**
 * The summary table printed at the end of a run (and of each server in a
 * comparison): totals and rates, latency percentiles, answers by class and
 * code with the first message of each error code.
 */
import type { BenchReport, CallStats, Responsiveness, RunReport } from './schema.js';
import { fmt, mib, ms } from '../run/format.js';

const STOPPED: Record<RunReport['stoppedBy'], string> = {
  duration: 'the duration ran out',
  'load-sent': 'the whole load was sent',
  requests: 'the requested number of calls was made',
  interrupt: 'interrupted (Ctrl-C): partial results',
  error: 'an error',
};

/** Rows of cells as a text table, columns padded (first left-aligned, the rest right-aligned). */
export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => { widths[i] = Math.max(widths[i] ?? 0, c.length); });
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('   ').trimEnd()).join('\n');
}

function latencyCells(l: { p50: number | null; p90: number | null; p99: number | null; max: number | null }): string[] {
  return [ms(l.p50 ?? NaN), ms(l.p90 ?? NaN), ms(l.p99 ?? NaN), ms(l.max ?? NaN)];
}

/** The responsiveness part: readiness probes and event-loop delay during the load. */
export function responsivenessLines(x: Responsiveness): string[] {
  const rows: string[][] = [['during the load', 'count', 'failed', 'p50 ms', 'p99 ms', 'max ms']];
  const ready = x.readiness;
  if (ready !== null) {
    const codes = Object.entries(ready.byCode).map(([c, n]) => `${c} ${fmt(n)}`).join(', ');
    rows.push([`readiness GET every ${fmt(ready.intervalMs)} ms`, fmt(ready.probes), `${fmt(ready.failures)}${codes === '' ? '' : ` (${codes})`}`, ms(ready.latencyMs.p50 ?? NaN), ms(ready.latencyMs.p99 ?? NaN), ms(ready.latencyMs.max ?? NaN)]);
  }
  const loop = x.serverEventLoop;
  if (loop !== null) rows.push([`server event-loop delay (${loop.family}_*)`, '', '', ms(loop.p50Ms ?? NaN), ms(loop.p99Ms ?? NaN), ms(loop.maxMs ?? NaN)]);
  const probe = x.probeEventLoop;
  if (probe !== null) rows.push(['probe thread event-loop delay (this process)', '', '', ms(probe.p50Ms ?? NaN), ms(probe.p99Ms ?? NaN), ms(probe.maxMs ?? NaN)]);
  const lines = [table(rows)];
  if (ready !== null && ready.probes > 0) lines.push(`readiness answers slower than ${fmt(ready.slowMs)} ms: ${fmt(ready.slow)} of ${fmt(ready.probes)}`);
  if (loop !== null || probe !== null) lines.push('event-loop delay: intervals of a 10 ms timer (perf_hooks.monitorEventLoopDelay, as prom-client), so about 10 ms when idle');
  for (const n of x.notes) lines.push(n);
  return lines;
}

export function runSummary(r: RunReport): string {
  const lines: string[] = [];
  // 'load-sent' means every request was tried; when none succeeded, say that instead.
  const stopped = r.stoppedBy === 'load-sent' && r.answers.ok === 0 ? 'every request was tried and none succeeded' : STOPPED[r.stoppedBy];
  lines.push(`${r.name} (${r.target}): ${fmt(r.seconds, 3)} s, stopped because ${stopped}`);
  const rows: string[][] = [['', 'total', 'per second']];
  rows.push(['requests', fmt(r.totals.requests), fmt(r.rates.requestsPerSecond, 1)]);
  rows.push([r.unit === 'samples' ? 'samples written' : 'series received', fmt(r.totals.items), fmt(r.rates.itemsPerSecond)]);
  if (r.totals.histograms > 0) rows.push(['  of which histograms', fmt(r.totals.histograms), '']);
  if (r.unit === 'series') rows.push(['frames received', fmt(r.totals.frames), fmt(r.rates.framesPerSecond)]);
  rows.push([r.unit === 'samples' ? 'bytes sent' : 'bytes received', mib(r.totals.bytes), `${mib(r.rates.bytesPerSecond)}/s`]);
  lines.push(table(rows));
  lines.push('');
  const lat: string[][] = [['latency ms', 'p50', 'p90', 'p99', 'max']];
  lat.push(['all requests', ...latencyCells(r.latencyMs)]);
  for (const [name, c] of Object.entries(r.calls ?? {}) as Array<[string, CallStats]>) lat.push([name, ...latencyCells(c.latencyMs)]);
  lines.push(table(lat));
  if (r.calls !== undefined) {
    lines.push('');
    const calls: string[][] = [['call', 'requests', 'errors', 'series', 'chunks', 'names/values', 'frames', 'bytes']];
    for (const [name, c] of Object.entries(r.calls)) calls.push([name, fmt(c.requests), fmt(c.errors), fmt(c.series), fmt(c.chunks), fmt(c.values), fmt(c.frames), mib(c.bytes)]);
    lines.push(table(calls));
  }
  if (r.responsiveness !== undefined) {
    lines.push('');
    lines.push(...responsivenessLines(r.responsiveness));
  }
  const a = r.answers;
  // Remote write over gRPC (a grpc:// target) is answered by gRPC status, as the Store API is.
  const http = r.unit === 'samples' && !/^grpcs?:/.test(r.target);
  const classes = [`${http ? '2xx' : 'OK'} ${fmt(a.ok)}`];
  if (http) classes.push(`4xx ${fmt(a.classes['4xx'])}`, `429 ${fmt(a.classes['429'])} (resent ${fmt(a.retries)})`, `5xx ${fmt(a.classes['5xx'])}`);
  else classes.push(`gRPC errors ${fmt(a.classes.grpc)}${r.unit === 'samples' ? ` (RESOURCE_EXHAUSTED resent ${fmt(a.retries)})` : ''}`);
  // An HTTP status from a gRPC target: not a gRPC server at that address (or a proxy's answer).
  if (!http && a.classes['4xx'] + a.classes['5xx'] + a.classes['429'] > 0) classes.push(`HTTP errors ${fmt(a.classes['4xx'] + a.classes['5xx'] + a.classes['429'])}`);
  classes.push(`network ${fmt(a.classes.network)}`);
  if (a.classes.aborted > 0) classes.push(`aborted at the end ${fmt(a.classes.aborted)}`);
  lines.push('');
  lines.push(`answers: ${classes.join(', ')}`);
  const codes = Object.entries(a.byCode);
  if (codes.length > 0) {
    lines.push(`by code: ${codes.map(([c, n]) => `${c} ${fmt(n)}`).join(', ')}`);
    for (const [c, text] of Object.entries(a.examples)) lines.push(`  ${c}: ${text.replace(/\s+/g, ' ').slice(0, 200)}`);
  }
  return lines.join('\n');
}

export function reportSummary(report: BenchReport): string {
  const parts = report.runs.map(runSummary);
  if (report.notes.length > 0) parts.push(report.notes.map((n) => `note: ${n}`).join('\n'));
  return parts.join('\n\n');
}
