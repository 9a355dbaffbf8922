// npm run bench:restart — how long `strata serve` takes to come back with
// many active series: after a clean stop (SIGTERM) and after a crash
// (kill -9). Issue 29's target: ready and answering reads in under 2 s
// after SIGTERM, under 4 s after kill -9, with 1M series.
//
// For each stop mode, on a new temporary data directory:
// 1. start the server, load SERIES series x SAMPLES samples with
//    `strata bench remote-write` (ending about now), then stop it that way
//    (SIGTERM: the time the stop took is printed too);
// 2. RUNS times: spawn the server on that directory and time spawn ->
//    /-/ready 200, then -> GET /api/v1/labels answered 200 with the load's
//    label names; take RSS; read "storage recovered" ms from its log; stop
//    it the same way again (so that every run starts from the same kind of
//    directory: a clean stop's checkpoint, or a crash's WAL).
// The best of RUNS is what to quote (the machine may be shared): every run
// is printed.
//
// 127.0.0.1 only; every wait is bounded; every child is stopped on exit.
// Env: BENCH_SERIES (1000000), BENCH_SAMPLES (6), BENCH_RUNS (3),
// BENCH_STOPS (term,kill: the modes to run), BENCH_NODE_ARGS (extra node
// flags for the server after bin/strata.js' own, e.g. --cpu-prof
// --cpu-prof-dir=DIR), BENCH_SERVE_ARGS (extra `strata serve` flags, e.g.
// --tsdb.memory-snapshot-on-shutdown=false for the restart without a head snapshot),
// BENCH_KEEP (1: keep the data directories, printed), BENCH_STRATA_ROOT
// (the build to run: a directory with bin/strata.js and dist/; default
// this checkout). To keep a build: copy bin/, dist/, build/, proto/,
// package.json and native/mmap/build/ into a directory, and link
// node_modules there.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, startChild, stopAll, type Child } from './compare/processes.js';
import { rssSplit } from './compare/proc.js';
import { SERVER_NODE_FLAGS } from '../src/config/node-flags.js';

const root = new URL('..', import.meta.url).pathname;
// Another build of Strata (a directory holding bin/ and dist/) can be
// measured instead of this one's: a before/after pair, or a build kept
// still while this checkout is rebuilt.
const strataRoot = process.env.BENCH_STRATA_ROOT ?? root;
const bin = join(strataRoot, 'bin', 'strata.js');

function envNumber(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`bench:restart: ${name}=${v} is not a positive integer`);
  return n;
}

const SERIES = envNumber('BENCH_SERIES', 1_000_000);
const SAMPLES = envNumber('BENCH_SAMPLES', 6);
const RUNS = envNumber('BENCH_RUNS', 3);
const STOPS = (process.env.BENCH_STOPS ?? 'term,kill').split(',').map((s) => s.trim()).filter((s) => s !== '');
for (const s of STOPS) if (s !== 'term' && s !== 'kill') throw new Error(`bench:restart: BENCH_STOPS takes term and kill, got ${s}`);
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((s) => s !== '');
const SERVE_ARGS = (process.env.BENCH_SERVE_ARGS ?? '').split(' ').filter((s) => s !== '');
const KEEP = process.env.BENCH_KEEP === '1';

/** Generous bounds, so that a hung server ends the run instead of the machine's patience. */
const READY_TIMEOUT_MS = 300_000;
const LOAD_TIMEOUT_MS = 900_000;
const STOP_GRACE_MS = 120_000;
const POLL_MS = 20;

interface Server {
  child: Child;
  base: string;
  spawnedAt: number;
}

async function spawnServer(dataDir: string): Promise<Server> {
  const http = await freePort();
  const grpc = await freePort();
  const args = [...SERVER_NODE_FLAGS, ...NODE_ARGS, bin, 'serve', '--data-dir', dataDir, '--http-address', `127.0.0.1:${http}`, '--grpc-address', `127.0.0.1:${grpc}`, ...SERVE_ARGS];
  const spawnedAt = performance.now();
  const child = startChild('strata', process.execPath, args, { cwd: root });
  return { child, base: `http://127.0.0.1:${http}`, spawnedAt };
}

/** Polls `path` until it answers 200 (body returned), the server exits, or the timeout. */
async function until200(s: Server, path: string): Promise<string> {
  const deadline = performance.now() + READY_TIMEOUT_MS;
  let last = 'no answer';
  while (performance.now() < deadline) {
    if (s.child.process.exitCode !== null || s.child.process.signalCode !== null) throw new Error(`the server exited before ${path} answered:\n${s.child.output()}`);
    try {
      const res = await fetch(s.base + path, { signal: AbortSignal.timeout(READY_TIMEOUT_MS) });
      const body = await res.text();
      if (res.status === 200) return body;
      last = `status ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(POLL_MS);
  }
  throw new Error(`${path} did not answer 200 within ${READY_TIMEOUT_MS} ms (${last}):\n${s.child.output()}`);
}

/** Stops the server by `mode`; resolves with the seconds the exit took. */
async function stopServer(s: Server, mode: string): Promise<number> {
  const t0 = performance.now();
  if (mode === 'kill') {
    const exited = new Promise((resolve) => s.child.process.once('exit', resolve));
    if (s.child.process.exitCode === null && s.child.process.signalCode === null) s.child.process.kill('SIGKILL');
    await exited;
  } else {
    const code = await s.child.stop(STOP_GRACE_MS);
    if (code !== 0) throw new Error(`the server's SIGTERM stop ended with ${code}:\n${s.child.output()}`);
  }
  return (performance.now() - t0) / 1000;
}

async function load(s: Server): Promise<void> {
  const args = [bin, 'bench', 'remote-write', '--url', `${s.base}/api/v1/write`, '--series', String(SERIES), '--samples-per-series', String(SAMPLES), '--series-per-request', '2000', '--concurrency', '4'];
  const c = startChild('remote-write', process.execPath, args, { cwd: root });
  // The timer is cleared once the load ends: a pending one would keep this process alive.
  const timeout = new AbortController();
  const code = await Promise.race([
    new Promise<number | null>((resolve) => c.process.once('exit', (n) => resolve(n))),
    sleep(LOAD_TIMEOUT_MS, undefined, { signal: timeout.signal }).then(() => 'timeout' as const, () => 'aborted' as const),
  ]);
  timeout.abort();
  if (code !== 0) {
    await c.stop(5000);
    throw new Error(`strata bench remote-write ended with ${code}:\n${c.output()}`);
  }
}

/** "storage recovered" ms from the server's log, if it logged it. */
function recoveredMs(output: string): number | undefined {
  // JSON lines (--log.format=json) or logfmt, the default.
  const m = /"ms":(\d+)[^\n]*"msg":"storage recovered"/.exec(output) ?? /"msg":"storage recovered"[^\n]*"ms":(\d+)/.exec(output)
    ?? /msg="storage recovered"[^\n]* ms=(\d+)/.exec(output);
  return m === null ? undefined : Number(m[1]);
}

interface Run {
  readyS: number;
  readS: number;
  recoveredMs: number | undefined;
  rssMiB: number;
  stopS: number;
}

async function restartOnce(dataDir: string, mode: string): Promise<Run> {
  const s = await spawnServer(dataDir);
  await until200(s, '/-/ready');
  const readyS = (performance.now() - s.spawnedAt) / 1000;
  const labels = JSON.parse(await until200(s, '/api/v1/labels')) as { data?: string[] };
  const readS = (performance.now() - s.spawnedAt) / 1000;
  if (!labels.data?.includes('__name__')) throw new Error(`/api/v1/labels after the restart lacks __name__: ${JSON.stringify(labels).slice(0, 300)}`);
  const { anon, file } = rssSplit(s.child.pid);
  const rssMiB = (anon + file) / 2 ** 20;
  const ms = recoveredMs(s.child.output());
  const stopS = await stopServer(s, mode);
  return { readyS, readS, recoveredMs: ms, rssMiB, stopS };
}

async function scenario(mode: string): Promise<void> {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'strata-restart-')), 'data');
  try {
    const first = await spawnServer(dataDir);
    await until200(first, '/-/ready');
    const t0 = performance.now();
    await load(first);
    const loadS = (performance.now() - t0) / 1000;
    const stopS = await stopServer(first, mode);
    console.log(`\n### ${mode === 'term' ? 'after SIGTERM' : 'after kill -9'}: ${SERIES} series x ${SAMPLES} samples (loaded in ${loadS.toFixed(1)} s; the stop took ${stopS.toFixed(1)} s)\n`);
    console.log('| run | spawn -> ready (s) | spawn -> labels read (s) | "storage recovered" (ms) | RSS after (MiB) | its stop (s) |');
    console.log('|---|---|---|---|---|---|');
    const runs: Run[] = [];
    for (let i = 1; i <= RUNS; i++) {
      const r = await restartOnce(dataDir, mode);
      runs.push(r);
      console.log(`| ${i} | ${r.readyS.toFixed(2)} | ${r.readS.toFixed(2)} | ${r.recoveredMs ?? '?'} | ${r.rssMiB.toFixed(0)} | ${r.stopS.toFixed(2)} |`);
    }
    const best = runs.reduce((a, b) => (b.readS < a.readS ? b : a));
    console.log(`| best (by spawn -> labels read) | ${best.readyS.toFixed(2)} | ${best.readS.toFixed(2)} | ${best.recoveredMs ?? '?'} | ${best.rssMiB.toFixed(0)} | ${best.stopS.toFixed(2)} |`);
  } finally {
    if (KEEP) console.log(`data directory kept: ${dataDir}`);
    else rmSync(join(dataDir, '..'), { recursive: true, force: true });
  }
}

process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
console.log(`bench:restart — ${new Date().toISOString()}, ${cpus().length} x ${cpus()[0]?.model ?? '?'}, load average ${loadavg()[0]!.toFixed(1)}, Node ${process.version}${NODE_ARGS.length > 0 ? `, server node flags ${NODE_ARGS.join(' ')}` : ''}${SERVE_ARGS.length > 0 ? `, serve flags ${SERVE_ARGS.join(' ')}` : ''}`);
try {
  for (const mode of STOPS) await scenario(mode);
} finally {
  await stopAll();
}
// The server's own package.json version, for the record.
console.log(`\nstrata ${(JSON.parse(readFileSync(join(strataRoot, 'package.json'), 'utf8')) as { version: string }).version} at ${strataRoot === root ? 'this checkout' : strataRoot}`);
