/**
 * A Node.js server's event-loop delay, read from its /metrics in the
 * Prometheus text format: prom-client's default gauges
 * nodejs_eventloop_lag_{min,max,mean,p50,p90,p99}_seconds, under whatever
 * prefix the server gives them (Strata: strata_nodejs_eventloop_lag_*).
 *
 * prom-client fills them from perf_hooks.monitorEventLoopDelay and resets
 * that histogram at every scrape (since prom-client 14), so one scrape
 * tells the delay since the previous one: scraping right before and right
 * after the load gives the load's window (unless something else scraped
 * the server meanwhile). Each value is an interval between two firings of
 * the monitor's timer (resolution 10 ms by default), so an idle loop shows
 * about 10 ms and a stall of 40 ms shows about 40 ms.
 */
import type { EventLoopDelay } from '../report/schema.js';

const PARTS = ['min', 'mean', 'p50', 'p90', 'p99', 'max'] as const;
type Part = (typeof PARTS)[number];

/** `{prefix}nodejs_eventloop_lag_{part}_seconds{labels} value` (an optional timestamp after). */
const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*?)?nodejs_eventloop_lag_(min|max|mean|stddev|p50|p90|p99)_seconds(?:\{[^}]*\})?\s+(\S+)/;

export interface EventLoopReading {
  /** The family name before `_{part}_seconds`, e.g. "strata_nodejs_eventloop_lag". */
  family: string;
  delay: EventLoopDelay;
}

const toMs = (seconds: number | undefined): number | null => (seconds === undefined || !Number.isFinite(seconds) ? null : Math.round(seconds * 1e6) / 1e3);

/**
 * The event-loop figures in an exposition, in ms (all null when the window
 * held no sample); undefined when it has no nodejs_eventloop_lag_p99_seconds. With several prefixes or label sets,
 * the first p99 line's prefix is read, and its first line of each part.
 */
export function parseEventLoop(exposition: string): EventLoopReading | undefined {
  let prefix: string | undefined;
  const seen = new Map<Part, number>();
  const lines: Array<[string, string, number]> = [];
  for (const line of exposition.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (m === null) continue;
    const p = m[1] ?? '';
    lines.push([p, m[2]!, Number(m[3])]);
    if (prefix === undefined && m[2] === 'p99') prefix = p;
  }
  if (prefix === undefined) return undefined;
  for (const [p, part, value] of lines) {
    if (p === prefix && (PARTS as readonly string[]).includes(part) && !seen.has(part as Part)) seen.set(part as Part, value);
  }
  // No timer firing since the previous scrape: prom-client then shows a NaN mean and an unset min (2^63 ns).
  const empty = !Number.isFinite(seen.get('mean') ?? NaN);
  const delay = Object.fromEntries(PARTS.map((part) => [`${part}Ms`, empty ? null : toMs(seen.get(part))])) as EventLoopDelay;
  return { family: `${prefix}nodejs_eventloop_lag`, delay };
}

/** A perf_hooks histogram's figures in ms (the same parts as the gauges). */
export function delayOf(h: { min: number; mean: number; max: number; count?: number; percentile(p: number): number }): EventLoopDelay {
  const empty = h.count === 0 || !Number.isFinite(h.mean);
  const ms = (ns: number): number | null => (empty || !Number.isFinite(ns) ? null : Math.round(ns / 1e3) / 1e3);
  return { minMs: ms(h.min), meanMs: ms(h.mean), p50Ms: ms(h.percentile(50)), p90Ms: ms(h.percentile(90)), p99Ms: ms(h.percentile(99)), maxMs: ms(h.max) };
}
