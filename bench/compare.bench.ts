// npm run bench:compare — `strata bench compare` (src/bench/compare/) with
// this repository's settings: the same Prometheus remote-write load against
// Strata, VictoriaMetrics and Prometheus (remote-write receiver), one after
// another on this machine, then the same remote reads against Strata and
// Prometheus; prints and writes the dated markdown section at the top of
// bench/RESULTS.md, issue 14's targets side by side in it (ratios of
// Strata to each peer, met or not met; src/bench/compare/targets.ts). See
// `strata bench compare --help` for the method.
//
// Env (kept from before the command existed): BENCH_SERIES (100000),
// BENCH_SAMPLES (120), BENCH_PER_REQUEST (2000), BENCH_IN_FLIGHT (4),
// BENCH_PEERS (strata,victoriametrics,prometheus), BENCH_WRITE_RESULTS (1; 0
// leaves bench/RESULTS.md alone), BENCH_READ_SECONDS (20), BENCH_QUIET_WAIT
// (120), BENCH_ATTEMPTS (3); BENCH_ARGS: more flags for the command.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchCompare } from '../src/bench/compare/command.js';
import { parseCompareArgs } from '../src/bench/compare/options.js';

const root = new URL('..', import.meta.url).pathname;
const env = (name: string, fallback: string): string => process.env[name] ?? fallback;

const scratch = mkdtempSync(join(tmpdir(), 'strata-bench-compare-md-'));
const markdown = join(scratch, 'section.md');
const args = [
  'compare',
  '--series', env('BENCH_SERIES', '100000'),
  '--samples-per-series', env('BENCH_SAMPLES', '120'),
  '--series-per-request', env('BENCH_PER_REQUEST', '2000'),
  '--concurrency', env('BENCH_IN_FLIGHT', '4'),
  '--peers', env('BENCH_PEERS', 'strata,victoriametrics,prometheus'),
  '--reads', `${env('BENCH_READ_SECONDS', '20')}s`,
  '--quiet-wait', `${env('BENCH_QUIET_WAIT', '120')}s`,
  '--attempts', env('BENCH_ATTEMPTS', '3'),
  ...(process.env.BENCH_ARGS ?? '').split(' ').filter((a) => a !== ''),
];

function writeResults(section: string): void {
  const path = join(root, 'bench/RESULTS.md');
  const current = readFileSync(path, 'utf8');
  const firstSection = current.indexOf('\n## ');
  const next = firstSection < 0 ? `${current.trimEnd()}\n\n${section}` : `${current.slice(0, firstSection + 1)}${section}\n${current.slice(firstSection + 1)}`;
  writeFileSync(path, next);
}

try {
  const config = parseCompareArgs([...args.slice(1), '--markdown', markdown]);
  if (config === 'help') throw new Error('unexpected --help');
  const code = await benchCompare(config, args, 'npm run bench:compare');
  if (code === 0 && process.env.BENCH_WRITE_RESULTS !== '0') {
    writeResults(readFileSync(markdown, 'utf8'));
    console.error('written to bench/RESULTS.md');
  }
  process.exitCode = code;
} catch (err) {
  console.error(`bench:compare: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
