/**
 * The flags every `strata bench` mode takes, and the checks of numeric
 * flags; every mistake is a UsageError (one line, exit status 2).
 */
import { UsageError } from '../../config/usage-error.js';
import { parseDuration } from '../../config/duration-flag.js';

/** node:util parseArgs options shared by the modes. */
export const commonOptions = {
  // No default here: whether --duration was given decides the size of some loads (parseCommon).
  duration: { type: 'string' },
  concurrency: { type: 'string', default: '4' },
  json: { type: 'string' },
  report: { type: 'string' },
  'progress-interval': { type: 'string', default: '5s' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** Help lines of the shared flags. */
export const commonHelp = `  --duration D           how long to send load, Go-style (30s, 5m, 1h30m); the run also stops
                         when its count is reached (default 30s)
  --concurrency N        requests in flight at once (default 4)
  --json FILE            write the results as JSON (docs/format/bench-json.md); - for stdout
  --report FILE.html     write a self-contained HTML page with charts of throughput,
                         latency percentiles over time and the error breakdown
  --progress-interval D  how often a progress line is printed when stderr is not a
                         terminal (default 5s; on a terminal the line updates in place)
  -h, --help             print this help`;

/** The longest run accepted: a week (every loop must be bounded in time). */
const MAX_DURATION_MS = 7 * 24 * 3_600_000;
/** Most requests in flight: sockets and memory stay bounded. */
const MAX_CONCURRENCY = 10_000;

/** --duration when not given. */
const DEFAULT_DURATION = '30s';

export interface CommonConfig {
  durationMs: number;
  /** Whether --duration was given (rather than its default). */
  durationGiven: boolean;
  concurrency: number;
  json?: string;
  report?: string;
  progressIntervalMs: number;
}

/** A whole number in [min, max] from `--flag value`. */
export function intFlag(flag: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`--${flag}: '${value}' is not a whole number`);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`--${flag}: ${value} is not between ${min} and ${max}`);
  return n;
}

/** A number in [min, max] from `--flag value`. */
export function numberFlag(flag: string, value: string, min: number, max: number): number {
  const n = value.trim() === '' ? NaN : Number(value);
  if (!Number.isFinite(n)) throw new UsageError(`--${flag}: '${value}' is not a number`);
  if (n < min || n > max) throw new UsageError(`--${flag}: ${value} is not between ${min} and ${max}`);
  return n;
}

/** A duration flag that must be positive and at most a week. */
export function positiveDuration(flag: string, value: string): number {
  const ms = parseDuration(flag, value);
  if (ms <= 0) throw new UsageError(`--${flag}: must be longer than 0`);
  if (ms > MAX_DURATION_MS) throw new UsageError(`--${flag}: '${value}' is longer than a week`);
  return ms;
}

export function parseCommon(v: { duration?: string | undefined; concurrency: string; json?: string; report?: string; 'progress-interval': string }): CommonConfig {
  const out: CommonConfig = {
    durationMs: positiveDuration('duration', v.duration ?? DEFAULT_DURATION),
    durationGiven: v.duration !== undefined,
    concurrency: intFlag('concurrency', v.concurrency, 1, MAX_CONCURRENCY),
    progressIntervalMs: positiveDuration('progress-interval', v['progress-interval']),
  };
  if (v.json !== undefined) {
    if (v.json === '') throw new UsageError('--json: needs a file name (or - for stdout)');
    out.json = v.json;
  }
  if (v.report !== undefined) {
    if (v.report === '' || v.report === '-') throw new UsageError('--report: needs a file name, such as report.html');
    out.report = v.report;
  }
  return out;
}

/** Fails unless no positional arguments were given. */
export function noPositionals(mode: string, positionals: string[]): void {
  if (positionals.length > 0) throw new UsageError(`bench ${mode}: unexpected argument '${positionals[0]}'`);
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A time flag (ms since the epoch): RFC 3339 (2026-11-24T10:00:00Z), Unix
 * seconds (1764000000), `now`, or `now-1h30m` (a duration back from `now`).
 */
export function timeFlag(flag: string, value: string, now = Date.now()): number {
  if (value === 'now') return now;
  if (value.startsWith('now-')) {
    const back = parseDuration(flag, value.slice(4));
    return now - back;
  }
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  if (RFC3339.test(value)) {
    const ms = Date.parse(value);
    if (Number.isFinite(ms)) return ms;
  }
  throw new UsageError(`--${flag}: '${value}' is not a time such as 2026-11-24T10:00:00Z, 1764000000, now or now-1h`);
}
