// npm run bench:https — what HTTPS costs remote write: the same Prometheus
// remote-write load (bench/load: node_exporter-like series, scrape by
// scrape, 2000 series a request, 4 in flight, keep-alive) sent to
// `strata serve` over plain HTTP, over TLS served by uWebSockets.js
// (--http-server-tls-cert/-key), and over mutual TLS (plus
// --http-server-tls-client-ca: Node's TLS in front of uWebSockets.js, see
// src/http/client-cert-front.ts). Fresh server and data directory per run;
// the setups rotate so that load from other work falls on all alike.
// Reports the median samples/s and server CPU per million samples of each,
// and their ratio to plain HTTP. Certificates are made with `openssl`.
// Everything on 127.0.0.1, every child stopped. Prints only; copy the
// figures into bench/RESULTS.md by hand if they matter.
//
// Env: BENCH_SERIES (50000), BENCH_SAMPLES (30), BENCH_PER_REQUEST (2000),
// BENCH_IN_FLIGHT (4), BENCH_ROUNDS (runs of each setup, 3),
// BENCH_WORKERS (--workers, default: the server's default).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCerts } from '../test/store/support/certs.js';
import { cpuSeconds } from './compare/proc.js';
import { nodeExporterCatalogue } from './load/node-exporter.js';
import { encodeLoad, type EncodedLoad } from './load/requests.js';
import { sendLoad } from './load/sender.js';
import { startStrata } from './support/strata-server.js';

const root = new URL('..', import.meta.url).pathname;
const SERIES = Number(process.env.BENCH_SERIES ?? 50_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 30);
const PER_REQUEST = Number(process.env.BENCH_PER_REQUEST ?? 2000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WORKERS = process.env.BENCH_WORKERS;
const REQUEST_TIMEOUT_MS = 120_000;
const LOAD_TIMEOUT_MS = 10 * 60_000;
const TWO_HOURS = 7_200_000;

const SETUPS = ['http', 'tls', 'mtls'] as const;
type Setup = (typeof SETUPS)[number];

interface Run {
  setup: Setup;
  samplesPerSecond: number;
  cpuPerMillion: number;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function runOnce(setup: Setup, load: EncodedLoad, certDir: string): Promise<Run> {
  const certs = { ca: join(certDir, 'ca.crt'), cert: join(certDir, 'server.crt'), key: join(certDir, 'server.key') };
  const args = [...(WORKERS === undefined ? [] : ['--workers', WORKERS])];
  if (setup !== 'http') args.push('--http-server-tls-cert', certs.cert, '--http-server-tls-key', certs.key);
  if (setup === 'mtls') args.push('--http-server-tls-client-ca', certs.ca);
  const strata = await startStrata(args);
  try {
    const cpu0 = cpuSeconds(strata.child.pid!);
    const sent = await sendLoad(load, {
      url: `${setup === 'http' ? 'http' : 'https'}://127.0.0.1:${strata.httpPort}/api/v1/write`,
      inFlight: IN_FLIGHT,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      totalTimeoutMs: LOAD_TIMEOUT_MS,
      tls: { ca: readFileSync(certs.ca), cert: readFileSync(join(certDir, 'client.crt')), key: readFileSync(join(certDir, 'client.key')) },
    });
    const server = cpuSeconds(strata.child.pid!) - cpu0;
    return { setup, samplesPerSecond: sent.samples / sent.seconds, cpuPerMillion: (server / sent.samples) * 1e6 };
  } finally {
    await strata.stop();
  }
}

async function main(): Promise<void> {
  if (!existsSync(join(root, 'dist/cli/main.js'))) throw new Error('bench:https: not built: run `npm run build:ts` first');
  const certDir = mkdtempSync(join(tmpdir(), 'strata-bench-https-'));
  try {
    makeCerts(certDir);
    const start = Math.floor(Date.now() / TWO_HOURS) * TWO_HOURS - TWO_HOURS;
    const load = encodeLoad(nodeExporterCatalogue(SERIES), { start, scrapes: SAMPLES, perRequest: PER_REQUEST });
    console.log(`${fmt(load.samples)} samples a run (${fmt(SERIES)} series x ${SAMPLES}), ${PER_REQUEST} series a request ` +
      `(${fmt(load.compressedBytes / load.requests.flat().length / 1024)} KiB compressed), ${IN_FLIGHT} in flight; ${ROUNDS} runs of each setup; ` +
      `${cpus().length} cores; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    const runs: Run[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < SETUPS.length; k++) {
        const run = await runOnce(SETUPS[(k + r) % SETUPS.length]!, load, certDir);
        runs.push(run);
        console.log(`round ${r + 1} ${run.setup.padEnd(5)} ${fmt(run.samplesPerSecond).padStart(10)} samples/s  ${fmt(run.cpuPerMillion, 3)} CPU s per million samples`);
      }
    }
    const rate = (s: Setup) => median(runs.filter((r) => r.setup === s).map((r) => r.samplesPerSecond));
    const cpu = (s: Setup) => median(runs.filter((r) => r.setup === s).map((r) => r.cpuPerMillion));
    console.log('\n| setup | median samples/s | of plain HTTP | server CPU s per million samples | of plain HTTP |\n|---|---|---|---|---|');
    for (const s of SETUPS) {
      console.log(`| ${s} | ${fmt(rate(s))} | ${fmt((rate(s) / rate('http')) * 100, 1)}% | ${fmt(cpu(s), 3)} | ${fmt((cpu(s) / cpu('http')) * 100, 1)}% |`);
    }
    console.log(`load average at the end ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  } finally {
    rmSync(certDir, { recursive: true, force: true });
  }
}

await main();
