// npm run bench:compare — the same Prometheus remote-write load against
// Strata, VictoriaMetrics and Prometheus (remote-write receiver), one after
// another in one run on this machine, then the same remote reads against
// Strata and Prometheus. For each server: samples/s, CPU seconds of the
// server process, peak RSS, disk bytes per sample once persisted; for the
// reads: latency of a selective and a wide query. Writes a dated section
// with the table and the ratios into bench/RESULTS.md.
//
// The load (bench/load/): node_exporter-like series, 15 s apart, sent
// scrape by scrape (every series gets sample i before any gets i+1), in
// requests of 2000 series, 4 in flight; encoded completely before the first
// server starts, so the generator only sends while a server is measured.
// Everything on 127.0.0.1, every child stopped, every loop bounded.
//
// Env: BENCH_SERIES (100000), BENCH_SAMPLES (120), BENCH_PER_REQUEST (2000),
// BENCH_IN_FLIGHT (4), BENCH_PEERS (strata,victoriametrics,prometheus),
// BENCH_WRITE_RESULTS (1; 0 leaves bench/RESULTS.md alone),
// BENCH_READ_SECONDS (time bound per read case, 20), BENCH_QUIET_WAIT (seconds to
// wait before each server for the machine to be quiet, 120; 0: don't wait),
// BENCH_ATTEMPTS (runs of a server when other work disturbed its load, 3).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ReadRequest_ResponseType } from '../src/gen/prometheus/remote.js';
import { LabelMatcher_Type, type LabelMatcher } from '../src/gen/prometheus/types.js';
import { instanceOf, nodeExporterCatalogue, SERIES_PER_HOST } from './load/node-exporter.js';
import { encodeLoad, type EncodedLoad } from './load/requests.js';
import { sendLoad } from './load/sender.js';
import { type DiskUse } from './compare/disk.js';
import { startPeer, peerTitle, type DiskReport, type Peer, type PeerName } from './compare/peers.js';
import { cpuSeconds, machineBusySeconds, peakRssBytes, rssSplit } from './compare/proc.js';
import { stopAll, which } from './compare/processes.js';
import { Progress } from './compare/progress.js';
import { remoteRead, type ReadAnswer } from './compare/remote-read.js';

const root = new URL('..', import.meta.url).pathname;
const SERIES = Number(process.env.BENCH_SERIES ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 120);
const PER_REQUEST = Number(process.env.BENCH_PER_REQUEST ?? 2000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 4);
const PEERS = (process.env.BENCH_PEERS ?? 'strata,victoriametrics,prometheus').split(',').map((s) => s.trim()) as PeerName[];
const WRITE_RESULTS = process.env.BENCH_WRITE_RESULTS !== '0';
const READ_SECONDS = Number(process.env.BENCH_READ_SECONDS ?? 20);
/** Before each server, wait up to this long for the machine to be quiet (other work skews the figures). */
const QUIET_WAIT_SECONDS = Number(process.env.BENCH_QUIET_WAIT ?? 120);
/** Quiet: the machine busy less than this share of one core over a 2 s sample. */
const QUIET_CORE_SHARE = 0.15;
/** A server's run is repeated (up to this many times in all) when other work took CPU during its load. */
const ATTEMPTS = Number(process.env.BENCH_ATTEMPTS ?? 3);
/** Clean: other work took less than this share of the machine's CPU time during the load. */
const CLEAN_SHARE = 0.05;
/** Rounds per read case (after one warm-up), bounded by READ_SECONDS too. */
const READ_ROUNDS = { selective: 50, wide: 10 };
const REQUEST_TIMEOUT_MS = 120_000;
const LOAD_TIMEOUT_MS = 30 * 60_000;
const TWO_HOURS = 7_200_000;

const progress = new Progress();
/** The run's temporary directory (removed at the end, also on SIGINT). */
let parentDir: string | undefined;

interface Ingest {
  peer: Peer;
  samplesPerSecond: number;
  seconds: number;
  serverCpuSeconds: number;
  clientCpuSeconds: number;
  /** CPU the machine spent on anything else meanwhile (busy time less server and generator). */
  otherCpuSeconds: number;
  peakRss: number;
  /** Resident memory right after the load: anonymous (heaps) and file-backed or shared (maps, code). */
  rssAfter: { anon: number; file: number };
  p50Ms: number;
  p99Ms: number;
  /** What the server holds afterwards, as counted by a read (not timed). */
  stored?: { series: number; samples: number; how: string };
  disk?: DiskReport;
}

interface ReadCase {
  query: 'selective' | 'wide';
  matchers: LabelMatcher[];
  text: string;
}

interface Read {
  peer: PeerName;
  query: ReadCase['query'];
  type: ReadRequest_ResponseType;
  rounds: number;
  medianMs: number;
  maxMs: number;
  answer: ReadAnswer;
}

function fail(message: string): never {
  throw new Error(`bench:compare: ${message}`);
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const mb = (bytes: number) => `${fmt(bytes / 2 ** 20, 1)} MiB`;
const perSample = (u: DiskUse | undefined, samples: number) => (u === undefined ? NaN : u.allocated / samples);

function checkSetup(): void {
  if (!existsSync(join(root, 'dist/cli/main.js'))) fail('not built: run `npm run build:ts` first');
  const missing = PEERS.filter((p) => p !== 'strata' && which(p === 'victoriametrics' ? 'victoria-metrics' : 'prometheus') === undefined);
  if (missing.length > 0) fail(`not on PATH: ${missing.join(', ')}; install the Debian packages: apt-get install -y ${missing.map((m) => (m === 'victoriametrics' ? 'victoria-metrics' : 'prometheus')).join(' ')}`);
  for (const p of PEERS) if (!['strata', 'victoriametrics', 'prometheus'].includes(p)) fail(`unknown peer in BENCH_PEERS: ${p}`);
}

/** A chunk-range (2 h) boundary at least two hours back, so the load sits in one block range, in the past. */
function loadStart(): number {
  return Math.floor(Date.now() / TWO_HOURS) * TWO_HOURS - TWO_HOURS;
}

async function ingest(peer: Peer, load: EncodedLoad): Promise<Ingest> {
  const cpu0 = cpuSeconds(peer.child.pid);
  const busy0 = machineBusySeconds();
  const t0 = Date.now();
  const sent = await sendLoad(load, {
    url: peer.writeUrl,
    inFlight: IN_FLIGHT,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    totalTimeoutMs: LOAD_TIMEOUT_MS,
    onScrape: (s, samples) => {
      const secs = (Date.now() - t0) / 1000;
      progress.update(`${peer.title} write`, `scrape ${s + 1}/${load.scrapes}, ${fmt(samples)} samples, ${fmt(samples / secs / 1000)} k samples/s, ${fmt(secs, 1)} s`);
    },
  });
  const serverCpuSeconds = cpuSeconds(peer.child.pid) - cpu0;
  const busy = machineBusySeconds() - busy0;
  const lat = sent.latenciesMs;
  return {
    peer,
    samplesPerSecond: sent.samples / sent.seconds,
    seconds: sent.seconds,
    serverCpuSeconds,
    clientCpuSeconds: sent.clientCpuSeconds,
    otherCpuSeconds: Math.max(0, busy - serverCpuSeconds - sent.clientCpuSeconds),
    peakRss: peakRssBytes(peer.child.pid),
    rssAfter: rssSplit(peer.child.pid),
    p50Ms: lat[Math.floor(lat.length * 0.5)] ?? NaN,
    p99Ms: lat[Math.min(lat.length - 1, Math.floor(lat.length * 0.99))] ?? NaN,
  };
}

async function reads(peer: Peer, cases: ReadCase[], minT: number, maxT: number): Promise<Read[]> {
  const out: Read[] = [];
  for (const c of cases) {
    for (const type of [ReadRequest_ResponseType.STREAMED_XOR_CHUNKS, ReadRequest_ResponseType.SAMPLES]) {
      const label = `${peer.title} read ${c.query} ${typeName(type)}`;
      const first = await remoteRead(peer.readUrl!, c.matchers, minT, maxT, type, REQUEST_TIMEOUT_MS); // warm-up
      const times: number[] = [];
      const deadline = Date.now() + READ_SECONDS * 1000;
      let answer = first;
      while (times.length < READ_ROUNDS[c.query] && Date.now() < deadline) {
        answer = await remoteRead(peer.readUrl!, c.matchers, minT, maxT, type, REQUEST_TIMEOUT_MS);
        times.push(answer.ms);
        progress.update(label, `round ${times.length}, ${fmt(answer.ms, 1)} ms, ${fmt(answer.series)} series`);
      }
      if (times.length === 0) times.push(first.ms);
      times.sort((a, b) => a - b);
      out.push({ peer: peer.name, query: c.query, type, rounds: times.length, medianMs: times[Math.floor(times.length / 2)]!, maxMs: times[times.length - 1]!, answer });
    }
  }
  return out;
}

/**
 * Counts what the server holds after the load, outside any timing: a remote
 * read of every series (Strata, Prometheus) or a count_over_time query
 * (VictoriaMetrics), so that a server dropping samples cannot look fast.
 */
async function stored(peer: Peer, load: EncodedLoad): Promise<NonNullable<Ingest['stored']>> {
  if (peer.readUrl !== undefined) {
    const all = await remoteRead(peer.readUrl, [{ type: LabelMatcher_Type.RE, name: '__name__', value: '.+' }], load.minTime, load.maxTime, ReadRequest_ResponseType.STREAMED_XOR_CHUNKS, REQUEST_TIMEOUT_MS);
    return { series: all.series, samples: all.samples, how: 'remote read of {__name__=~".+"}' };
  }
  // Freshly written samples become searchable once flushed (about a second; force it).
  await (await fetch(`${peer.base}/internal/force_flush`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })).arrayBuffer();
  const time = (load.maxTime / 1000 + 1).toFixed(3);
  const hours = Math.ceil((load.maxTime - load.minTime) / 3_600_000) + 1;
  const ask = async (q: string): Promise<number> => {
    const res = await fetch(`${peer.base}/api/v1/query?${new URLSearchParams({ query: q, time })}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const body = (await res.json()) as { data?: { result?: Array<{ value: [number, string] }> } };
    return Number(body.data?.result?.[0]?.value[1] ?? NaN);
  };
  return {
    series: await ask(`count(last_over_time({job="node"}[${hours}h]))`),
    samples: await ask(`sum(count_over_time({job="node"}[${hours}h]))`),
    how: 'PromQL count_over_time',
  };
}

function typeName(t: ReadRequest_ResponseType): string {
  return t === ReadRequest_ResponseType.SAMPLES ? 'SAMPLES' : 'STREAMED_XOR_CHUNKS';
}

/** Waits (bounded) until nothing else keeps the machine busy; says so when it gives up. */
async function waitForQuiet(phase: string): Promise<void> {
  if (QUIET_WAIT_SECONDS <= 0) return;
  const deadline = Date.now() + QUIET_WAIT_SECONDS * 1000;
  for (;;) {
    const b0 = machineBusySeconds();
    await sleep(2000);
    const share = (machineBusySeconds() - b0) / 2;
    if (share < QUIET_CORE_SHARE) return;
    if (Date.now() > deadline) {
      progress.log(`${phase}: the machine is still busy (${fmt(share * 100)}% of a core) after ${QUIET_WAIT_SECONDS} s; going on (see the "other CPU" column)`);
      return;
    }
    progress.update(phase, `waiting for a quiet machine (busy ${fmt(share * 100)}% of a core)`);
  }
}

async function runPeer(name: PeerName, parent: string, load: EncodedLoad, cases: ReadCase[]): Promise<{ ingest: Ingest; reads: Read[] }> {
  await waitForQuiet(`${peerTitle(name)} start`);
  progress.update(`${peerTitle(name)} start`, 'starting');
  const peer = await startPeer(name, parent);
  try {
    progress.log(`${peer.title}: ${peer.version}, pid ${peer.child.pid}, ${peer.base}`);
    const result = await ingest(peer, load);
    progress.log(`${peer.title}: ${fmt(result.samplesPerSecond)} samples/s (${fmt(result.seconds, 1)} s), server CPU ${fmt(result.serverCpuSeconds, 1)} s, generator ${fmt(result.clientCpuSeconds, 1)} s, other ${fmt(result.otherCpuSeconds, 1)} s, peak RSS ${mb(result.peakRss)}, request p50 ${fmt(result.p50Ms, 1)} ms p99 ${fmt(result.p99Ms, 1)} ms`);
    progress.update(`${peer.title} check`, 'counting what it holds');
    result.stored = await stored(peer, load);
    if (result.stored.series !== load.series || result.stored.samples !== load.samples) {
      progress.log(`${peer.title}: holds ${fmt(result.stored.series)} series and ${fmt(result.stored.samples)} samples (${result.stored.how}), not the ${fmt(load.series)} and ${fmt(load.samples)} sent`);
    }
    let done: Read[] = [];
    if (peer.readUrl !== undefined) {
      await sleep(2000); // let the write path's background work (fsync, flushes) settle
      done = await reads(peer, cases, load.minTime, load.maxTime);
      for (const r of done) progress.log(`${peer.title} read ${r.query} ${typeName(r.type)}: median ${fmt(r.medianMs, 1)} ms, max ${fmt(r.maxMs, 1)} ms over ${r.rounds}; ${fmt(r.answer.series)} series, ${fmt(r.answer.samples)} samples, ${mb(r.answer.bytes)}`);
    }
    progress.update(`${peer.title} stop`, 'flushing and stopping');
    await peer.beforeStop();
    const code = await peer.child.stop(120_000);
    if (code !== 0) progress.log(`${peer.title}: exited with ${code} after SIGTERM:\n${peer.child.output().slice(-2000)}`);
    result.disk = peer.disk();
    const d = result.disk;
    progress.log(`${peer.title}: on disk ${mb(d.persisted.allocated)} (${d.persistedWhat}) = ${fmt(perSample(d.persisted, load.samples), 2)} B/sample; entries: ${[...d.entries].map(([k, u]) => `${k} ${mb(u.allocated)}`).join(', ')}`);
    return { ingest: result, reads: done };
  } finally {
    await peer.child.stop(10_000);
    rmSync(peer.dataDir, { recursive: true, force: true });
  }
}

function readCases(hosts: number): ReadCase[] {
  const host = instanceOf(Math.min(42, hosts - 1));
  return [
    {
      query: 'selective',
      text: `{__name__="node_cpu_seconds_total", instance="${host}"}`,
      matchers: [
        { type: LabelMatcher_Type.EQ, name: '__name__', value: 'node_cpu_seconds_total' },
        { type: LabelMatcher_Type.EQ, name: 'instance', value: host },
      ],
    },
    {
      query: 'wide',
      text: '{__name__=~"node_cpu_.*", mode!="idle"}',
      matchers: [
        { type: LabelMatcher_Type.RE, name: '__name__', value: 'node_cpu_.*' },
        { type: LabelMatcher_Type.NEQ, name: 'mode', value: 'idle' },
      ],
    },
  ];
}

function writeResults(section: string): void {
  const path = join(root, 'bench/RESULTS.md');
  const current = readFileSync(path, 'utf8');
  const firstSection = current.indexOf('\n## ');
  const next = firstSection < 0 ? `${current.trimEnd()}\n\n${section}` : `${current.slice(0, firstSection + 1)}${section}\n${current.slice(firstSection + 1)}`;
  writeFileSync(path, next);
}

function report(load: EncodedLoad, ingests: Ingest[], allReads: Read[], cases: ReadCase[], encodeSeconds: number, load0: number): string {
  const by = (n: PeerName) => ingests.find((i) => i.peer.name === n);
  const strata = by('strata');
  const prom = by('prometheus');
  const vm = by('victoriametrics');
  const samples = load.samples;
  const samplesSeries = load.series;
  const verdict = (ok: boolean) => (ok ? 'met' : 'not met');
  const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? 'n/a' : `${(a / b).toFixed(2)}x`);
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';

  const ingestRows = ingests.map((i) => `| ${i.peer.title} | ${i.peer.version.replace(/\|/g, '/')} | ${fmt(i.samplesPerSecond)} | ${fmt(i.seconds, 1)} | ${fmt(i.serverCpuSeconds, 1)} | ${fmt((i.serverCpuSeconds / samples) * 1e6, 2)} | ${mb(i.peakRss)} | ${mb(i.rssAfter.anon)} / ${mb(i.rssAfter.file)} | ${fmt(i.p50Ms, 1)} / ${fmt(i.p99Ms, 1)} | ${fmt(i.clientCpuSeconds, 1)} | ${fmt(i.otherCpuSeconds, 1)} | ${i.stored === undefined ? 'n/a' : i.stored.series === samplesSeries && i.stored.samples === samples ? 'all' : `${fmt(i.stored.series)} series, ${fmt(i.stored.samples)} samples`} |`);
  const diskRows: string[] = [];
  for (const i of ingests) {
    const d = i.disk;
    if (d === undefined) continue;
    diskRows.push(`| ${i.peer.title} | after stop: ${d.persistedWhat} | ${mb(d.persisted.allocated)} | ${fmt(perSample(d.persisted, samples), 2)} |`);
    if (d.chunks !== undefined) diskRows.push(`| ${i.peer.title} | after stop, sample data only: ${d.chunksWhat} | ${mb(d.chunks.allocated)} | ${fmt(perSample(d.chunks, samples), 2)} |`);
    if (d.block !== undefined) {
      diskRows.push(`| ${i.peer.title} | snapshot block (head written as a block): chunks | ${mb(d.block.chunks.allocated)} | ${fmt(perSample(d.block.chunks, samples), 2)} |`);
      diskRows.push(`| ${i.peer.title} | snapshot block: chunks + index | ${mb(d.block.chunks.allocated + d.block.index.allocated)} | ${fmt((d.block.chunks.allocated + d.block.index.allocated) / samples, 2)} |`);
    }
  }
  const walOnly = ingests
    .filter((i) => i.disk?.chunks !== undefined && i.disk.chunks.allocated < 0.01 * i.disk.persisted.allocated)
    .map((i) => i.peer.title);
  const readRows = allReads.map((r) => {
    const other = allReads.find((o) => o.peer !== r.peer && o.query === r.query && o.type === r.type);
    const vsProm = r.peer === 'strata' && other !== undefined ? ` (${(other.medianMs / r.medianMs).toFixed(2)}x Prometheus' speed)` : '';
    return `| ${r.query} | ${typeName(r.type)} | ${peerTitle(r.peer)} | ${fmt(r.answer.series)} | ${fmt(r.answer.samples)} | ${mb(r.answer.bytes)} | ${fmt(r.medianMs, 1)}${vsProm} | ${fmt(r.maxMs, 1)} | ${r.rounds} |`;
  });
  const agree = cases.flatMap((c) => [ReadRequest_ResponseType.STREAMED_XOR_CHUNKS, ReadRequest_ResponseType.SAMPLES].map((t) => {
    const s = allReads.find((r) => r.peer === 'strata' && r.query === c.query && r.type === t);
    const p = allReads.find((r) => r.peer === 'prometheus' && r.query === c.query && r.type === t);
    if (s === undefined || p === undefined) return undefined;
    return s.answer.series === p.answer.series && s.answer.samples === p.answer.samples ? undefined : `${c.query} ${typeName(t)}: Strata ${s.answer.series} series / ${s.answer.samples} samples, Prometheus ${p.answer.series} / ${p.answer.samples}`;
  })).filter((x) => x !== undefined);

  const targets: string[] = [];
  if (strata && prom) targets.push(`| ingestion at least 2x Prometheus | ${verdict(strata.samplesPerSecond >= 2 * prom.samplesPerSecond)}: ${ratio(strata.samplesPerSecond, prom.samplesPerSecond)} |`);
  if (strata && vm) targets.push(`| ingestion at least 0.5x VictoriaMetrics | ${verdict(strata.samplesPerSecond >= 0.5 * vm.samplesPerSecond)}: ${ratio(strata.samplesPerSecond, vm.samplesPerSecond)} |`);
  if (strata?.disk && prom?.disk) {
    const s = perSample(strata.disk.persisted, samples);
    const p = perSample(prom.disk.persisted, samples);
    targets.push(`| disk bytes per sample after stop no more than Prometheus' after stop | ${verdict(s <= p)}: ${fmt(s, 2)} vs ${fmt(p, 2)} (${ratio(s, p)}) |`);
    const block = prom.disk.block;
    if (block !== undefined) {
      const pb = (block.chunks.allocated + block.index.allocated) / samples;
      targets.push(`| disk bytes per sample after stop no more than Prometheus' block (chunks + index) | ${verdict(s <= pb)}: ${fmt(s, 2)} vs ${fmt(pb, 2)} (${ratio(s, pb)}) |`);
    }
  }

  const ratios: string[] = [];
  if (strata && prom) ratios.push(`Strata/Prometheus: samples/s ${ratio(strata.samplesPerSecond, prom.samplesPerSecond)}, server CPU per sample ${ratio(strata.serverCpuSeconds, prom.serverCpuSeconds)}, peak RSS ${ratio(strata.peakRss, prom.peakRss)}`);
  if (strata && vm) ratios.push(`Strata/VictoriaMetrics: samples/s ${ratio(strata.samplesPerSecond, vm.samplesPerSecond)}, server CPU per sample ${ratio(strata.serverCpuSeconds, vm.serverCpuSeconds)}, peak RSS ${ratio(strata.peakRss, vm.peakRss)}`);

  return `## Remote write and read side by side — ${new Date().toISOString().slice(0, 10)}

- Machine: ${cpus().length} cores (${cpu}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}; load average ${load0.toFixed(2)} at the start (other sessions' work; see below).
- Command: \`npm run bench:compare\` (BENCH_SERIES=${SERIES} BENCH_SAMPLES=${SAMPLES} BENCH_PER_REQUEST=${PER_REQUEST} BENCH_IN_FLIGHT=${IN_FLIGHT}).
- Load (bench/load/): ${fmt(load.series)} node_exporter-like series (${SERIES_PER_HOST} a host: counters, gauges, constants;
  __name__, instance, job, cpu, mode, device, fstype, mountpoint, ...) x ${load.scrapes} samples 15 s apart = ${fmt(samples)} samples,
  scrape by scrape (every request of scrape i answered before scrape i+1 starts), ${PER_REQUEST} series a request
  (${load.requests[0]?.length ?? 0} a scrape), ${IN_FLIGHT} in flight on keep-alive connections; snappy protobuf WriteRequests,
  ${fmt(load.compressedBytes / 2 ** 20, 0)} MiB compressed (${fmt(load.rawBytes / 2 ** 20, 0)} MiB raw), all encoded before the first server
  started (${fmt(encodeSeconds, 1)} s), the same bytes for every server. Generator and server share the ${cpus().length} cores.
- Servers, one after another, each on a fresh temporary directory, defaults otherwise: ${ingests.map((i) => `${i.peer.title} (${i.peer.version})`).join('; ')}.
  Strata: \`strata serve\`, workers = cores, WAL fsync every 1 s. VictoriaMetrics: single node, -retentionPeriod=1y.
  Prometheus: no scrape targets, --web.enable-remote-write-receiver.
- Acknowledgement differs: Strata answers once the WAL record is written to the OS; Prometheus once its WAL
  record is written (page-buffered); VictoriaMetrics once the samples are buffered in memory (flushed about every second).
- CPU: utime + stime of the server process (all threads) from /proc/PID/stat over the sending; peak RSS: VmHWM;
  RSS after: RssAnon / RssFile + RssShmem right after the last write (heaps versus mapped files);
  generator: this process' CPU while sending; other: the machine's busy time (/proc/stat) less both, i.e. whatever
  else ran meanwhile (near 0 on a quiet machine). Held afterwards: every series and sample counted back, untimed
  (remote read of all series for Strata and Prometheus, count_over_time for VictoriaMetrics).
- Before each server the run waits (up to ${QUIET_WAIT_SECONDS} s) for a quiet machine; a server whose load was disturbed
  by other work (over ${CLEAN_SHARE * 100}% of the machine) is run again, up to ${ATTEMPTS} times, and the cleanest run is shown.

| server | version | samples/s | seconds | server CPU s | CPU µs/sample | peak RSS | RSS after: anon / file | request p50 / p99 ms | generator CPU s | other CPU s | held afterwards |
|---|---|---|---|---|---|---|---|---|---|---|---|
${ingestRows.join('\n')}

${ratios.length > 0 ? ratios.map((r) => `- ${r}`).join('\n') : '- (ratios need Strata and a peer in the same run)'}

Disk, allocated bytes (as du counts) once the data is persisted: after a graceful stop (SIGTERM) for all three
(VictoriaMetrics also told to flush first). Each server's own files for this data only: Strata's records/ (JSON
resources) and lock, Prometheus' lock, queries.active and snapshots/, VictoriaMetrics' cache/ and lock are left out.
Prometheus' compacted form of the same data is measured with a snapshot (POST /api/v1/admin/tsdb/snapshot
writes the head as a block, chunks + index, before the stop); Strata has no blocks yet.

| server | what is counted | bytes | bytes/sample |
|---|---|---|---|
${diskRows.join('\n')}
${walOnly.length > 0 ? `\nAfter the stop, ${walOnly.join(' and ')} held the samples in the WAL only (${walOnly.length > 1 ? 'their' : 'its'} chunks_head nearly empty): a chunk is cut when\nthe sample after its 120th arrives, and a stop does not cut open chunks.\n` : ''}
Remote read over the whole range, Strata and Prometheus (on its own data, after the same load); VictoriaMetrics
does not serve remote read. Selective: \`${cases[0]!.text}\`; wide: \`${cases[1]!.text}\`.
Latency: request sent to last byte received, after one warm-up, up to ${READ_ROUNDS.selective} (selective) / ${READ_ROUNDS.wide} (wide) rounds or ${READ_SECONDS} s.
Samples for chunked answers are those the whole chunks hold.

| query | response type | server | series | samples | bytes | median ms | max ms | rounds |
|---|---|---|---|---|---|---|---|---|
${readRows.join('\n')}

${agree.length === 0 ? 'Strata and Prometheus answered the same series and sample counts for every read.' : `Answers differed: ${agree.join('; ')}.`}

| target | result |
|---|---|
${targets.join('\n')}
`;
}

async function main(): Promise<void> {
  checkSetup();
  const load0 = loadavg()[0]!;
  const cat = nodeExporterCatalogue(SERIES);
  const start = loadStart();
  const t0 = Date.now();
  const load = encodeLoad(cat, {
    start,
    scrapes: SAMPLES,
    perRequest: PER_REQUEST,
    onScrape: (s) => progress.update('encode', `scrape ${s + 1}/${SAMPLES}`),
  });
  const encodeSeconds = (Date.now() - t0) / 1000;
  progress.log(`load: ${fmt(load.series)} series (${cat.hosts} hosts) x ${load.scrapes} samples = ${fmt(load.samples)} samples, ${load.requests[0]?.length ?? 0} requests a scrape, ${mb(load.compressedBytes)} compressed, encoded in ${fmt(encodeSeconds, 1)} s`);
  const cases = readCases(cat.hosts);
  const parent = mkdtempSync(join(tmpdir(), 'strata-bench-compare-'));
  parentDir = parent;
  const ingests: Ingest[] = [];
  const allReads: Read[] = [];
  try {
    for (const name of PEERS) {
      let best: Awaited<ReturnType<typeof runPeer>> | undefined;
      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        const r = await runPeer(name, parent, load, cases);
        if (best === undefined || r.ingest.otherCpuSeconds < best.ingest.otherCpuSeconds) best = r;
        const share = r.ingest.otherCpuSeconds / (r.ingest.seconds * cpus().length);
        if (share < CLEAN_SHARE) break;
        progress.log(`${peerTitle(name)}: other work took ${fmt(share * 100)}% of the machine during the load${attempt < ATTEMPTS ? '; running it again' : '; keeping the cleanest run'}`);
      }
      ingests.push(best!.ingest);
      allReads.push(...best!.reads);
    }
  } finally {
    await stopAll();
    rmSync(parent, { recursive: true, force: true });
  }
  const section = report(load, ingests, allReads, cases, encodeSeconds, load0);
  progress.log(`\n${section}`);
  if (WRITE_RESULTS) {
    writeResults(section);
    progress.log('written to bench/RESULTS.md');
  }
}

process.once('SIGINT', () => void stopAll().then(() => {
  if (parentDir !== undefined) rmSync(parentDir, { recursive: true, force: true });
  process.exit(130);
}));
try {
  await main();
} catch (err) {
  await stopAll();
  console.error((err as Error).message);
  process.exitCode = 1;
}
