/**
 * One server of the comparison: start it on a fresh directory, send it the
 * load (measured: samples/s, latency, its CPU, peak and final RSS, and the
 * CPU anything else on the machine took meanwhile), count what it holds
 * afterwards (untimed), time the remote reads, stop it gracefully and
 * measure its disk. Every wait is bounded; the child is always stopped.
 */
import { rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { ReadRequest_ResponseType } from '../../gen/prometheus/remote.js';
import { LabelMatcher_Type, type LabelMatcher } from '../../gen/prometheus/types.js';
import type { Catalogue } from '../load/catalogue.js';
import { instanceOf } from '../load/node-exporter.js';
import type { EncodedPlan } from '../load/plan.js';
import { grpcWriteBodies, type GrpcCompression } from '../remote-write/grpc-frames.js';
import { isGrpcUrl, sendPlan, type SendResult } from '../remote-write/sender.js';
import { LiveProgress } from '../run/live.js';
import { bucketMsFor, Recorder } from '../run/recorder.js';
import type { Responsiveness } from '../report/schema.js';
import { ResponsivenessWatch } from '../run/responsiveness.js';
import type { RunStop } from '../run/stop.js';
import { fmt, mib } from '../run/format.js';
import type { Progress } from '../run/progress.js';
import { startPeer, peerTitle, type DiskReport, type Peer, type PeerName } from './peers.js';
import { cpuSeconds, machineBusySeconds, peakRssBytes, rssBytes, rssSplit } from './proc.js';
import { remoteRead, type ReadAnswer } from './remote-read.js';

const REQUEST_TIMEOUT_MS = 120_000;
/** Rounds per read case (after one warm-up), bounded by the read time too. */
const READ_ROUNDS = { selective: 50, wide: 10 };
/** Quiet: the machine busy less than this share of one core over a 2 s sample. */
const QUIET_CORE_SHARE = 0.15;
/** A server started this long ago, with nothing sent yet, is idle: its RSS then is its idle RSS. */
const IDLE_AFTER_MS = 3_000;
/**
 * After the load, RSS is read once this long has passed and the server's
 * own CPU settled (below SETTLED_CORE_SHARE of a core over 2 s, waiting at
 * most SETTLE_MAX_MS more): longer than Strata's pool keeps an idle worker
 * (30 s), as long as VictoriaMetrics and Prometheus get to give memory back.
 */
const SETTLE_MS = 40_000;
const SETTLED_CORE_SHARE = 0.05;
const SETTLE_MAX_MS = 30_000;

export interface Ingest {
  peer: Peer;
  recorder: Recorder;
  sent: SendResult;
  stoppedBy: 'duration' | 'load-sent' | 'interrupt' | 'requests';
  samplesPerSecond: number;
  seconds: number;
  serverCpuSeconds: number;
  clientCpuSeconds: number;
  /** CPU the machine spent on anything else meanwhile (busy time less server and generator). */
  otherCpuSeconds: number;
  peakRss: number;
  /** RSS of the started server before any load (IDLE_AFTER_MS after it was ready). */
  idleRss: number;
  /** RSS once the load had stopped and the server's CPU settled (SETTLE_MS); undefined if interrupted. */
  settledRss?: number;
  /** Readiness probes and event-loop delay during the load. */
  responsiveness: Responsiveness;
  /** Resident memory right after the load: anonymous (heaps) and file-backed or shared (maps, code). */
  rssAfter: { anon: number; file: number };
  /** What the server holds afterwards, as counted by a read (not timed). */
  stored?: { series: number; samples: number; how: string };
  disk?: DiskReport;
}

export interface ReadCase {
  query: 'selective' | 'wide';
  matchers: LabelMatcher[];
  text: string;
}

export interface Read {
  peer: PeerName;
  query: ReadCase['query'];
  type: ReadRequest_ResponseType;
  rounds: number;
  medianMs: number;
  maxMs: number;
  answer: ReadAnswer;
}

export interface PeerContext {
  parent: string;
  /** --max-encoded: also the bound of a gRPC peer's calls. */
  maxEncodedBytes: number;
  /** How a gRPC peer's calls are compressed. */
  grpcCompression: GrpcCompression;
  plan: EncodedPlan;
  cases: ReadCase[];
  concurrency: number;
  rate: number;
  durationMs: number;
  readMs: number;
  quietWaitMs: number;
  progressIntervalMs: number;
  progress: Progress;
  /** A fresh stop for one server's load (already stopped after Ctrl-C). */
  newStop: () => RunStop;
  /** Whether Ctrl-C was pressed. */
  interrupted: () => boolean;
}

export function typeName(t: ReadRequest_ResponseType): string {
  return t === ReadRequest_ResponseType.SAMPLES ? 'SAMPLES' : 'STREAMED_XOR_CHUNKS';
}

async function ingest(peer: Peer, x: PeerContext, idleRss: number): Promise<Ingest> {
  const url = new URL(peer.writeUrl);
  // A gRPC peer's calls are made from the plan before its clock and its CPU count start.
  const grpcBodies = isGrpcUrl(url) ? grpcWriteBodies(x.plan.requests, undefined, x.maxEncodedBytes, x.grpcCompression) : undefined;
  const headers: Record<string, string> = grpcBodies !== undefined && x.grpcCompression === 'snappy' ? { 'grpc-encoding': 'snappy' } : {};
  // The watch's checks and first scrape come before the CPU is counted, its last scrape after.
  const watch = await ResponsivenessWatch.begin({ readyUrl: new URL(peer.readyUrl), metricsUrl: new URL(peer.metricsUrl), durationMs: x.durationMs });
  const cpu0 = cpuSeconds(peer.child.pid);
  const busy0 = machineBusySeconds();
  const client0 = process.cpuUsage();
  const recorder = new Recorder(bucketMsFor(x.durationMs));
  const live = new LiveProgress({ phase: `${peer.title} write`, recorder, unit: 'samples', total: x.plan.requests.length, durationMs: x.durationMs, plainEveryMs: x.progressIntervalMs });
  const stop = x.newStop();
  stop.deadline(x.durationMs);
  live.start();
  let sent: SendResult;
  try {
    sent = await sendPlan(x.plan, { url, headers, concurrency: x.concurrency, rate: x.rate, timeoutMs: REQUEST_TIMEOUT_MS, retries: 3, recorder, stop, ...(grpcBodies === undefined ? {} : { grpcBodies }) });
  } catch (err) {
    await watch.end();
    throw err;
  } finally {
    stop.dispose();
    live.stop();
  }
  const serverCpuSeconds = cpuSeconds(peer.child.pid) - cpu0;
  const busy = machineBusySeconds() - busy0;
  const client = process.cpuUsage(client0);
  const clientCpuSeconds = (client.user + client.system) / 1e6;
  const seconds = Math.max(1e-3, (recorder.last - recorder.t0) / 1000);
  const peakRss = peakRssBytes(peer.child.pid);
  const rssAfter = rssSplit(peer.child.pid);
  return {
    peer,
    recorder,
    sent,
    stoppedBy: stop.reason ?? 'load-sent',
    samplesPerSecond: sent.samplesWritten / seconds,
    seconds,
    serverCpuSeconds,
    clientCpuSeconds,
    otherCpuSeconds: Math.max(0, busy - serverCpuSeconds - clientCpuSeconds),
    peakRss,
    idleRss,
    rssAfter,
    responsiveness: await watch.end(),
  };
}

async function reads(peer: Peer, x: PeerContext): Promise<Read[]> {
  const out: Read[] = [];
  for (const c of x.cases) {
    for (const type of [ReadRequest_ResponseType.STREAMED_XOR_CHUNKS, ReadRequest_ResponseType.SAMPLES]) {
      if (x.interrupted()) return out;
      const label = `${peer.title} read ${c.query} ${typeName(type)}`;
      const first = await remoteRead(peer.readUrl!, c.matchers, x.plan.minTime, x.plan.maxTime, type, REQUEST_TIMEOUT_MS); // warm-up
      const times: number[] = [];
      const deadline = Date.now() + x.readMs;
      let answer = first;
      while (times.length < READ_ROUNDS[c.query] && Date.now() < deadline && !x.interrupted()) {
        answer = await remoteRead(peer.readUrl!, c.matchers, x.plan.minTime, x.plan.maxTime, type, REQUEST_TIMEOUT_MS);
        times.push(answer.ms);
        x.progress.update(label, `round ${times.length}, ${fmt(answer.ms, 1)} ms, ${fmt(answer.series)} series`);
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
async function stored(peer: Peer, plan: EncodedPlan): Promise<NonNullable<Ingest['stored']>> {
  if (peer.readUrl !== undefined) {
    const all = await remoteRead(peer.readUrl, [{ type: LabelMatcher_Type.RE, name: '__name__', value: '.+' }], plan.minTime, plan.maxTime, ReadRequest_ResponseType.STREAMED_XOR_CHUNKS, REQUEST_TIMEOUT_MS);
    return { series: all.series, samples: all.samples, how: 'remote read of {__name__=~".+"}' };
  }
  // Freshly written samples become searchable once flushed (about a second; force it).
  await (await fetch(`${peer.base}/internal/force_flush`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })).arrayBuffer();
  const time = (plan.maxTime / 1000 + 1).toFixed(3);
  const hours = Math.ceil((plan.maxTime - plan.minTime) / 3_600_000) + 1;
  const ask = async (q: string): Promise<number> => {
    const res = await fetch(`${peer.base}/api/v1/query?${new URLSearchParams({ query: q, time })}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const body = (await res.json()) as { data?: { result?: Array<{ value: [number, string] }> } };
    return Number(body.data?.result?.[0]?.value[1] ?? NaN);
  };
  return {
    series: await ask(`count(last_over_time({__name__=~".+"}[${hours}h]))`),
    samples: await ask(`sum(count_over_time({__name__=~".+"}[${hours}h]))`),
    how: 'PromQL count_over_time',
  };
}

/** Waits (bounded) until nothing else keeps the machine busy; says so when it gives up. */
export async function waitForQuiet(phase: string, x: PeerContext): Promise<void> {
  if (x.quietWaitMs <= 0) return;
  const deadline = Date.now() + x.quietWaitMs;
  while (!x.interrupted()) {
    const b0 = machineBusySeconds();
    await sleep(2000);
    const share = (machineBusySeconds() - b0) / 2;
    if (share < QUIET_CORE_SHARE) return;
    if (Date.now() > deadline) {
      x.progress.log(`${phase}: the machine is still busy (${fmt(share * 100)}% of a core) after ${fmt(x.quietWaitMs / 1000)} s; going on (see the "other CPU" column)`);
      return;
    }
    x.progress.update(phase, `waiting for a quiet machine (busy ${fmt(share * 100)}% of a core)`);
  }
}

/** The server's RSS once SETTLE_MS have passed since its load and its own CPU settled; undefined if interrupted. */
async function settledRss(peer: Peer, x: PeerContext): Promise<number | undefined> {
  const pid = peer.child.pid;
  const until = Date.now() + SETTLE_MS;
  while (Date.now() < until) {
    if (x.interrupted()) return undefined;
    x.progress.update(`${peer.title} settle`, `RSS ${mib(rssBytes(pid))}, read in ${fmt((until - Date.now()) / 1000)} s`);
    await sleep(Math.min(2000, Math.max(0, until - Date.now())));
  }
  const deadline = Date.now() + SETTLE_MAX_MS;
  for (;;) {
    const c0 = cpuSeconds(pid);
    await sleep(2000);
    if (x.interrupted()) return undefined;
    if ((cpuSeconds(pid) - c0) / 2 < SETTLED_CORE_SHARE || Date.now() > deadline) return rssBytes(pid);
  }
}

/** The share of the machine other work took during a server's load. */
export function otherShare(i: Ingest): number {
  return i.otherCpuSeconds / (i.seconds * cpus().length);
}

export async function runPeer(name: PeerName, x: PeerContext): Promise<{ ingest: Ingest; reads: Read[] }> {
  await waitForQuiet(`${peerTitle(name)} start`, x);
  x.progress.update(`${peerTitle(name)} start`, 'starting');
  const peer = await startPeer(name, x.parent);
  try {
    x.progress.log(`${peer.title}: ${peer.version}, pid ${peer.child.pid}, ${peer.base}`);
    await sleep(IDLE_AFTER_MS);
    const result = await ingest(peer, x, rssBytes(peer.child.pid));
    x.progress.log(`${peer.title}: ${fmt(result.samplesPerSecond)} samples/s (${fmt(result.seconds, 1)} s), server CPU ${fmt(result.serverCpuSeconds, 1)} s, generator ${fmt(result.clientCpuSeconds, 1)} s, other ${fmt(result.otherCpuSeconds, 1)} s, peak RSS ${mib(result.peakRss)}`);
    if (x.interrupted()) return { ingest: result, reads: [] };
    const settled = await settledRss(peer, x);
    if (settled !== undefined) result.settledRss = settled;
    x.progress.log(`${peer.title}: RSS idle ${mib(result.idleRss)}, peak ${mib(result.peakRss)}, settled ${settled === undefined ? 'n/a' : mib(settled)}`);
    if (x.interrupted()) return { ingest: result, reads: [] };
    x.progress.update(`${peer.title} check`, 'counting what it holds');
    result.stored = await stored(peer, x.plan);
    const written = result.sent.samplesWritten;
    if (result.stored.samples !== written) {
      x.progress.log(`${peer.title}: holds ${fmt(result.stored.series)} series and ${fmt(result.stored.samples)} samples (${result.stored.how}); ${fmt(written)} samples were acknowledged`);
    }
    let done: Read[] = [];
    if (peer.readUrl !== undefined && x.readMs > 0) {
      await sleep(2000); // let the write path's background work (fsync, flushes) settle
      done = await reads(peer, x);
      for (const r of done) x.progress.log(`${peer.title} read ${r.query} ${typeName(r.type)}: median ${fmt(r.medianMs, 1)} ms, max ${fmt(r.maxMs, 1)} ms over ${r.rounds}; ${fmt(r.answer.series)} series, ${fmt(r.answer.samples)} samples, ${mib(r.answer.bytes)}`);
    }
    x.progress.update(`${peer.title} stop`, 'flushing and stopping');
    await peer.beforeStop();
    const code = await peer.child.stop(120_000);
    if (code !== 0) x.progress.log(`${peer.title}: exited with ${code} after SIGTERM:\n${peer.child.output().slice(-2000)}`);
    result.disk = peer.disk();
    const d = result.disk;
    const samples = Math.max(1, written);
    x.progress.log(`${peer.title}: on disk ${mib(d.persisted.allocated)} (${d.persistedWhat}) = ${fmt(d.persisted.allocated / samples, 2)} B/sample`);
    return { ingest: result, reads: done };
  } finally {
    await peer.child.stop(10_000);
    rmSync(peer.dataDir, { recursive: true, force: true });
  }
}

/**
 * The two remote reads: node_exporter's CPU series of one host (selective)
 * and of all hosts but idle (wide); for other profiles the first family
 * of one target and of every target.
 */
export function readCases(catalogue: Catalogue, profile: string): ReadCase[] {
  if (profile === 'node-exporter') {
    const host = instanceOf(Math.min(42, catalogue.hosts - 1));
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
  // Series 0: the first family on target 0. The label it differs in from the
  // same family on the last target is the target's own (instance, pod).
  const first = catalogue.labels(0);
  const name = first[first.indexOf('__name__') + 1]!;
  const lastFirst = catalogue.hostOf.indexOf(catalogue.hosts - 1);
  const lastTarget = catalogue.labels(lastFirst);
  const pick: LabelMatcher[] = [{ type: LabelMatcher_Type.EQ, name: '__name__', value: name }];
  for (let k = 0; k < first.length; k += 2) {
    const at = lastTarget.indexOf(first[k]!);
    if (first[k] !== '__name__' && at >= 0 && at % 2 === 0 && lastTarget[at + 1] !== first[k + 1]) {
      pick.push({ type: LabelMatcher_Type.EQ, name: first[k]!, value: first[k + 1]! });
      break;
    }
  }
  const text = (ms: LabelMatcher[]): string => `{${ms.map((m) => `${m.name}="${m.value}"`).join(', ')}}`;
  return [
    { query: 'selective', text: text(pick), matchers: pick },
    { query: 'wide', text: text(pick.slice(0, 1)), matchers: pick.slice(0, 1) },
  ];
}
