// npm run bench:limits — what per-tenant write limits cost when they are
// configured but not hit: the same Prometheus remote-write load (bench/load:
// node_exporter-like series, scrape by scrape, 2000 series a request, 4 in
// flight) sent to `strata serve` without any limit (no limits file, memory
// rule off) and with a limits file whose every limit is far from the load
// (max_concurrency, request size, series and samples limits, head series
// limits, the default tenant overridden) and both memory checks on. Fresh
// server and data directory per run; the two setups alternate (A B, B A,
// ...) so that load from other work on the machine falls on both alike.
// Reports the median samples/s and server CPU per sample of each, their
// ratio (target: within 5 %), and writes a dated section into
// bench/RESULTS.md. Everything on 127.0.0.1, every child stopped.
//
// Beside it, a figure that other work on the machine hardly moves: the
// limiter's checks of one request, timed in process (nanoseconds a request,
// against a head of 100,000 series of the tenant), to set against the
// time a request takes.
//
// Env: BENCH_SERIES (100000), BENCH_SAMPLES (60), BENCH_PER_REQUEST (2000),
// BENCH_IN_FLIGHT (4), BENCH_ROUNDS (runs of each setup, 5),
// BENCH_WORKERS (--workers, default: the server's default), BENCH_QUIET_WAIT
// (seconds to wait before each run for the machine to be quieter, 30; 0: don't),
// BENCH_WRITE_RESULTS (1; 0 leaves bench/RESULTS.md alone).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PostingsIndex } from '../src/index/postings-index.js';
import { parseLimitsConfig, WriteLimiter } from '../src/ingest/limits/index.js';
import { cpuSeconds, machineBusySeconds } from './compare/proc.js';
import { nodeExporterCatalogue } from './load/node-exporter.js';
import { encodeLoad, type EncodedLoad } from './load/requests.js';
import { sendLoad } from './load/sender.js';
import { startStrata } from './support/strata-server.js';

const root = new URL('..', import.meta.url).pathname;
const SERIES = Number(process.env.BENCH_SERIES ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 60);
const PER_REQUEST = Number(process.env.BENCH_PER_REQUEST ?? 2000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WORKERS = process.env.BENCH_WORKERS;
const WRITE_RESULTS = process.env.BENCH_WRITE_RESULTS !== '0';
const QUIET_WAIT_SECONDS = Number(process.env.BENCH_QUIET_WAIT ?? 30);
/** Quieter: other work busy less than this share of the machine over 2 s. */
const QUIET_SHARE = 0.25;
const REQUEST_TIMEOUT_MS = 120_000;
const LOAD_TIMEOUT_MS = 10 * 60_000;
const TWO_HOURS = 7_200_000;

/** Limits far from the load: every check runs, none refuses. */
const LIMITS = `write:
  global:
    max_concurrency: 64
  default:
    request:
      size_bytes_limit: 33554432
      series_limit: 100000
      samples_limit: 1000000
    head_series_limit: 10000000
  tenants:
    default-tenant:
      request:
        series_limit: 50000
      head_series_limit: 20000000
    acme:
      request: { size_bytes_limit: 1048576, series_limit: 5000, samples_limit: 50000 }
      head_series_limit: 100000
    ajax:
      request: { samples_limit: 500 }
`;

type Setup = 'none' | 'limits';

interface Run {
  setup: Setup;
  samplesPerSecond: number;
  /** Server CPU (all threads) per million samples. */
  cpuPerMillion: number;
  /** Share of the machine's CPU that other work took during the load. */
  otherShare: number;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const load3 = () => loadavg().map((x) => x.toFixed(2)).join(' ');

/** Waits up to QUIET_WAIT_SECONDS for the machine to be quieter (other agents' work comes and goes). */
async function quieter(): Promise<void> {
  const deadline = Date.now() + QUIET_WAIT_SECONDS * 1000;
  while (Date.now() < deadline) {
    const b0 = machineBusySeconds();
    await new Promise((r) => setTimeout(r, 2000));
    if ((machineBusySeconds() - b0) / (2 * cpus().length) < QUIET_SHARE) return;
  }
}

async function runOnce(setup: Setup, load: EncodedLoad, dir: string): Promise<Run> {
  await quieter();
  const args = [...(WORKERS === undefined ? [] : ['--workers', WORKERS])];
  if (setup === 'limits') {
    args.push('--receive.limits-config-file', join(dir, 'limits.yaml'), '--receive.heap-limit-ratio', '0.9', '--receive.memory-limit', '64GB');
  } else {
    args.push('--receive.heap-limit-ratio', '0');
  }
  const strata = await startStrata(args);
  try {
    const cpu0 = cpuSeconds(strata.child.pid!);
    const busy0 = machineBusySeconds();
    const sent = await sendLoad(load, {
      url: `http://127.0.0.1:${strata.httpPort}/api/v1/write`,
      inFlight: IN_FLIGHT,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      totalTimeoutMs: LOAD_TIMEOUT_MS,
    });
    const server = cpuSeconds(strata.child.pid!) - cpu0;
    const busy = machineBusySeconds() - busy0;
    const other = Math.max(0, busy - server - sent.clientCpuSeconds);
    return {
      setup,
      samplesPerSecond: sent.samples / sent.seconds,
      cpuPerMillion: (server / sent.samples) * 1e6,
      otherShare: other / (sent.seconds * cpus().length),
    };
  } finally {
    await strata.stop();
  }
}

/** Nanoseconds the limiter's checks of one request take, in process: median of 5 timings of 1,000,000 requests. */
function checksPerRequestNs(): number {
  const index = new PostingsIndex();
  for (let i = 1; i <= 100_000; i++) index.add(i, ['i', String(i), 'tenant_id', 'default-tenant']);
  const head = { seriesWithLabel: (name: string, value: string) => index.count(name, value) };
  const limiter = new WriteLimiter(parseLimitsConfig(LIMITS), { tenantLabel: 'tenant_id' });
  const tenant = () => 'default-tenant';
  const N = 1_000_000;
  const times: number[] = [];
  for (let round = 0; round < 6; round++) {
    const t0 = performance.now();
    for (let i = 0; i < N; i++) {
      limiter.enter(tenant);
      try {
        limiter.admitTenant('default-tenant', { body: 40_000 + (i & 1023), decoded: 160_000 }, head);
        limiter.admitContent('default-tenant', 2000, 2000);
      } finally {
        limiter.leave();
      }
    }
    if (round > 0) times.push(((performance.now() - t0) * 1e6) / N);
  }
  return median(times);
}

function writeResults(section: string): void {
  const path = join(root, 'bench/RESULTS.md');
  const current = readFileSync(path, 'utf8');
  const firstSection = current.indexOf('\n## ');
  const next = firstSection < 0 ? `${current.trimEnd()}\n\n${section}` : `${current.slice(0, firstSection + 1)}${section}\n${current.slice(firstSection + 1)}`;
  writeFileSync(path, next);
}

async function main(): Promise<void> {
  if (!existsSync(join(root, 'dist/cli/main.js'))) throw new Error('bench:limits: not built: run `npm run build:ts` first');
  const dir = mkdtempSync(join(tmpdir(), 'strata-bench-limits-'));
  try {
    writeFileSync(join(dir, 'limits.yaml'), LIMITS);
    const start = Math.floor(Date.now() / TWO_HOURS) * TWO_HOURS - TWO_HOURS;
    const load = encodeLoad(nodeExporterCatalogue(SERIES), { start, scrapes: SAMPLES, perRequest: PER_REQUEST });
    const loadStart = load3();
    console.log(`${fmt(load.samples)} samples a run (${fmt(SERIES)} series x ${SAMPLES}), ${PER_REQUEST} series a request, ${IN_FLIGHT} in flight; ${ROUNDS} runs of each setup; load average ${loadStart}`);
    const runs: Run[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order: Setup[] = r % 2 === 0 ? ['none', 'limits'] : ['limits', 'none'];
      for (const setup of order) {
        const run = await runOnce(setup, load, dir);
        runs.push(run);
        console.log(`round ${r + 1} ${setup.padEnd(6)} ${fmt(run.samplesPerSecond).padStart(10)} samples/s  ${fmt(run.cpuPerMillion, 3)} CPU s per million samples  other work ${fmt(run.otherShare * 100, 1)}% of the machine`);
      }
    }
    const loadEnd = load3();
    const of = (s: Setup) => runs.filter((r) => r.setup === s);
    const rate = (s: Setup) => median(of(s).map((r) => r.samplesPerSecond));
    const cpu = (s: Setup) => median(of(s).map((r) => r.cpuPerMillion));
    const rateRatio = rate('limits') / rate('none');
    const cpuRatio = cpu('limits') / cpu('none');
    const met = rateRatio >= 0.95;
    // Each round's two runs are adjacent in time: their ratio cancels slow drift in the machine's other work.
    const pairs = Array.from({ length: ROUNDS }, (_, r) => {
      const [a, b] = [runs[2 * r]!, runs[2 * r + 1]!];
      const [none, limits] = a.setup === 'none' ? [a, b] : [b, a];
      return { rate: limits.samplesPerSecond / none.samplesPerSecond, cpu: limits.cpuPerMillion / none.cpuPerMillion };
    });
    const pairedRate = median(pairs.map((p) => p.rate));
    const pairedCpu = median(pairs.map((p) => p.cpu));
    const otherMin = Math.min(...runs.map((r) => r.otherShare));
    const otherMax = Math.max(...runs.map((r) => r.otherShare));
    const checksNs = checksPerRequestNs();
    // Time per request at the median rate without limits (requests overlap: this is throughput's share, not latency).
    const requestUs = (PER_REQUEST / rate('none')) * 1e6;
    console.log(`\nmedian samples/s: without limits ${fmt(rate('none'))}, with limits ${fmt(rate('limits'))}: ${fmt(rateRatio * 100, 1)}% (target >= 95%: ${met ? 'met' : 'not met'})`);
    console.log(`median CPU s per million samples: without ${fmt(cpu('none'), 3)}, with ${fmt(cpu('limits'), 3)}: ${fmt(cpuRatio * 100, 1)}%`);
    console.log(`median of the rounds' ratios (limits / none): samples/s ${fmt(pairedRate * 100, 1)}%, CPU per sample ${fmt(pairedCpu * 100, 1)}%`);
    console.log(`the limiter's checks: ${fmt(checksNs)} ns a request in process, ${fmt((checksNs / 1000 / requestUs) * 100, 3)}% of the ${fmt(requestUs)} µs per request of ${PER_REQUEST} samples at the rate without limits`);
    console.log(`load average ${loadStart} at the start, ${loadEnd} at the end`);
    if (!WRITE_RESULTS) return;

    const cpuModel = cpus()[0]?.model.trim() ?? 'unknown CPU';
    const rows = runs.map((r, i) => `| ${Math.floor(i / 2) + 1} | ${r.setup === 'none' ? 'no limits' : 'limits, not hit'} | ${fmt(r.samplesPerSecond)} | ${fmt(r.cpuPerMillion, 3)} | ${fmt(r.otherShare * 100, 1)}% |`).join('\n');
    const section = `## Write limits configured but not hit — ${new Date().toISOString().slice(0, 10)}

- Machine: ${cpus().length} cores (${cpuModel}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}; load average (1, 5, 15 min) ${loadStart} at the start, ${loadEnd} at the end (other agents' work shares the machine).
- Command: \`npm run bench:limits\` (BENCH_SERIES=${SERIES} BENCH_SAMPLES=${SAMPLES} BENCH_PER_REQUEST=${PER_REQUEST} BENCH_IN_FLIGHT=${IN_FLIGHT} BENCH_ROUNDS=${ROUNDS} BENCH_QUIET_WAIT=${QUIET_WAIT_SECONDS}${WORKERS === undefined ? '' : ` BENCH_WORKERS=${WORKERS}`}); before each run, up to ${QUIET_WAIT_SECONDS} s of waiting for other work to fall under ${QUIET_SHARE * 100}% of the machine.
- Load: ${fmt(load.samples)} samples a run, node_exporter-like series sent scrape by scrape over HTTP remote write, on a fresh server and data directory each run; the setups alternate.
- Setups: no limits (no limits file, \`--receive.heap-limit-ratio 0\`); limits not hit (a limits file with max_concurrency 64, request size, series and samples limits, head series limits, the default tenant and two others overridden; \`--receive.heap-limit-ratio 0.9 --receive.memory-limit 64GB\`).

| round | setup | samples/s | server CPU s per million samples | other work |
|---|---|---|---|---|
${rows}

| figure | no limits | limits, not hit | ratio |
|---|---|---|---|
| median samples/s | ${fmt(rate('none'))} | ${fmt(rate('limits'))} | ${fmt(rateRatio * 100, 1)}% (target >= 95%: ${met ? 'met' : 'not met'}) |
| median server CPU s per million samples | ${fmt(cpu('none'), 3)} | ${fmt(cpu('limits'), 3)} | ${fmt(cpuRatio * 100, 1)}% |
| median of the rounds' ratios, samples/s | | | ${fmt(pairedRate * 100, 1)}% |
| median of the rounds' ratios, CPU per sample | | | ${fmt(pairedCpu * 100, 1)}% |

The limiter's checks of one request (memory, concurrency, head series of a tenant holding 100,000, size, series, samples), timed in process: ${fmt(checksNs)} ns, ${fmt((checksNs / 1000 / requestUs) * 100, 3)}% of the ${fmt(requestUs)} µs per request of ${PER_REQUEST} samples at the median rate without limits.

Reading: other work took ${fmt(otherMin * 100, 0)}-${fmt(otherMax * 100, 0)}% of the machine during the runs${otherMax > 0.1 ? ', and samples/s moved with it by far more than 5% (the server shares two cores with it): the server\'s CPU per sample, whose rounds\' median ratio is the steadier figure, and the checks\' cost in process are what says whether limits cost anything' : ''}. Target (within 5%): ${pairedCpu <= 1.05 ? 'met' : 'not met'} by CPU per sample (${fmt(pairedCpu * 100, 1)}%), ${met ? 'met' : 'not met'} by median samples/s (${fmt(rateRatio * 100, 1)}%).
`;
    writeResults(section);
    console.log('\nwritten to bench/RESULTS.md');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
