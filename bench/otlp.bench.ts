// npm run bench:otlp — OTLP in against remote write in, same series and
// samples: node_exporter-like series (bench/load), scrape by scrape,
// BENCH_PER_REQUEST series a request, BENCH_IN_FLIGHT in flight, sent to
// one `strata serve` (fresh data directory), each format to a tenant of its
// own so that each creates its series once. Remote write: snappy
// WriteRequests (bench/load's encoder). OTLP: the same requests as
// ExportMetricsServiceRequests (`strata bench remote-write --format otlp`'s
// encoding, src/bench/remote-write/otlp-bodies.ts: gauge points, one
// Metric per family, the other labels as attributes, which the
// translation keeps as they are), gzip-compressed as the OpenTelemetry
// Collector sends them: the same series and values. The
// formats take turns scrape by scrape (each timed on its own), so that a
// shared machine's load falls on both alike.
// Bodies are encoded before the clock starts. Prints samples/s of each and
// their ratio, and the server's CPU seconds for each (from /proc: the
// steadier figure on a shared machine). Everything on 127.0.0.1; the server
// is stopped at the end.
//
// Env: BENCH_SERIES (20000), BENCH_SAMPLES (10), BENCH_PER_REQUEST (2000),
// BENCH_IN_FLIGHT (4), BENCH_OTLP_GZIP (1; 0 sends OTLP uncompressed).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { nodeExporterCatalogue } from './load/node-exporter.js';
import { encodeLoad } from './load/requests.js';
import { otlpWriteBodies } from '../src/bench/remote-write/otlp-bodies.js';
import { startStrata } from './support/strata-server.js';

const SERIES = Number(process.env.BENCH_SERIES ?? 20_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 10);
const PER_REQUEST = Number(process.env.BENCH_PER_REQUEST ?? 2000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 4);
const GZIP = (process.env.BENCH_OTLP_GZIP ?? '1') !== '0';
const INTERVAL_MS = 15_000;

function post(agent: http.Agent, port: number, path: string, headers: Record<string, string>, body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request({ agent, host: '127.0.0.1', port, path, method: 'POST', headers: { ...headers, 'Content-Length': body.length }, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ((res.statusCode ?? 0) < 300 ? resolve() : reject(new Error(`${path}: ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`))));
    });
    req.on('timeout', () => req.destroy(new Error(`${path}: no answer in 60 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * CPU seconds (user + system, all threads) the process has used, from
 * /proc (Linux); NaN where there is none. On a shared machine this is the
 * steadier figure: wall time counts other people's work too.
 */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime), counted after the name: 12 and 13.
    return (Number(f[11]) + Number(f[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
/** USER_HZ: the unit of /proc's CPU times on Linux. */
const CLOCK_TICKS = 100;

/** Sends one scrape's bodies, IN_FLIGHT at a time; seconds taken. */
async function send(agent: http.Agent, port: number, path: string, headers: Record<string, string>, bodies: Buffer[]): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < bodies.length) await post(agent, port, path, headers, bodies[next++]!);
  }));
  return (performance.now() - t0) / 1000;
}

const cat = nodeExporterCatalogue(SERIES);
const start = Math.floor(Date.now() / INTERVAL_MS) * INTERVAL_MS - (SAMPLES + 1) * INTERVAL_MS;
const rw = encodeLoad(cat, { start, scrapes: SAMPLES, perRequest: PER_REQUEST });
const otlp = rw.requests.map((scrape) => otlpWriteBodies(scrape, Infinity, GZIP ? 'gzip' : 'none'));
const otlpBytes = otlp.flat().reduce((a, b) => a + b.length, 0);
const samples = cat.count * SAMPLES;
console.log(`load: ${cat.count} series x ${SAMPLES} samples = ${samples} samples; ${rw.requests.flat().length} requests each;` +
  ` remote write ${(rw.compressedBytes / 2 ** 20).toFixed(1)} MiB snappy, OTLP ${(otlpBytes / 2 ** 20).toFixed(1)} MiB${GZIP ? ' gzip' : ''}`);

const server = await startStrata(['--http-max-body-bytes', String(64 << 20)]);
try {
  const rwHeaders = { 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf', 'X-Prometheus-Remote-Write-Version': '0.1.0', 'THANOS-TENANT': 'rw' };
  const otlpHeaders = { 'Content-Type': 'application/x-protobuf', ...(GZIP ? { 'Content-Encoding': 'gzip' } : {}), 'THANOS-TENANT': 'otlp' };
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  // Scrape by scrape, one format then the other: on a shared machine both
  // see the same load, and each format's first scrape creates its series.
  let rwSeconds = 0;
  let otlpSeconds = 0;
  let rwCpu = 0;
  let otlpCpu = 0;
  const pid = server.child.pid!;
  for (let s = 0; s < SAMPLES; s++) {
    const c0 = cpuSeconds(pid);
    rwSeconds += await send(agent, server.httpPort, '/api/v1/write', rwHeaders, rw.requests[s]!);
    const c1 = cpuSeconds(pid);
    otlpSeconds += await send(agent, server.httpPort, '/api/v1/otlp/v1/metrics', otlpHeaders, otlp[s]!);
    rwCpu += c1 - c0;
    otlpCpu += cpuSeconds(pid) - c1;
  }
  agent.destroy();
  const rwRate = samples / rwSeconds;
  const otlpRate = samples / otlpSeconds;
  console.log(`remote write: ${Math.round(rwRate)} samples/s (${rwSeconds.toFixed(2)} s)`);
  console.log(`OTLP:         ${Math.round(otlpRate)} samples/s (${otlpSeconds.toFixed(2)} s)`);
  console.log(`OTLP / remote write: ${(otlpRate / rwRate).toFixed(2)}x; ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`);
  console.log(`server CPU: remote write ${rwCpu.toFixed(2)} s (${Math.round(samples / rwCpu)} samples per CPU-second),` +
    ` OTLP ${otlpCpu.toFixed(2)} s (${Math.round(samples / otlpCpu)}); OTLP / remote write per CPU-second: ${(rwCpu / otlpCpu).toFixed(2)}x`);
} finally {
  await server.stop();
}
