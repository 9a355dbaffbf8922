/**
 * Makes real Prometheus blocks for tests and benchmarks: writes series as an
 * OpenMetrics file and runs `promtool tsdb create-blocks-from openmetrics`
 * on it. Timestamps are whole or half seconds so that promtool's
 * `int64(seconds * 1000)` gives back exactly the milliseconds asked for.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A series to write: labels as [name, value, ...] sorted by name, `__name__` first among them. */
export interface OmSeries {
  labels: string[];
  /** Milliseconds, multiples of 500, increasing. */
  timestamps: number[];
  values: number[];
}

/** Whether promtool can be run (it is looked up on the PATH). */
export function havePromtool(): boolean {
  const r = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  return r.error === undefined && r.status === 0;
}

/** OpenMetrics text of a float64 that Go's strconv.ParseFloat reads back exactly. */
export function omValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Object.is(v, -0)) return '-0';
  return String(v);
}

function omLabelValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function omSeconds(ms: number): string {
  if (ms % 500 !== 0) throw new Error(`timestamp ${ms} is not a multiple of 500 ms`);
  const s = ms / 1000;
  return Number.isInteger(s) ? String(s) : s.toFixed(1);
}

/**
 * OpenMetrics text of `series` (every metric typed gauge). Series of one
 * metric name must be adjacent in `series`: a family is written once.
 */
export function openMetricsText(series: readonly OmSeries[]): string {
  const lines: string[] = [];
  const families = new Set<string>();
  let family = '';
  for (const s of series) {
    if (s.labels[0] !== '__name__') throw new Error('labels must start with __name__');
    const name = s.labels[1]!;
    if (name !== family) {
      if (families.has(name)) throw new Error(`metric ${name} is not contiguous`);
      families.add(name);
      family = name;
      lines.push(`# TYPE ${name} gauge`);
    }
    const pairs: string[] = [];
    for (let i = 2; i < s.labels.length; i += 2) pairs.push(`${s.labels[i]}="${omLabelValue(s.labels[i + 1]!)}"`);
    const head = pairs.length > 0 ? `${name}{${pairs.join(',')}}` : name;
    for (let i = 0; i < s.timestamps.length; i++) lines.push(`${head} ${omValue(s.values[i]!)} ${omSeconds(s.timestamps[i]!)}`);
  }
  lines.push('# EOF', '');
  return lines.join('\n');
}

/** Writes `series` to `workDir/input.om` and has promtool turn it into blocks under `outDir`. */
export function promtoolCreateBlocks(series: readonly OmSeries[], workDir: string, outDir: string): void {
  const input = join(workDir, 'input.om');
  writeFileSync(input, openMetricsText(series));
  const r = spawnSync('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', input, outDir], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error !== undefined || r.status !== 0) {
    throw new Error(`promtool failed (${r.status}): ${r.error?.message ?? ''}\n${r.stderr}\n${r.stdout}`);
  }
}

export { rng as prng } from '../support/series.js';
