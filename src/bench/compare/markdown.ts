/**
 * The comparison as a markdown section, the form bench/RESULTS.md keeps:
 * the machine and method, one row per server (samples/s, CPU, memory,
 * latency, what it held afterwards), issue 14's targets side by side
 * (targets.ts), disk per sample, remote reads, and the older targets.
 */
import { cpus, totalmem } from 'node:os';
import { ReadRequest_ResponseType } from '../../gen/prometheus/remote.js';
import type { EncodedPlan } from '../load/plan.js';
import { SERIES_PER_HOST } from '../load/node-exporter.js';
import { fmt, mib as mb } from '../run/format.js';
import type { DiskUse } from './disk.js';
import type { CompareConfig } from './options.js';
import { peerTitle, type PeerName } from './peers.js';
import { typeName, type Ingest, type Read, type ReadCase } from './run-peer.js';
import { targetsTable, type PeerFigures } from './targets.js';

/** Clean: other work took less than this share of the machine's CPU time during the load. */
export const CLEAN_SHARE = 0.05;
/** Rounds per read case (after one warm-up), bounded by the read time too (run-peer.ts). */
const READ_ROUNDS = { selective: 50, wide: 10 };

export interface SectionInput {
  plan: EncodedPlan;
  profile: string;
  config: CompareConfig;
  ingests: Ingest[];
  reads: Read[];
  cases: ReadCase[];
  encodeSeconds: number;
  /** The 1-minute load average at the start. */
  load0: number;
  /** The words after `strata bench`. */
  command: string[];
  /** How the command was run, when not by hand (e.g. "npm run bench:compare"). */
  via?: string;
}

const perSample = (u: DiskUse | undefined, samples: number): number => (u === undefined ? NaN : u.allocated / samples);

/** Server CPU µs a sample written during a server's load. */
export function cpuMicrosPerSample(i: Ingest): number {
  return (i.serverCpuSeconds / Math.max(1, i.sent.samplesWritten)) * 1e6;
}

/**
 * Strata over gRPC against Strata over HTTP, when both ran: the ratio
 * gRPC/HTTP of samples/s and of server CPU a sample (over 1 is more CPU).
 */
export function grpcRatio(ingests: readonly Ingest[]): string | undefined {
  const http = ingests.find((i) => i.peer.name === 'strata');
  const grpc = ingests.find((i) => i.peer.name === 'strata-grpc');
  if (http === undefined || grpc === undefined) return undefined;
  return `Strata gRPC/HTTP: samples/s ${(grpc.samplesPerSecond / http.samplesPerSecond).toFixed(2)}x (${fmt(grpc.samplesPerSecond)} vs ${fmt(http.samplesPerSecond)}),`
    + ` server CPU per sample ${(cpuMicrosPerSample(grpc) / cpuMicrosPerSample(http)).toFixed(2)}x (${fmt(cpuMicrosPerSample(grpc), 2)} vs ${fmt(cpuMicrosPerSample(http), 2)} µs)`;
}

/** The comparison as a markdown section (bench/RESULTS.md's form). */
export function markdownSection(x: SectionInput): string {
  const { plan: load, ingests, reads: allReads, cases, encodeSeconds, load0, config } = x;
  const by = (n: PeerName) => ingests.find((i) => i.peer.name === n);
  const strata = by('strata');
  const prom = by('prometheus');
  const vm = by('victoriametrics');
  const samples = load.totalSamples + load.totalHistograms;
  const samplesSeries = load.seriesCreated;
  const verdict = (ok: boolean) => (ok ? 'met' : 'not met');
  const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? 'n/a' : `${(a / b).toFixed(2)}x`);
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';

  const ingestRows = ingests.map((i) => `| ${i.peer.title} | ${i.peer.version.replace(/\|/g, '/')} | ${fmt(i.samplesPerSecond)} | ${fmt(i.seconds, 1)} | ${fmt(i.serverCpuSeconds, 1)} | ${fmt(cpuMicrosPerSample(i), 2)} | ${mb(i.idleRss)} | ${mb(i.peakRss)} | ${mb(i.rssAfter.anon)} / ${mb(i.rssAfter.file)} | ${i.settledRss === undefined ? 'n/a' : mb(i.settledRss)} | ${fmt(i.recorder.latency.quantile(0.5), 1)} / ${fmt(i.recorder.latency.quantile(0.99), 1)} | ${fmt(i.clientCpuSeconds, 1)} | ${fmt(i.otherCpuSeconds, 1)} | ${i.stored === undefined ? 'n/a' : i.stored.series === samplesSeries && i.stored.samples === i.sent.samplesWritten && i.sent.samplesWritten === samples ? 'all' : `${fmt(i.stored.series)} series, ${fmt(i.stored.samples)} samples`} |`);
  const diskRows: string[] = [];
  for (const i of ingests) {
    const d = i.disk;
    if (d === undefined) continue;
    const written = Math.max(1, i.sent.samplesWritten);
    diskRows.push(`| ${i.peer.title} | after stop: ${d.persistedWhat} | ${mb(d.persisted.allocated)} | ${fmt(perSample(d.persisted, written), 2)} |`);
    if (d.chunks !== undefined) diskRows.push(`| ${i.peer.title} | after stop, sample data only: ${d.chunksWhat} | ${mb(d.chunks.allocated)} | ${fmt(perSample(d.chunks, written), 2)} |`);
    if (d.block !== undefined) {
      diskRows.push(`| ${i.peer.title} | snapshot block (head written as a block): chunks | ${mb(d.block.chunks.allocated)} | ${fmt(perSample(d.block.chunks, written), 2)} |`);
      diskRows.push(`| ${i.peer.title} | snapshot block: chunks + index | ${mb(d.block.chunks.allocated + d.block.index.allocated)} | ${fmt((d.block.chunks.allocated + d.block.index.allocated) / written, 2)} |`);
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

  const figures = ingests.map((i): PeerFigures => ({
    name: i.peer.name,
    samplesPerSecond: i.samplesPerSecond,
    cpuMicrosecondsPerSample: cpuMicrosPerSample(i),
    peakRssBytes: i.peakRss,
    idleRssBytes: i.idleRss,
    settledRssBytes: i.settledRss,
    responsiveness: i.responsiveness,
  }));
  const responsivenessNotes = ingests.flatMap((i) => i.responsiveness.notes.map((n) => `${i.peer.title}: ${n}`));
  const overGrpc = grpcRatio(ingests);

  return `## Remote write and read side by side — ${new Date().toISOString().slice(0, 10)}

- Machine: ${cpus().length} cores (${cpu}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}; load average ${load0.toFixed(2)} at the start (other sessions' work; see below).
- Command: \`strata bench ${x.command.join(' ')}\`${x.via === undefined ? '' : ` (${x.via})`}.
- Load (\`--profile ${x.profile}\`): ${fmt(load.series)} series${x.profile === 'node-exporter' ? ` (${SERIES_PER_HOST} a host: counters, gauges, constants;
  __name__, instance, job, cpu, mode, device, fstype, mountpoint, ...)` : ''} x ${load.scrapes} samples ${fmt(config.intervalMs / 1000)} s apart = ${fmt(samples)} samples${load.totalHistograms > 0 ? ` (${fmt(load.totalHistograms)} native histograms)` : ''},
  in time order per series (a request is sent once the one with the same series' previous samples was answered), ${config.perRequest} series a request
  (${load.groups} a scrape), ${config.concurrency} in flight on keep-alive connections${config.rate > 0 ? `, aiming at ${fmt(config.rate)} samples/s` : ', as fast as each server takes them'}; snappy protobuf WriteRequests,
  ${fmt(load.compressedBytes / 2 ** 20, 0)} MiB compressed (${fmt(load.rawBytes / 2 ** 20, 0)} MiB raw), all encoded before the first server
  started (${fmt(encodeSeconds, 1)} s), the same bytes for every server. Generator and server share the ${cpus().length} cores.
- Servers, one after another, each on a fresh temporary directory, defaults otherwise: ${ingests.map((i) => `${i.peer.title} (${i.peer.version})`).join('; ')}.
${by('strata-grpc') === undefined ? '' : `  Strata (gRPC): the same server, sent the same requests as thanos.WriteableStore/RemoteWrite calls (Thanos WriteRequests,
  ${config.grpcCompression === 'snappy' ? 'compressed with gRPC\'s "snappy" (Go\'s snappy framing format), as a Thanos Receive router sends them by default' : `uncompressed protobuf: ${mb(load.rawBytes)}`}), ${config.concurrency} calls in flight on one HTTP/2 connection.
`}  Strata: \`strata serve\`, workers = cores, WAL fsync every 1 s. VictoriaMetrics: single node, -retentionPeriod=1y.
  Prometheus: no scrape targets, --web.enable-remote-write-receiver.
- Acknowledgement differs: Strata answers once the WAL record is written to the OS; Prometheus once its WAL
  record is written (page-buffered); VictoriaMetrics once the samples are buffered in memory (flushed about every second).
- CPU: utime + stime of the server process (all threads) from /proc/PID/stat over the sending (answering the readiness
  probe's 10 GETs a second included); peak RSS: VmHWM;
  RSS after: RssAnon / RssFile + RssShmem right after the last write (heaps versus mapped files); idle RSS: VmRSS
  3 s after the server was ready, before any load; RSS settled: VmRSS 40 s after the load (longer than Strata keeps
  an idle worker) once the server's own CPU is below 5% of a core;
  generator: this process' CPU while sending; other: the machine's busy time (/proc/stat) less both, i.e. whatever
  else ran meanwhile (near 0 on a quiet machine). Held afterwards: every series and sample counted back, untimed
  (remote read of all series for Strata and Prometheus, count_over_time for VictoriaMetrics).
- Before each server the run waits (up to ${fmt(config.quietWaitMs / 1000)} s) for a quiet machine; a server whose load was disturbed
  by other work (over ${CLEAN_SHARE * 100}% of the machine) is run again, up to ${config.attempts} times, and the cleanest run is shown.

| server | version | samples/s | seconds | server CPU s | CPU µs/sample | idle RSS | peak RSS | RSS after: anon / file | RSS settled | request p50 / p99 ms | generator CPU s | other CPU s | held afterwards |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${ingestRows.join('\n')}

Issue 14's targets, side by side. Readiness: a GET every 100 ms during the load on a connection of its own
(Strata and Prometheus /-/ready, VictoriaMetrics /health), request start to last byte, from the generator's
process. Event-loop delay: the server's own prom-client gauges (nodejs_eventloop_lag_p99_seconds and _max_),
scraped right before and right after the load (prom-client resets them at every scrape); they are intervals of a
10 ms timer, so an idle loop shows about 10 ms. Go servers (VictoriaMetrics, Prometheus) have no event loop: n/a.

${targetsTable(figures)}
${overGrpc === undefined ? '' : `\n- ${overGrpc}\n`}${responsivenessNotes.length > 0 ? `\n${responsivenessNotes.map((n) => `- ${n}`).join('\n')}\n` : ''}
Disk, allocated bytes (as du counts) once the data is persisted: after a graceful stop (SIGTERM) for all three
(VictoriaMetrics also told to flush first). Each server's own files for this data only: Strata's records/ (JSON
resources) and lock, Prometheus' lock, queries.active and snapshots/, VictoriaMetrics' cache/ and lock are left out.
Prometheus' compacted form of the same data is measured with a snapshot (POST /api/v1/admin/tsdb/snapshot
writes the head as a block, chunks + index, before the stop); Strata cuts a block only once its head spans 1.5 block ranges.

| server | what is counted | bytes | bytes/sample |
|---|---|---|---|
${diskRows.join('\n')}
${walOnly.length > 0 ? `\nAfter the stop, ${walOnly.join(' and ')} held the samples in the WAL only (${walOnly.length > 1 ? 'their' : 'its'} chunks_head nearly empty): a chunk is cut when\nthe sample after its 120th arrives, and a stop does not cut open chunks.\n` : ''}
Remote read over the whole range, Strata and Prometheus (on its own data, after the same load); VictoriaMetrics
does not serve remote read. Selective: \`${cases[0]!.text}\`; wide: \`${cases[1]!.text}\`.
Latency: request sent to last byte received, after one warm-up, up to ${READ_ROUNDS.selective} (selective) / ${READ_ROUNDS.wide} (wide) rounds or ${fmt(config.readMs / 1000)} s.
Samples for chunked answers are those the whole chunks hold.

| query | response type | server | series | samples | bytes | median ms | max ms | rounds |
|---|---|---|---|---|---|---|---|---|
${readRows.join('\n')}

${strata === undefined || prom === undefined ? '' : agree.length === 0 ? 'Strata and Prometheus answered the same series and sample counts for every read.' : `Answers differed: ${agree.join('; ')}.`}

| target | result |
|---|---|
${targets.join('\n')}
`;
}

