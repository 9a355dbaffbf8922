// npm run bench:sidecar — the Store API of `strata sidecar` beside a real
// Prometheus 2.42, against Prometheus' own remote read (what Thanos'
// sidecar asks for every Series and passes on).
//
// Prometheus (Debian's binary on PATH): external labels {cluster="bench",
// replica="0"}, no scrape targets, --web.enable-remote-write-receiver,
// min = max block duration 2 h (as a sidecar that ships wants). It gets
// BENCH_SERIES node_exporter-like series (bench/load) at 15 s from T0 (on
// the 2 h grid, in 2023) for 2 h + BENCH_HEAD_MINUTES, oldest first, every
// series' sample i before any series' sample i+1; once its head spans more
// than 3 h, its own head compaction cuts [T0, T0 + 2 h) into a block and
// drops it from the head, so the head keeps [T0 + 2 h, end). The run waits
// (bounded) for that and for Prometheus' CPU to go quiet, then starts
// `strata sidecar` (built dist/) against it.
//
// Cases, each with the matcher {job="node"} (every series):
// (a) the block's range [T0, T0 + 2 h - 1]: the sidecar reads the block
//     directly; Prometheus reads it through its querier;
// (b) the head's range [T0 + 2 h, end]: the sidecar passes Prometheus'
//     remote read on;
// (c) both [T0, end]: the block read directly, then the head's remote read.
// First one call of each, decoded: the two answers must hold the same
// series (label sets, external labels included), chunks, chunk bytes and
// samples. Then BENCH_WARMUP calls of each, then BENCH_CALLS timed calls of
// each, alternating which goes first; a timed call ends at the last byte
// and decodes nothing (support/raw-series.ts over bare HTTP/2 for gRPC, a
// keep-alive HTTP/1.1 connection for remote read). Figures: p50 and p90,
// MB/s of chunk data and series/s at the p50, the CPU each process used a
// call (sidecar, Prometheus, this client), and sidecar/remote read.
//
// Env: BENCH_SERIES (10000), BENCH_HEAD_MINUTES (90), BENCH_CALLS (20),
// BENCH_WARMUP (3), BENCH_CASE_MAX_S (180: a case's timed calls stop
// after this), BENCH_QUIET_LOAD (1.5) and BENCH_QUIET_WAIT (600 s): wait
// (bounded) for the 1-minute load average before the timed calls;
// BENCH_SIDECAR_NODE_ARGS: node flags for the sidecar (e.g.
// --cpu-prof --cpu-prof-dir=DIR); BENCH_ALLOW_MISMATCH=1 times the calls
// even when the answers differ.
import http from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { SeriesRequest } from '../src/gen/thanos/store/rpc.js';
import { differences, readRequestBody, remoteRead, summarizeRemoteRead, summarizeSeries, type AnswerSummary, type EqMatcher } from './sidecar/answers.js';
import { cpuSeconds, peakRssBytes } from './compare/proc.js';
import { firstLine, freePort, startChild, waitForHttp, waitForLine, type Child } from './compare/processes.js';
import { nodeExporterCatalogue } from './load/node-exporter.js';
import { encodeLoad } from './load/requests.js';
import { sendLoad } from './load/sender.js';
import { SCRAPE_INTERVAL_MS } from './load/values.js';
import { connect, rawSeriesCall } from './support/raw-series.js';
import { loadText, waitForLowLoad } from './support/load-average.js';

const env = (name: string, fallback: number): number => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`bench:sidecar: ${name}=${v} is not a non-negative number`);
  return n;
};
const SERIES = env('BENCH_SERIES', 10_000);
const HEAD_MINUTES = env('BENCH_HEAD_MINUTES', 90);
const CALLS = Math.max(1, env('BENCH_CALLS', 20));
const WARMUP = env('BENCH_WARMUP', 3);
const CASE_MAX_MS = env('BENCH_CASE_MAX_S', 180) * 1000;
const QUIET_LOAD = env('BENCH_QUIET_LOAD', 1.5);
const QUIET_WAIT_S = env('BENCH_QUIET_WAIT', 600);
const ALLOW_MISMATCH = process.env.BENCH_ALLOW_MISMATCH === '1';
const SIDECAR_NODE_ARGS = (process.env.BENCH_SIDECAR_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
const root = new URL('..', import.meta.url).pathname;

const RANGE = 2 * 3_600_000;
/** 2023-11-14T22:00:00Z, on the 2 h grid (Prometheus cuts blocks on it). */
const T0 = 1_699_999_200_000;
const SCRAPES = Math.round((RANGE + HEAD_MINUTES * 60_000) / SCRAPE_INTERVAL_MS);
/** Past every sample written (hosts scrape up to 15 s after the grid, a few late by up to 25 ms). */
const END = T0 + (SCRAPES + 1) * SCRAPE_INTERVAL_MS;
const EXTERNAL = { cluster: 'bench', replica: '0' };
const MATCHERS: EqMatcher[] = [{ name: 'job', value: 'node' }];
const PER_REQUEST = 5000;
const CALL_TIMEOUT_MS = 120_000;
const START_TIMEOUT_MS = 60_000;
/** Head compaction of the first 2 h and the WAL checkpoint after it: seconds on a quiet machine. */
const BLOCK_TIMEOUT_MS = 300_000;
const QUIET_TIMEOUT_MS = 60_000;

const f = (x: number, d = 0): string => (Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : 'n/a');
const log = (s: string): void => void process.stderr.write(`${s}\n`);
const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
};

/** A metric's value (summed over its label sets) from a text exposition. */
function metric(text: string, name: string): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== ' ' && line[name.length] !== '{')) continue;
    sum = (sum ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

async function metricsText(base: string): Promise<string> {
  const res = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(10_000) });
  return res.text();
}

/** Polls `probe` every `everyMs` until it returns true, at most `timeoutMs`. */
async function until(what: string, timeoutMs: number, probe: () => Promise<boolean> | boolean, everyMs = 250): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < 100_000; i++) {
    if (await probe()) return performance.now() - t0;
    if (performance.now() - t0 > timeoutMs) break;
    await sleep(everyMs);
  }
  throw new Error(`bench:sidecar: ${what} not within ${timeoutMs} ms`);
}

/** Until the process used less than 5% of a core over a second, twice in a row; false when it did not within QUIET_TIMEOUT_MS. */
async function quiet(pid: number, what: string): Promise<boolean> {
  let calm = 0;
  let last = cpuSeconds(pid);
  return until(`${what} quiet`, QUIET_TIMEOUT_MS, () => {
    const now = cpuSeconds(pid);
    calm = now - last < 0.05 ? calm + 1 : 0;
    last = now;
    return calm >= 2;
  }, 1000).then(() => true, () => false);
}

async function startPrometheus(dir: string): Promise<{ child: Child; base: string; data: string; version: string }> {
  const port = await freePort();
  const data = join(dir, 'data');
  const config = join(dir, 'prometheus.yml');
  writeFileSync(config, `global:\n  scrape_interval: 15s\n  external_labels:\n${Object.entries(EXTERNAL).map(([k, v]) => `    ${k}: ${JSON.stringify(v)}\n`).join('')}scrape_configs: []\n`);
  const child = startChild('prometheus', 'prometheus', [
    `--config.file=${config}`,
    `--storage.tsdb.path=${data}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--web.enable-remote-write-receiver',
    '--storage.tsdb.min-block-duration=2h',
    '--storage.tsdb.max-block-duration=2h',
    // Retention counts back from the newest block; the data is from 2023.
    '--storage.tsdb.retention.time=100y',
    '--log.level=warn',
  ]);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(child, `${base}/-/ready`, START_TIMEOUT_MS);
  return { child, base, data, version: /version (\S+)/.exec(firstLine('prometheus', ['--version']))?.[1] ?? 'unknown' };
}

/** `strata sidecar` (built dist/) against Prometheus on free 127.0.0.1 ports, once it logs that it started. */
async function startStrataSidecar(prom: { base: string; data: string }): Promise<{ child: Child; grpcAddress: string; base: string }> {
  const child = startChild('strata sidecar', process.execPath, [
    ...SIDECAR_NODE_ARGS, join(root, 'bin/strata.js'), 'sidecar', '--prometheus.url', prom.base, '--tsdb.path', prom.data,
    '--grpc-address', '127.0.0.1:0', '--http-address', '127.0.0.1:0', '--log.format', 'json',
  ], { cwd: root });
  const started = await waitForLine(child, (line) => (line.includes('"strata sidecar started"') ? JSON.parse(line) as { grpcAddress: string; httpAddress: string } : undefined), START_TIMEOUT_MS);
  return { child, grpcAddress: started.grpcAddress, base: `http://${started.httpAddress}` };
}

interface Case {
  name: string;
  range: string;
  minT: number;
  maxT: number;
}

interface Timed {
  ms: number[];
  /** CPU seconds a call, summed: the sidecar, Prometheus, this process. */
  sidecarCpu: number;
  promCpu: number;
  clientCpu: number;
}

interface CaseResult {
  c: Case;
  summary: AnswerSummary;
  sidecar: Timed;
  remote: Timed;
  answerBytes: { sidecar: number; remote: number };
}

async function main(): Promise<void> {
  const loadStart = loadText();
  const dir = mkdtempSync(join(tmpdir(), 'strata-bench-sidecar-'));
  let prometheus: Awaited<ReturnType<typeof startPrometheus>> | undefined;
  let sidecar: Awaited<ReturnType<typeof startStrataSidecar>> | undefined;
  const results: CaseResult[] = [];
  const notes: string[] = [];
  let loadRuns = '';
  let quietNote = '';
  try {
    const cat = nodeExporterCatalogue(SERIES);
    const load = encodeLoad(cat, { start: T0, scrapes: SCRAPES, perRequest: PER_REQUEST });
    log(`load: ${f(SERIES)} series x ${SCRAPES} samples, ${f(load.compressedBytes / 1e6, 1)} MB of requests`);
    mkdirSync(join(dir, 'prometheus'));
    const prom = await startPrometheus(join(dir, 'prometheus'));
    prometheus = prom;
    const { child } = prom;
    const sent = await sendLoad(load, { url: `${prom.base}/api/v1/write`, inFlight: 2, requestTimeoutMs: 60_000, totalTimeoutMs: 900_000 });
    log(`written in ${f(sent.seconds, 1)} s (${f(sent.samples / sent.seconds)} samples/s)`);
    const cutMs = await until('the block [T0, T0 + 2 h) cut and dropped from the head', BLOCK_TIMEOUT_MS, async () => {
      const m = await metricsText(prom.base);
      return (metric(m, 'prometheus_tsdb_blocks_loaded') ?? 0) >= 1 && (metric(m, 'prometheus_tsdb_head_min_time') ?? 0) >= T0 + RANGE;
    });
    if (!(await quiet(child.pid, 'Prometheus'))) notes.push(`Prometheus did not go quiet (under 5% of a core) within ${QUIET_TIMEOUT_MS / 1000} s after the block`);
    const promMetrics = await metricsText(prom.base);
    notes.push(`Prometheus ${prom.version}: ${f(metric(promMetrics, 'prometheus_tsdb_blocks_loaded') ?? NaN)} block(s), head ${f(metric(promMetrics, 'prometheus_tsdb_head_series') ?? NaN)} series from T0 + ${f(((metric(promMetrics, 'prometheus_tsdb_head_min_time') ?? NaN) - T0) / 60_000)} min; written in ${f(sent.seconds, 1)} s, block there ${f(cutMs / 1000, 1)} s after the last write`);

    sidecar = await startStrataSidecar(prom);
    const { grpcAddress, base: sidecarBase } = sidecar;
    const sidecarPid = sidecar.child.pid;
    await until('the sidecar to open the block', 30_000, async () => (metric(await metricsText(sidecarBase), 'strata_sidecar_prometheus_blocks_loaded') ?? 0) >= 1);
    if (!(await quiet(sidecarPid, 'strata sidecar'))) notes.push(`strata sidecar did not go quiet (under 5% of a core) within ${QUIET_TIMEOUT_MS / 1000} s after its start`);

    const cases: Case[] = [
      { name: '(a) block', range: '[T0, T0 + 2 h - 1 ms]', minT: T0, maxT: T0 + RANGE - 1 },
      { name: '(b) head', range: `[T0 + 2 h, T0 + 2 h + ${HEAD_MINUTES} min]`, minT: T0 + RANGE, maxT: END },
      { name: '(c) block and head', range: `[T0, T0 + 2 h + ${HEAD_MINUTES} min]`, minT: T0, maxT: END },
    ];
    const session = connect(grpcAddress);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const readUrl = new URL('/api/v1/read', prom.base);
    try {
      const requests = cases.map((c) => ({
        series: Buffer.from(SeriesRequest.encode(SeriesRequest.fromPartial({ minTime: BigInt(c.minT), maxTime: BigInt(c.maxT), matchers: MATCHERS.map((m) => ({ type: 0, name: m.name, value: m.value })) })).finish()),
        read: readRequestBody(MATCHERS, c.minT, c.maxT),
      }));
      const summaries: AnswerSummary[] = [];
      for (const [k, c] of cases.entries()) {
        const a = await rawSeriesCall(session, requests[k]!.series, { idleTimeoutMs: CALL_TIMEOUT_MS });
        if (a.status !== '0') throw new Error(`${c.name}: Series answered grpc-status ${a.status}`);
        const got = summarizeSeries(a.messages);
        const want = summarizeRemoteRead((await remoteRead(agent, readUrl, requests[k]!.read, { keep: true, timeoutMs: CALL_TIMEOUT_MS })).body!);
        const diff = differences(got, want);
        if (got.warnings.length > 0) diff.push(`sidecar warnings: ${got.warnings.join('; ')}`);
        const what = `${c.name}: ${f(want.series)} series, ${f(want.chunks)} chunks, ${f(want.chunkBytes / 1e6, 2)} MB of chunks, ${f(want.samples)} samples`;
        if (diff.length > 0) {
          const text = `${c.name}: the sidecar's answer differs from Prometheus' remote read: ${diff.join('; ')}`;
          if (!ALLOW_MISMATCH) throw new Error(text);
          notes.push(text);
        }
        log(`${what}: ${diff.length === 0 ? 'the same from both' : 'DIFFERENT'}`);
        summaries.push(want);
      }

      const low = await waitForLowLoad(QUIET_LOAD, QUIET_WAIT_S, 10, (l) => log(`load average ${l.toFixed(2)} above ${QUIET_LOAD}: waiting`));
      quietNote = low.waitedS > 0 ? ` (waited ${f(low.waitedS)} s${low.low ? '' : ', still above the limit'})` : '';
      loadRuns = loadText();

      const promPid = child.pid;
      const timedCall = async (t: Timed, call: () => Promise<number>): Promise<number> => {
        const s0 = cpuSeconds(sidecarPid);
        const p0 = cpuSeconds(promPid);
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const bytes = await call();
        t.ms.push(performance.now() - t0);
        const c = process.cpuUsage(c0);
        t.sidecarCpu += cpuSeconds(sidecarPid) - s0;
        t.promCpu += cpuSeconds(promPid) - p0;
        t.clientCpu += (c.user + c.system) / 1e6;
        return bytes;
      };
      for (const [k, c] of cases.entries()) {
        const { series: sReq, read: rReq } = requests[k]!;
        const viaSidecar = async (): Promise<number> => {
          const a = await rawSeriesCall(session, sReq, { keep: false, idleTimeoutMs: CALL_TIMEOUT_MS });
          if (a.status !== '0') throw new Error(`${c.name}: Series answered grpc-status ${a.status}`);
          return a.bytes;
        };
        const viaRemoteRead = async (): Promise<number> => (await remoteRead(agent, readUrl, rReq, { keep: false, timeoutMs: CALL_TIMEOUT_MS })).bytes;
        const fresh = (): Timed => ({ ms: [], sidecarCpu: 0, promCpu: 0, clientCpu: 0 });
        const warm = fresh();
        for (let i = 0; i < WARMUP; i++) {
          await timedCall(warm, viaSidecar);
          await timedCall(warm, viaRemoteRead);
        }
        const sidecarT = fresh();
        const remoteT = fresh();
        const bytes = { sidecar: 0, remote: 0 };
        const t0 = performance.now();
        for (let i = 0; i < CALLS && performance.now() - t0 < CASE_MAX_MS; i++) {
          // Alternate which goes first, so neither always follows the other's garbage.
          if (i % 2 === 0) {
            bytes.sidecar = await timedCall(sidecarT, viaSidecar);
            bytes.remote = await timedCall(remoteT, viaRemoteRead);
          } else {
            bytes.remote = await timedCall(remoteT, viaRemoteRead);
            bytes.sidecar = await timedCall(sidecarT, viaSidecar);
          }
        }
        if (sidecarT.ms.length < CALLS) notes.push(`${c.name}: ${sidecarT.ms.length} timed calls of each (stopped at ${CASE_MAX_MS / 1000} s)`);
        log(`${c.name}: sidecar p50 ${f(quantile(sidecarT.ms, 0.5), 1)} ms, remote read p50 ${f(quantile(remoteT.ms, 0.5), 1)} ms`);
        results.push({ c, summary: summaries[k]!, sidecar: sidecarT, remote: remoteT, answerBytes: bytes });
      }
    } finally {
      session.close();
      agent.destroy();
    }
    notes.push(`peak RSS over the run: strata sidecar ${f(peakRssBytes(sidecarPid) / 2 ** 20)} MiB, Prometheus ${f(peakRssBytes(child.pid) / 2 ** 20)} MiB`);
  } finally {
    await sidecar?.child.stop();
    await prometheus?.child.stop();
    rmSync(dir, { recursive: true, force: true });
  }

  console.log(`Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${f(totalmem() / 2 ** 30)} GiB, ${new Date().toISOString().slice(0, 10)}`);
  console.log(`load average (1, 5, 15 min): ${loadStart} at the start, ${loadRuns} before the timed calls${quietNote}, ${loadText()} at the end`);
  console.log(`${f(SERIES)} node_exporter-like series at 15 s; matcher {job="node"}; ${WARMUP} warm-up calls, then ${CALLS} timed calls of each, alternating\n`);
  console.log('| case | range | series | chunks | chunk MB | samples | server | p50 ms | p90 ms | MB/s of chunks (p50) | series/s (p50) | answer MB | CPU ms a call: sidecar / Prometheus / client | sidecar / remote read (MB/s) |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const { summary: s } = r;
    const row = (who: string, t: Timed, answer: number, ratio: string): string => {
      const p50 = quantile(t.ms, 0.5);
      const n = t.ms.length;
      return `| ${r.c.name} | ${r.c.range} | ${f(s.series)} | ${f(s.chunks)} | ${f(s.chunkBytes / 1e6, 2)} | ${f(s.samples)} | ${who} | ${f(p50, 1)} | ${f(quantile(t.ms, 0.9), 1)} | ${f(s.chunkBytes / 1e6 / (p50 / 1000), 1)} | ${f(s.series / (p50 / 1000))} | ${f(answer / 1e6, 2)} | ${f((t.sidecarCpu / n) * 1000)} / ${f((t.promCpu / n) * 1000)} / ${f((t.clientCpu / n) * 1000)} | ${ratio} |`;
    };
    const ratio = quantile(r.remote.ms, 0.5) / quantile(r.sidecar.ms, 0.5);
    console.log(row('strata sidecar (Store API, gRPC)', r.sidecar, r.answerBytes.sidecar, f(ratio, 2)));
    console.log(row('Prometheus remote read (streamed chunks)', r.remote, r.answerBytes.remote, ''));
  }
  for (const n of notes) console.log(`\n${n}`);
}

await main();
