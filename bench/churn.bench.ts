// npm run bench:churn — series churn, blocks and restarts, Strata side by
// side with Prometheus (remote-write receiver), one server after the other
// on its own temporary data directory (never both at once: the machine has
// few cores). Prints markdown tables; BENCH_WRITE_RESULTS=1 also puts them
// at the top of bench/RESULTS.md.
//
// 1. Churn: GENERATIONS generations of SERIES new node_exporter-like series
//    (each generation with new instance values), each one simulated hour of
//    samples 15 s apart (240 a series), generation k's hour right after
//    generation k-1's. Sent in time order: a window of SAMPLES_PER_REQUEST
//    samples of every series, in requests of PER_REQUEST series x
//    SAMPLES_PER_REQUEST samples, IN_FLIGHT in flight; every request of a
//    window answered before the next window starts. After each generation
//    the run waits until the server has cut what the head compaction rule
//    (Prometheus': while the head spans more than 1.5 block ranges, the
//    oldest 2 h range becomes a block) says it can, as its head's oldest
//    time shows (strata_head_min_time_seconds, prometheus_tsdb_head_min_time),
//    and until its CPU is quiet (block compaction done), bounded by
//    SETTLE_MAX seconds; then, after RSS_SETTLE seconds, samples VmRSS from
//    /proc/PID/status. Prometheus keeps its defaults (2 h blocks): its
//    appender signals a compaction as soon as the head is compactable, so
//    no shorter --storage.tsdb.min-block-duration is needed.
//    Then: bytes per sample held in blocks (chunks/ files over meta.json's
//    numSamples) for both.
// 2. Restart: SIGTERM, start again on the same data directory, time from
//    spawn until /-/ready answers 200. Then (Strata only unless
//    BENCH_MILLION_PEERS says otherwise; BENCH_MILLION=0 skips it) a second
//    scenario: MILLION series x MILLION_SAMPLES samples at old times, then
//    one newer sample (3.5 h past the end of their 2 h range) for a handful
//    of other series, so that the million series' range is cut into a block
//    and they leave the head; once they have, a restart, timed the same way.
//
// The load is generated deterministically, one generation at a time, before
// it is sent (not while a server is measured); both servers get the same
// bytes. Every loop is bounded in count and time; every child is stopped.
//
// Env: BENCH_GENERATIONS (12), BENCH_SERIES (50000 a generation),
// BENCH_SAMPLES (240 a series a generation), BENCH_PER_REQUEST (2000),
// BENCH_SAMPLES_PER_REQUEST (10), BENCH_IN_FLIGHT (4),
// BENCH_PEERS (strata,prometheus), BENCH_SETTLE_MAX (90 s), BENCH_RSS_SETTLE (3 s),
// BENCH_RATIO_FROM (4: RSS(last) / RSS(this generation)), BENCH_RESTART (1),
// BENCH_MILLION (1; 0 skips), BENCH_MILLION_SERIES (1000000),
// BENCH_MILLION_SAMPLES (4), BENCH_MILLION_PEERS (strata), BENCH_MILLION_SETTLE_MAX (900 s),
// BENCH_QUIET_WAIT (60 s: wait before each server for a quiet machine; 0: don't),
// BENCH_STRATA_NODE_ARGS (node flags for strata serve),
// BENCH_HEAP_SNAPSHOTS (a directory: Strata runs with --heapsnapshot-signal=SIGUSR2 and a
// heap snapshot of its main thread is written there after the generations of
// BENCH_HEAP_SNAPSHOT_GENS, default 4 and the last), BENCH_WRITE_RESULTS (0).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { compressSync } from 'snappy';
import { putUvarint, uvarintSize } from '../src/encoding/varint.js';
import { instanceOf, nodeExporterCatalogue, SERIES_PER_HOST, type Catalogue } from './load/node-exporter.js';
import type { EncodedLoad } from './load/requests.js';
import { sendLoad } from './load/sender.js';
import { SCRAPE_INTERVAL_MS, ValueStepper } from './load/values.js';
import { diskUse } from './compare/disk.js';
import { cpuSeconds, machineBusySeconds, rssSplit } from './compare/proc.js';
import { firstLine, freePort, startChild, stopAll, which, type Child } from './compare/processes.js';
import { Progress } from './compare/progress.js';
import { SERVER_NODE_FLAGS } from '../src/config/node-flags.js';

const root = new URL('..', import.meta.url).pathname;
const env = (name: string, fallback: number): number => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`bench:churn: ${name}=${v} is not a non-negative number`);
  return n;
};
const GENERATIONS = env('BENCH_GENERATIONS', 12);
const SERIES = env('BENCH_SERIES', 50_000);
const SAMPLES = env('BENCH_SAMPLES', 240);
const PER_REQUEST = env('BENCH_PER_REQUEST', 2000);
const SAMPLES_PER_REQUEST = env('BENCH_SAMPLES_PER_REQUEST', 10);
const IN_FLIGHT = env('BENCH_IN_FLIGHT', 4);
const PEERS = (process.env.BENCH_PEERS ?? 'strata,prometheus').split(',').map((s) => s.trim()).filter((s) => s !== '') as StoreName[];
const SETTLE_MAX_S = env('BENCH_SETTLE_MAX', 90);
const RSS_SETTLE_S = env('BENCH_RSS_SETTLE', 3);
const RATIO_FROM = env('BENCH_RATIO_FROM', 4);
/** Issue 29: RSS at hour 11 at most 1.15x hour 3. */
const ISSUE29_HOURS = [11, 3] as const;
const ISSUE29_MAX = 1.15;
const RESTART = process.env.BENCH_RESTART !== '0';
const MILLION = process.env.BENCH_MILLION !== '0';
const MILLION_SERIES = env('BENCH_MILLION_SERIES', 1_000_000);
const MILLION_SAMPLES = env('BENCH_MILLION_SAMPLES', 4);
const MILLION_PEERS = (process.env.BENCH_MILLION_PEERS ?? 'strata').split(',').map((s) => s.trim()).filter((s) => s !== '') as StoreName[];
const MILLION_SETTLE_MAX_S = env('BENCH_MILLION_SETTLE_MAX', 900);
const HANDFUL = 8;
const QUIET_WAIT_S = env('BENCH_QUIET_WAIT', 60);
const STRATA_NODE_ARGS = (process.env.BENCH_STRATA_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
const HEAP_SNAPSHOTS = process.env.BENCH_HEAP_SNAPSHOTS;
const HEAP_SNAPSHOT_GENS = new Set((process.env.BENCH_HEAP_SNAPSHOT_GENS ?? `${Math.min(4, GENERATIONS)},${GENERATIONS}`).split(',').map(Number));
const WRITE_RESULTS = process.env.BENCH_WRITE_RESULTS === '1';

const HOUR = 3_600_000;
/** The block range of both servers (Prometheus' default --storage.tsdb.min-block-duration). */
const RANGE = 2 * HOUR;
const REQUEST_TIMEOUT_MS = 120_000;
const LOAD_TIMEOUT_MS = 30 * 60_000;
/** Start (empty or small directory) and restart (a replay may take a while) bounds. */
const START_TIMEOUT_MS = 300_000;
const STOP_GRACE_MS = 300_000;
/** Quiet: the server used less than this share of one core over a poll interval, twice in a row. */
const QUIET_SERVER_SHARE = 0.03;
/** A quiet machine before a server starts: busy less than this share of one core. */
const QUIET_MACHINE_SHARE = 0.15;
const POLL_MS = 500;

type StoreName = 'strata' | 'prometheus';

const progress = new Progress();
let parentDir: string | undefined;

const fmt = (n: number, digits = 0): string => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a');
const mib = (bytes: number, digits = 0): string => `${fmt(bytes / 2 ** 20, digits)} MiB`;
const load1 = (): number => loadavg()[0]!;
const loadText = (): string => readFileSync('/proc/loadavg', 'utf8').trim().split(' ').slice(0, 3).join(' ');

function fail(message: string): never {
  throw new Error(`bench:churn: ${message}`);
}

// ---------------------------------------------------------------------------
// The load: remote-write requests of many series x several samples each.

/** A series' labels (flat name, value, ... sorted by name) as the TimeSeries' repeated Label fields (field 1). */
function labelBlock(flat: readonly string[]): Buffer {
  const pairs: Array<[Buffer, Buffer]> = [];
  let size = 0;
  for (let k = 0; k < flat.length; k += 2) {
    const n = Buffer.from(flat[k]!);
    const v = Buffer.from(flat[k + 1]!);
    const msg = 1 + uvarintSize(n.length) + n.length + 1 + uvarintSize(v.length) + v.length;
    size += 1 + uvarintSize(msg) + msg;
    pairs.push([n, v]);
  }
  const buf = Buffer.allocUnsafe(size);
  let at = 0;
  for (const [n, v] of pairs) {
    buf[at++] = 0x0a;
    at = putUvarint(buf, at, 1 + uvarintSize(n.length) + n.length + 1 + uvarintSize(v.length) + v.length);
    buf[at++] = 0x0a;
    at = putUvarint(buf, at, n.length);
    at += n.copy(buf, at);
    buf[at++] = 0x12;
    at = putUvarint(buf, at, v.length);
    at += v.copy(buf, at);
  }
  return buf;
}

/**
 * One WriteRequest (uncompressed): series first..end-1, each with its
 * label fields and `n` samples (value: double field 1, timestamp: varint field 2).
 */
function encodeRequest(labels: readonly Buffer[], first: number, end: number, n: number, times: readonly Float64Array[], values: readonly Float64Array[]): Buffer {
  let size = 0;
  for (let i = first; i < end; i++) {
    let body = labels[i]!.length;
    for (let s = 0; s < n; s++) body += 2 + 10 + uvarintSize(times[s]![i]!);
    size += 1 + uvarintSize(body) + body;
  }
  const buf = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = first; i < end; i++) {
    const l = labels[i]!;
    let body = l.length;
    for (let s = 0; s < n; s++) body += 2 + 10 + uvarintSize(times[s]![i]!);
    buf[at++] = 0x0a;
    at = putUvarint(buf, at, body);
    at += l.copy(buf, at);
    for (let s = 0; s < n; s++) {
      const t = times[s]![i]!;
      buf[at++] = 0x12;
      buf[at++] = 10 + uvarintSize(t);
      buf[at++] = 0x09;
      buf.writeDoubleLE(values[s]![i]!, at);
      at += 8;
      buf[at++] = 0x10;
      at = putUvarint(buf, at, t);
    }
  }
  if (at !== size) fail(`encoder wrote ${at} bytes of ${size}`);
  return buf;
}

/**
 * The whole load of a catalogue from `start`: `samples` scrapes, sent in
 * windows of `perWindow` scrapes; window w's requests hold scrapes
 * w*perWindow.. of PER_REQUEST series each (snappy-compressed).
 */
function encodeLoad(cat: Catalogue, start: number, samples: number, perWindow: number, label: string): EncodedLoad {
  const labels = Array.from({ length: cat.count }, (_, i) => labelBlock(cat.labels(i)));
  const stepper = new ValueStepper(cat);
  const windows = Math.ceil(samples / perWindow);
  const values = Array.from({ length: perWindow }, () => new Float64Array(cat.count));
  const times = Array.from({ length: perWindow }, () => new Float64Array(cat.count));
  const requests: Buffer[][] = [];
  let rawBytes = 0;
  let compressedBytes = 0;
  let minTime = Infinity;
  let maxTime = -Infinity;
  for (let w = 0; w < windows; w++) {
    const n = Math.min(perWindow, samples - w * perWindow);
    for (let s = 0; s < n; s++) {
      stepper.next(start, values[s]!, times[s]!);
      for (const t of times[s]!) {
        if (t < minTime) minTime = t;
        if (t > maxTime) maxTime = t;
      }
    }
    const row: Buffer[] = [];
    for (let first = 0; first < cat.count; first += PER_REQUEST) {
      const raw = encodeRequest(labels, first, Math.min(cat.count, first + PER_REQUEST), n, times, values);
      const compressed = Buffer.from(compressSync(raw));
      rawBytes += raw.length;
      compressedBytes += compressed.length;
      row.push(compressed);
    }
    requests.push(row);
    progress.update(`encode ${label}`, `window ${w + 1}/${windows}`);
  }
  return { requests, series: cat.count, scrapes: windows, samples: cat.count * samples, rawBytes, compressedBytes, minTime, maxTime };
}

/** The node_exporter catalogue of `count` series whose hosts are numbered from `firstHost` (new instance values). */
function catalogueFrom(count: number, firstHost: number): Catalogue {
  const base = nodeExporterCatalogue(count);
  return {
    count: base.count,
    hosts: base.hosts,
    hostOf: base.hostOf,
    model: base.model,
    scale: base.scale,
    step: base.step,
    lo: base.lo,
    hi: base.hi,
    labels(i: number): string[] {
      const flat = base.labels(i);
      for (let k = 0; k < flat.length; k += 2) if (flat[k] === 'instance') flat[k + 1] = instanceOf(firstHost + base.hostOf[i]!);
      return flat;
    },
  };
}

/** A handful of other series with one sample each at `t`. */
function handfulLoad(t: number, count: number): EncodedLoad {
  const labels = Array.from({ length: count }, (_, i) => labelBlock(['__name__', 'churn_newer', 'instance', `newer-${i}:9100`, 'job', 'node']));
  const raw = encodeRequest(labels, 0, count, 1, [new Float64Array(count).fill(t)], [Float64Array.from({ length: count }, (_, i) => i)]);
  const compressed = Buffer.from(compressSync(raw));
  return { requests: [[compressed]], series: count, scrapes: 1, samples: count, rawBytes: raw.length, compressedBytes: compressed.length, minTime: t, maxTime: t };
}

/**
 * Where the head's oldest time must be once the server has cut what it can
 * (Prometheus' rule, which Strata follows): while the head spans more than
 * 1.5 ranges, the range holding its oldest sample is cut.
 */
function expectedHeadFloor(dataMin: number, dataMax: number): number {
  let min = dataMin;
  for (let i = 0; i < 100_000 && dataMax - min > (RANGE * 3) / 2; i++) min = Math.floor(min / RANGE) * RANGE + RANGE;
  return min;
}

// ---------------------------------------------------------------------------
// The servers.

/** Metric names: head's oldest time, series, samples stored, blocks, heap. */
interface MetricNames {
  headMin: string;
  headMinScale: number;
  headSeries: string;
  appended: string;
  rejected?: string;
  blocks: string;
  heap: string[];
}

const METRICS: Record<StoreName, MetricNames> = {
  strata: {
    headMin: 'strata_head_min_time_seconds',
    headMinScale: 1000,
    headSeries: 'strata_head_series',
    appended: 'strata_samples_ingested_total',
    rejected: 'strata_samples_rejected_total',
    blocks: 'strata_blocks_loaded',
    heap: ['strata_nodejs_heap_size_used_bytes', 'strata_nodejs_heap_size_total_bytes', 'strata_nodejs_external_memory_bytes'],
  },
  prometheus: {
    headMin: 'prometheus_tsdb_head_min_time',
    headMinScale: 1,
    headSeries: 'prometheus_tsdb_head_series',
    appended: 'prometheus_tsdb_head_samples_appended_total',
    blocks: 'prometheus_tsdb_blocks_loaded',
    heap: ['go_memstats_heap_inuse_bytes', 'go_memstats_heap_alloc_bytes', 'go_memstats_sys_bytes'],
  },
};

/** Prometheus text exposition: each metric name's values summed over its label sets. */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{.*\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    out.set(m[1]!, (out.get(m[1]!) ?? 0) + Number(m[2]));
  }
  return out;
}

interface StartInfo {
  /** Spawn to the first 200 of /-/ready. */
  readySeconds: number;
  /** Strata's own "storage recovered" time (ms), from its log. */
  engineOpenMs?: number;
  /** Strata: from spawn to its log lines "HTTP listening" and "strata started" (ms, by the log's clock). */
  listeningMs?: number;
  startedMs?: number;
}

class Store {
  readonly title: string;
  readonly version: string;
  readonly base: string;
  readonly blocksDir: string;
  private current: Child | undefined;

  constructor(readonly name: StoreName, readonly dataDir: string, readonly port: number, private readonly configDir: string) {
    this.title = name === 'strata' ? 'Strata' : 'Prometheus';
    this.base = `http://127.0.0.1:${port}`;
    this.blocksDir = name === 'strata' ? join(dataDir, 'blocks') : dataDir;
    this.version = name === 'strata'
      ? firstLine(process.execPath, [join(root, 'bin/strata.js'), '--version'])
      : (/version (\S+)/.exec(firstLine('prometheus', ['--version']))?.[1] ?? 'unknown version');
  }

  get child(): Child {
    if (this.current === undefined) fail(`${this.title} is not running`);
    return this.current;
  }

  get pid(): number {
    return this.child.pid;
  }

  /** Spawns the server on its data directory and waits (bounded) until /-/ready answers 200. */
  async start(): Promise<StartInfo> {
    mkdirSync(this.dataDir, { recursive: true });
    const spawnedAt = Date.now();
    const t0 = performance.now();
    if (this.name === 'strata') {
      const nodeArgs = [...SERVER_NODE_FLAGS, ...STRATA_NODE_ARGS];
      if (HEAP_SNAPSHOTS !== undefined) nodeArgs.push('--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${HEAP_SNAPSHOTS}`);
      this.current = startChild('strata serve', process.execPath, [...nodeArgs, join(root, 'bin/strata.js'), 'serve', '--data-dir', this.dataDir,
        '--http-address', `127.0.0.1:${this.port}`, '--grpc-address', '127.0.0.1:0', '--log.format', 'json'], { cwd: root });
    } else {
      const config = join(this.configDir, 'prometheus-receiver.yml');
      writeFileSync(config, 'global:\n  scrape_interval: 15s\n');
      this.current = startChild('prometheus', 'prometheus', [
        `--config.file=${config}`,
        `--storage.tsdb.path=${this.dataDir}`,
        `--web.listen-address=127.0.0.1:${this.port}`,
        '--web.enable-remote-write-receiver',
        '--log.level=warn',
      ]);
    }
    const child = this.current;
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (child.process.exitCode !== null || child.process.signalCode !== null) fail(`${this.title} exited while starting:\n${child.output().slice(-3000)}`);
      if (Date.now() > deadline) fail(`${this.title}: not ready in ${START_TIMEOUT_MS} ms:\n${child.output().slice(-3000)}`);
      try {
        const res = await fetch(`${this.base}/-/ready`, { signal: AbortSignal.timeout(2000) });
        await res.arrayBuffer();
        if (res.status === 200) break;
      } catch {
        // not listening yet
      }
      await sleep(20);
    }
    const readySeconds = (performance.now() - t0) / 1000;
    const info: StartInfo = { readySeconds };
    if (this.name === 'strata') {
      // Ready is marked just before the start line is logged: give the log a moment.
      for (let i = 0; i < 50 && !child.output().includes('"strata started"'); i++) await sleep(20);
      for (const line of child.output().split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          const o = JSON.parse(line) as { msg?: string; ms?: number; ts?: string };
          const time = o.ts === undefined ? undefined : Date.parse(o.ts); // --log.format json: RFC 3339 ts
          if (o.msg === 'storage recovered' && o.ms !== undefined) info.engineOpenMs = o.ms;
          if (o.msg?.startsWith('HTTP listening') && time !== undefined) info.listeningMs = time - spawnedAt;
          if (o.msg === 'strata started' && time !== undefined) info.startedMs = time - spawnedAt;
        } catch {
          // not a log line
        }
      }
    }
    return info;
  }

  /** SIGTERM and wait (bounded, then SIGKILL); the seconds the stop took and the exit code. */
  async stop(): Promise<{ seconds: number; code: number | null }> {
    const child = this.current;
    if (child === undefined) return { seconds: 0, code: null };
    const t0 = performance.now();
    const code = await child.stop(STOP_GRACE_MS);
    this.current = undefined;
    return { seconds: (performance.now() - t0) / 1000, code };
  }

  async metrics(): Promise<Map<string, number>> {
    const res = await fetch(`${this.base}/metrics`, { signal: AbortSignal.timeout(30_000) });
    return parseMetrics(await res.text());
  }

  /** The head's oldest sample time (ms; NaN when unknown or empty). */
  headMin(m: Map<string, number>): number {
    const names = METRICS[this.name];
    const v = m.get(names.headMin);
    return v === undefined ? NaN : v * names.headMinScale;
  }

  /** Whether a sent `load` was stored whole: appended grew by its samples, nothing rejected. */
  checkStored(before: Map<string, number>, after: Map<string, number>, samples: number): string | undefined {
    const names = METRICS[this.name];
    const appended = (after.get(names.appended) ?? NaN) - (before.get(names.appended) ?? 0);
    const rejected = names.rejected === undefined ? 0 : (after.get(names.rejected) ?? 0) - (before.get(names.rejected) ?? 0);
    if (appended === samples && rejected === 0) return undefined;
    return `stored ${fmt(appended)} of ${fmt(samples)} samples${rejected > 0 ? `, rejected ${fmt(rejected)}` : ''}`;
  }
}

/** Resident memory of a process by kind (bytes), from /proc/PID/smaps. */
interface MemoryMap {
  /**
   * WebAssembly memories: V8 reserves 8 GiB + guards for each and maps
   * the accessible part read-write at the start of the reservation, so a
   * read-write anonymous mapping followed at once by an inaccessible one
   * that together span 8 GiB or more.
   */
  wasm: number;
  /** Other anonymous memory: V8 heaps, malloc (Go's heap for Prometheus). */
  anonOther: number;
  /** Files of the data directory (blocks, head chunk files) mapped into memory. */
  dataFiles: number;
  /** The part of dataFiles in files already deleted (their maps not yet released). */
  deletedDataFiles: number;
  /** The part of dataFiles in head chunk files (chunks_head/). */
  headChunkFiles: number;
  /** Other files (the executable, libraries). */
  otherFiles: number;
}

function memoryMap(pid: number, dataDir: string): MemoryMap {
  const out: MemoryMap = { wasm: 0, anonOther: 0, dataFiles: 0, deletedDataFiles: 0, headChunkFiles: 0, otherFiles: 0 };
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return out;
  }
  const maps: Array<{ start: number; end: number; perms: string; path: string; rss: number }> = [];
  for (const line of text.split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      maps.push({ start: parseInt(header[1]!, 16), end: parseInt(header[2]!, 16), perms: header[3]!, path: header[4]!.trim(), rss: 0 });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && maps.length > 0) maps[maps.length - 1]!.rss = Number(rss[1]) * 1024;
  }
  const anon = (m: { path: string }) => !m.path.startsWith('/') || m.path.startsWith('/memfd:');
  for (let i = 0; i < maps.length; i++) {
    const m = maps[i]!;
    const next = maps[i + 1];
    if (!anon(m)) {
      if (m.path.startsWith(dataDir)) {
        out.dataFiles += m.rss;
        if (m.path.endsWith(' (deleted)')) out.deletedDataFiles += m.rss;
        if (m.path.includes('/chunks_head/')) out.headChunkFiles += m.rss;
      } else {
        out.otherFiles += m.rss;
      }
    } else if (m.perms.startsWith('rw') && next !== undefined && anon(next) && next.start === m.end && next.perms.startsWith('---')
      && next.end - m.start >= 8 * 2 ** 30) {
      out.wasm += m.rss;
    } else {
      out.anonOther += m.rss;
    }
  }
  return out;
}

/** Seconds of CPU the process used over `ms` as a share of one core. */
async function cpuShare(pid: number, ms: number): Promise<number> {
  const c0 = cpuSeconds(pid);
  await sleep(ms);
  return (cpuSeconds(pid) - c0) / (ms / 1000);
}

/** Waits (bounded) until nothing else keeps the machine busy. */
async function waitForQuiet(phase: string): Promise<void> {
  if (QUIET_WAIT_S <= 0) return;
  const deadline = Date.now() + QUIET_WAIT_S * 1000;
  for (;;) {
    const b0 = machineBusySeconds();
    await sleep(2000);
    const share = (machineBusySeconds() - b0) / 2;
    if (share < QUIET_MACHINE_SHARE) return;
    if (Date.now() > deadline) {
      progress.log(`${phase}: the machine is still busy (${fmt(share * 100)}% of a core) after ${QUIET_WAIT_S} s; going on (load average ${loadText()})`);
      return;
    }
    progress.update(phase, `waiting for a quiet machine (busy ${fmt(share * 100)}% of a core)`);
  }
}

interface Settled {
  /** From the last answered request until the head's oldest time reached the expected floor (NaN: nothing to cut). */
  cutSeconds: number;
  /** Until the server's CPU was quiet too. */
  quietSeconds: number;
  /** The floor was not reached within the bound. */
  timedOut: boolean;
}

/**
 * Waits until the head's oldest time is at or past `floor` (what the
 * server can cut has been cut and let go of) and the server's CPU is quiet
 * (block compaction, WAL checkpoints done), bounded by `maxSeconds`.
 */
async function settle(store: Store, floor: number, dataMin: number, maxSeconds: number, phase: string): Promise<Settled> {
  const t0 = performance.now();
  const deadline = t0 + maxSeconds * 1000;
  let cutSeconds = NaN;
  const mustCut = floor > dataMin;
  let quietRuns = 0;
  let timedOut = false;
  for (let i = 0; i < 1_000_000; i++) {
    const m = await store.metrics();
    const headMin = store.headMin(m);
    const cut = !mustCut || headMin >= floor;
    if (cut && mustCut && Number.isNaN(cutSeconds)) cutSeconds = (performance.now() - t0) / 1000;
    const share = await cpuShare(store.pid, POLL_MS);
    quietRuns = share < QUIET_SERVER_SHARE ? quietRuns + 1 : 0;
    if (cut && quietRuns >= 2) break;
    if (performance.now() > deadline) {
      timedOut = !cut;
      break;
    }
    progress.update(phase, `head min ${Number.isFinite(headMin) ? new Date(headMin).toISOString() : 'n/a'}${mustCut ? `, waiting for ${new Date(floor).toISOString()}` : ''}, ${fmt(m.get(METRICS[store.name].headSeries) ?? NaN)} head series, ${fmt(m.get(METRICS[store.name].blocks) ?? NaN)} blocks, CPU ${fmt(share * 100)}%`);
  }
  return { cutSeconds, quietSeconds: (performance.now() - t0) / 1000, timedOut };
}

async function heapSnapshot(store: Store, label: string): Promise<string | undefined> {
  if (HEAP_SNAPSHOTS === undefined || store.name !== 'strata') return undefined;
  const before = new Set(readdirSync(HEAP_SNAPSHOTS));
  process.kill(store.pid, 'SIGUSR2');
  // Written by the main thread; wait until a new file exists and stops growing.
  let lastSize = -1;
  for (let i = 0; i < 600; i++) {
    await sleep(500);
    const fresh = readdirSync(HEAP_SNAPSHOTS).filter((n) => !before.has(n) && n.endsWith('.heapsnapshot'));
    if (fresh.length === 0) continue;
    const size = statSync(join(HEAP_SNAPSHOTS, fresh[0]!)).size;
    if (size > 0 && size === lastSize) {
      progress.log(`${store.title}: heap snapshot after ${label}: ${join(HEAP_SNAPSHOTS, fresh[0]!)} (${mib(size)})`);
      return fresh[0];
    }
    lastSize = size;
  }
  progress.log(`${store.title}: no heap snapshot after ${label} within 300 s`);
  return undefined;
}

// ---------------------------------------------------------------------------
// The scenarios.

interface GenRow {
  gen: number;
  sendSeconds: number;
  samplesPerSecond: number;
  serverCpuSeconds: number;
  otherCpuShare: number;
  settled: Settled;
  headSeries: number;
  blocks: number;
  rss: number;
  anon: number;
  file: number;
  map: MemoryMap;
  heap: number[];
  load1: number;
  stored?: string;
}

interface BlockDisk {
  blocks: number;
  series: number;
  samples: number;
  chunkBytes: number;
  indexBytes: number;
}

interface RestartResult {
  diskBytes: number;
  stopSeconds: number;
  stopCode: number | null;
  start: StartInfo;
  headSeries: number;
  rss: number;
}

interface ChurnResult {
  store: Store;
  rows: GenRow[];
  disk: BlockDisk;
  restart?: RestartResult;
  load0: string;
}

interface MillionResult {
  store: Store;
  series: number;
  samples: number;
  sendSeconds: number;
  settled: Settled;
  headSeriesBefore: number;
  blocks: number;
  rssBefore: number;
  restart: RestartResult;
  load1: number;
  stored?: string;
}

/** Bytes of a directory's files (apparent sizes), recursively. */
function dirBytes(path: string): number {
  const st = statSync(path, { throwIfNoEntry: false });
  if (st === undefined) return 0;
  if (!st.isDirectory()) return st.size;
  let n = 0;
  for (const e of readdirSync(path)) n += dirBytes(join(path, e));
  return n;
}

/** Sample bytes held in blocks: chunks/ files over meta.json's numSamples (and the index beside). */
function blockDisk(blocksDir: string): BlockDisk {
  const out: BlockDisk = { blocks: 0, series: 0, samples: 0, chunkBytes: 0, indexBytes: 0 };
  if (!existsSync(blocksDir)) return out;
  for (const name of readdirSync(blocksDir)) {
    if (!/^[0-9A-HJKMNP-TV-Z]{26}$/i.test(name)) continue;
    const meta = join(blocksDir, name, 'meta.json');
    if (!existsSync(meta)) continue;
    const m = JSON.parse(readFileSync(meta, 'utf8')) as { stats?: { numSamples?: number; numSeries?: number } };
    out.blocks++;
    out.samples += m.stats?.numSamples ?? 0;
    out.series += m.stats?.numSeries ?? 0;
    out.chunkBytes += dirBytes(join(blocksDir, name, 'chunks'));
    out.indexBytes += dirBytes(join(blocksDir, name, 'index'));
  }
  return out;
}

/** The first sample time of the churn: a 2 h boundary, so that the generations end hours before now. */
function churnStart(): number {
  return Math.floor(Date.now() / RANGE) * RANGE - Math.ceil((GENERATIONS + 2) / 2) * RANGE;
}

/** Strata's start-up phases by its log: HTTP listening, engine open (its own figure), started. */
function startDetail(s: StartInfo): string {
  if (s.engineOpenMs === undefined) return '';
  return ` (HTTP listening after ${fmt(s.listeningMs ?? NaN)} ms, engine open ${fmt(s.engineOpenMs)} ms, started after ${fmt(s.startedMs ?? NaN)} ms)`;
}

async function restart(store: Store): Promise<RestartResult> {
  const diskBytes = diskUse(store.dataDir).allocated;
  progress.update(`${store.title} restart`, 'stopping (SIGTERM)');
  const stopped = await store.stop();
  if (stopped.code !== 0) progress.log(`${store.title}: exited with ${stopped.code} after SIGTERM`);
  progress.update(`${store.title} restart`, 'starting on the same data directory');
  const start = await store.start();
  await sleep(RSS_SETTLE_S * 1000);
  const m = await store.metrics();
  const result: RestartResult = {
    diskBytes,
    stopSeconds: stopped.seconds,
    stopCode: stopped.code,
    start,
    headSeries: m.get(METRICS[store.name].headSeries) ?? NaN,
    rss: rssSplit(store.pid).anon + rssSplit(store.pid).file,
  };
  progress.log(`${store.title}: stop ${fmt(stopped.seconds, 1)} s; restart ready in ${fmt(start.readySeconds, 2)} s${startDetail(start)}; ${fmt(result.headSeries)} head series; RSS ${mib(result.rss)}`);
  return result;
}

async function churn(name: StoreName, parent: string): Promise<ChurnResult> {
  await waitForQuiet(`${name} start`);
  const load0 = loadText();
  const dataDir = join(parent, name);
  const store = new Store(name, dataDir, await freePort(), parent);
  const started = await store.start();
  progress.log(`${store.title} ${store.version}: pid ${store.pid}, ${store.base}, ready in ${fmt(started.readySeconds, 2)} s${startDetail(started)}; load average ${load0}`);
  const rows: GenRow[] = [];
  const start = churnStart();
  let dataMin = Infinity;
  let dataMax = -Infinity;
  try {
    for (let g = 0; g < GENERATIONS; g++) {
      const cat = catalogueFrom(SERIES, g * Math.ceil(SERIES / SERIES_PER_HOST));
      const load = encodeLoad(cat, start + g * HOUR, SAMPLES, SAMPLES_PER_REQUEST, `${store.title} generation ${g + 1}`);
      dataMin = Math.min(dataMin, load.minTime);
      dataMax = Math.max(dataMax, load.maxTime);
      const before = await store.metrics();
      const cpu0 = cpuSeconds(store.pid);
      const busy0 = machineBusySeconds();
      const sent = await sendLoad(load, {
        url: `${store.base}/api/v1/write`,
        inFlight: IN_FLIGHT,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        totalTimeoutMs: LOAD_TIMEOUT_MS,
        onScrape: (w) => progress.update(`${store.title} generation ${g + 1}/${GENERATIONS}`, `window ${w + 1}/${load.scrapes}`),
      });
      const serverCpuSeconds = cpuSeconds(store.pid) - cpu0;
      const otherCpuShare = Math.max(0, machineBusySeconds() - busy0 - serverCpuSeconds - sent.clientCpuSeconds) / (sent.seconds * cpus().length);
      const floor = expectedHeadFloor(dataMin, dataMax);
      const settled = await settle(store, floor, dataMin, SETTLE_MAX_S, `${store.title} generation ${g + 1} settle`);
      await sleep(RSS_SETTLE_S * 1000);
      const split = rssSplit(store.pid);
      const map = memoryMap(store.pid, dataDir);
      const m = await store.metrics();
      const row: GenRow = {
        gen: g + 1,
        sendSeconds: sent.seconds,
        samplesPerSecond: sent.samples / sent.seconds,
        serverCpuSeconds,
        otherCpuShare,
        settled,
        headSeries: m.get(METRICS[name].headSeries) ?? NaN,
        blocks: m.get(METRICS[name].blocks) ?? NaN,
        rss: split.anon + split.file,
        anon: split.anon,
        file: split.file,
        map,
        heap: METRICS[name].heap.map((h) => m.get(h) ?? NaN),
        load1: load1(),
        ...(() => {
          const s = store.checkStored(before, m, load.samples);
          return s === undefined ? {} : { stored: s };
        })(),
      };
      rows.push(row);
      progress.log(`${store.title} generation ${g + 1}: ${fmt(row.samplesPerSecond)} samples/s (${fmt(sent.seconds, 1)} s); cut ${Number.isNaN(settled.cutSeconds) ? '-' : `${fmt(settled.cutSeconds, 1)} s`}, quiet ${fmt(settled.quietSeconds, 1)} s${settled.timedOut ? ' (TIMED OUT)' : ''}; head ${fmt(row.headSeries)} series, ${fmt(row.blocks)} blocks; RSS ${mib(row.rss)} (anon ${mib(row.anon)}: wasm ${mib(map.wasm)}, other ${mib(map.anonOther)}; data files ${mib(map.dataFiles)} of which deleted ${mib(map.deletedDataFiles)} and head chunks ${mib(map.headChunkFiles)}, other files ${mib(map.otherFiles)}); heap ${row.heap.map((h) => mib(h)).join(' / ')}; load ${fmt(row.load1, 2)}${row.stored ? `; ${row.stored}` : ''}`);
      if (HEAP_SNAPSHOT_GENS.has(g + 1)) await heapSnapshot(store, `generation ${g + 1}`);
    }
    const disk = blockDisk(store.blocksDir);
    const restarted = RESTART ? await restart(store) : undefined;
    return { store, rows, disk, load0, ...(restarted ? { restart: restarted } : {}) };
  } finally {
    await store.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function million(name: StoreName, parent: string): Promise<MillionResult> {
  await waitForQuiet(`${name} million start`);
  const dataDir = join(parent, `${name}-million`);
  const store = new Store(name, dataDir, await freePort(), parent);
  await store.start();
  try {
    const start = Math.floor(Date.now() / RANGE) * RANGE - 6 * RANGE;
    const cat = nodeExporterCatalogue(MILLION_SERIES);
    const load = encodeLoad(cat, start, MILLION_SAMPLES, MILLION_SAMPLES, `${store.title} ${fmt(MILLION_SERIES)} series`);
    progress.log(`${store.title}: ${fmt(load.series)} series x ${MILLION_SAMPLES} samples, ${load.requests[0]!.length} requests, ${mib(load.compressedBytes)} compressed`);
    const before = await store.metrics();
    const sent = await sendLoad(load, {
      url: `${store.base}/api/v1/write`, inFlight: IN_FLIGHT, requestTimeoutMs: REQUEST_TIMEOUT_MS, totalTimeoutMs: LOAD_TIMEOUT_MS,
    });
    // One newer sample for a handful of other series, 3.5 h past the end of the range.
    const rangeEnd = Math.floor(load.maxTime / RANGE) * RANGE + RANGE;
    const newer = rangeEnd + 3.5 * HOUR + SCRAPE_INTERVAL_MS;
    await sendLoad(handfulLoad(newer, HANDFUL), {
      url: `${store.base}/api/v1/write`, inFlight: 1, requestTimeoutMs: REQUEST_TIMEOUT_MS, totalTimeoutMs: REQUEST_TIMEOUT_MS,
    });
    const m0 = await store.metrics();
    const stored = store.checkStored(before, m0, load.samples + HANDFUL);
    const floor = expectedHeadFloor(load.minTime, newer);
    const settled = await settle(store, floor, load.minTime, MILLION_SETTLE_MAX_S, `${store.title} million settle`);
    await sleep(RSS_SETTLE_S * 1000);
    const m = await store.metrics();
    const split = rssSplit(store.pid);
    const headSeriesBefore = m.get(METRICS[name].headSeries) ?? NaN;
    const blocks = m.get(METRICS[name].blocks) ?? NaN;
    progress.log(`${store.title} million: sent in ${fmt(sent.seconds, 1)} s; cut ${fmt(settled.cutSeconds, 1)} s, quiet ${fmt(settled.quietSeconds, 1)} s${settled.timedOut ? ' (TIMED OUT)' : ''}; head ${fmt(headSeriesBefore)} series, ${fmt(blocks)} blocks; RSS ${mib(split.anon + split.file)}${stored ? `; ${stored}` : ''}`);
    const restarted = await restart(store);
    return {
      store, series: load.series, samples: load.samples, sendSeconds: sent.seconds, settled, headSeriesBefore, blocks,
      rssBefore: split.anon + split.file, restart: restarted, load1: load1(), ...(stored ? { stored } : {}),
    };
  } finally {
    await store.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------
// Report.

function report(churns: ChurnResult[], millions: MillionResult[], loadStart: string, loadEnd: string): string {
  const lines: string[] = [];
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const by = (n: StoreName) => churns.find((c) => c.store.name === n);
  lines.push(`## Churn, blocks and restarts side by side — ${new Date().toISOString().slice(0, 10)}`, '');
  lines.push(`- Machine: ${cpus().length} cores (${cpu}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}; load average (1, 5, 15 min) ${loadStart} at the start, ${loadEnd} at the end.`);
  lines.push(`- Command: \`npm run bench:churn\` (BENCH_GENERATIONS=${GENERATIONS} BENCH_SERIES=${SERIES} BENCH_SAMPLES=${SAMPLES} BENCH_PER_REQUEST=${PER_REQUEST} BENCH_SAMPLES_PER_REQUEST=${SAMPLES_PER_REQUEST} BENCH_IN_FLIGHT=${IN_FLIGHT} BENCH_SETTLE_MAX=${SETTLE_MAX_S} BENCH_RSS_SETTLE=${RSS_SETTLE_S}).`);
  lines.push(`- Servers, one after the other, each on a fresh temporary directory, defaults otherwise: ${churns.map((c) => `${c.store.title} (${c.store.version})`).join('; ')}. Prometheus: no scrape targets, --web.enable-remote-write-receiver, default 2 h blocks (its appender asks for a compaction as soon as the head is compactable).`);
  lines.push(`- Load: ${GENERATIONS} generations of ${fmt(SERIES)} new node_exporter-like series (new instance values each), each one hour of samples ${SCRAPE_INTERVAL_MS / 1000} s apart (${SAMPLES} a series, ${fmt(SERIES * SAMPLES)} a generation), the hours one after another; requests of ${PER_REQUEST} series x ${SAMPLES_PER_REQUEST} samples (snappy protobuf), ${IN_FLIGHT} in flight, window by window in time order.`);
  lines.push(`- After each generation: wait until the head's oldest time shows that what the head compaction rule allows has been cut (strata_head_min_time_seconds, prometheus_tsdb_head_min_time) and the server's CPU is quiet (under ${QUIET_SERVER_SHARE * 100}% of a core twice in a row), at most ${SETTLE_MAX_S} s; then ${RSS_SETTLE_S} s, then VmRSS (= RssAnon + RssFile + RssShmem) from /proc/PID/status; split with /proc/PID/smaps: anonymous (WebAssembly memories: the read-write start of an 8 GiB+ reservation; other: JS heaps, malloc, Go heap) and mapped files (the data directory's, deleted ones whose maps are not released yet, head chunk files; other files: executables, libraries).`);
  lines.push('');

  // Side by side.
  const gens = Math.max(0, ...churns.map((c) => c.rows.length));
  lines.push(`| generation | hours of data sent | ${churns.map((c) => `${c.store.title} RSS`).join(' | ')} | ${churns.map((c) => `${c.store.title} head series / blocks`).join(' | ')} |`);
  lines.push(`|---|---|${churns.map(() => '---|').join('')}${churns.map(() => '---|').join('')}`);
  for (let g = 0; g < gens; g++) {
    lines.push(`| ${g + 1} | ${g + 1} | ${churns.map((c) => (c.rows[g] ? mib(c.rows[g]!.rss) : 'n/a')).join(' | ')} | ${churns.map((c) => (c.rows[g] ? `${fmt(c.rows[g]!.headSeries)} / ${fmt(c.rows[g]!.blocks)}` : 'n/a')).join(' | ')} |`);
  }
  lines.push('');
  const ratioOf = (c: ChurnResult): number => {
    const a = c.rows[c.rows.length - 1];
    const b = c.rows[RATIO_FROM - 1];
    return a !== undefined && b !== undefined ? a.rss / b.rss : NaN;
  };
  const ratioAnon = (c: ChurnResult): number => {
    const a = c.rows[c.rows.length - 1];
    const b = c.rows[RATIO_FROM - 1];
    return a !== undefined && b !== undefined ? a.anon / b.anon : NaN;
  };
  lines.push(`| server | RSS(gen ${gens}) / RSS(gen ${RATIO_FROM}) | anonymous only | target |`);
  lines.push('|---|---|---|---|');
  for (const c of churns) lines.push(`| ${c.store.title} | ${fmt(ratioOf(c), 2)} | ${fmt(ratioAnon(c), 2)} | ${c.store.name === 'strata' ? `at most 1.35: ${ratioOf(c) <= 1.35 ? 'met' : 'NOT met'}` : '(measured before: 1.25)'} |`);
  lines.push('');
  // Issue 29's form: hour 11 against hour 3 (both with 150k series in the head; blocks cut by hour 11 only).
  const [to, from] = ISSUE29_HOURS;
  if (gens >= to) {
    const hours = (c: ChurnResult, pick: (r: GenRow) => number): number => {
      const a = c.rows[to - 1];
      const b = c.rows[from - 1];
      return a !== undefined && b !== undefined ? pick(a) / pick(b) : NaN;
    };
    lines.push(`| server | RSS(hour ${to}) / RSS(hour ${from}) | anonymous only | target (issue 29) |`);
    lines.push('|---|---|---|---|');
    for (const c of churns) {
      const r = hours(c, (x) => x.rss);
      lines.push(`| ${c.store.title} | ${fmt(r, 2)} | ${fmt(hours(c, (x) => x.anon), 2)} | ${c.store.name === 'strata' ? `at most ${ISSUE29_MAX}: ${r <= ISSUE29_MAX ? 'met' : 'NOT met'}` : '(Prometheus 2.42 measured 1.02-1.28)'} |`);
    }
    lines.push('');
  }

  for (const c of churns) {
    lines.push(`${c.store.title}, per generation (load average ${c.load0} at its start):`, '');
    lines.push(`| gen | samples/s | send s | server CPU s | cut after s | quiet after s | head series | blocks | RSS | anon: wasm / other | files: data (deleted, head chunks) / other | ${c.store.name === 'strata' ? 'main JS heap used / total, external' : 'Go heap inuse / alloc, sys'} | load1 | other CPU |`);
    lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const r of c.rows) {
      lines.push(`| ${r.gen} | ${fmt(r.samplesPerSecond)} | ${fmt(r.sendSeconds, 1)} | ${fmt(r.serverCpuSeconds, 1)} | ${Number.isNaN(r.settled.cutSeconds) ? '-' : fmt(r.settled.cutSeconds, 1)}${r.settled.timedOut ? ' (timed out)' : ''} | ${fmt(r.settled.quietSeconds, 1)} | ${fmt(r.headSeries)} | ${fmt(r.blocks)} | ${mib(r.rss)} | ${mib(r.map.wasm)} / ${mib(r.map.anonOther)} | ${mib(r.map.dataFiles)} (${mib(r.map.deletedDataFiles)}, ${mib(r.map.headChunkFiles)}) / ${mib(r.map.otherFiles)} | ${r.heap.map((h) => mib(h)).join(' / ')} | ${fmt(r.load1, 2)} | ${fmt(r.otherCpuShare * 100)}%${r.stored ? `; ${r.stored}` : ''} |`);
    }
    lines.push('');
  }

  lines.push('Disk: sample data held in blocks after the last generation: the blocks\' chunks/ files (apparent size) over the samples their meta.json counts.', '');
  lines.push('| server | blocks | series (summed over blocks) | samples | chunks | bytes/sample | chunks + index bytes/sample |');
  lines.push('|---|---|---|---|---|---|---|');
  for (const c of churns) {
    const d = c.disk;
    lines.push(`| ${c.store.title} | ${d.blocks} | ${fmt(d.series)} | ${fmt(d.samples)} | ${mib(d.chunkBytes, 1)} | ${fmt(d.chunkBytes / d.samples, 2)} | ${fmt((d.chunkBytes + d.indexBytes) / d.samples, 2)} |`);
  }
  lines.push('');
  const restarts = churns.filter((c) => c.restart !== undefined);
  if (restarts.length > 0 || millions.length > 0) {
    lines.push('Restart: SIGTERM, then a start on the same data directory; time from spawn until /-/ready answers 200 (polled every 20 ms).', '');
    lines.push('| scenario | server | data dir (du) | stop s | ready after s | Strata\'s log: HTTP listening / engine open took / started (ms) | head series after | RSS after |');
    lines.push('|---|---|---|---|---|---|---|---|');
    for (const c of restarts) {
      const r = c.restart!;
      lines.push(`| after the churn (${GENERATIONS} h, ${fmt(GENERATIONS * SERIES)} series) | ${c.store.title} | ${mib(r.diskBytes)} | ${fmt(r.stopSeconds, 1)} | ${fmt(r.start.readySeconds, 2)} | ${phases(r.start)} | ${fmt(r.headSeries)} | ${mib(r.rss)} |`);
    }
    for (const m of millions) {
      const r = m.restart;
      lines.push(`| ${fmt(m.series)} series x ${MILLION_SAMPLES} samples cut into a block, ${HANDFUL} series left in the head | ${m.store.title} | ${mib(r.diskBytes)} | ${fmt(r.stopSeconds, 1)} | ${fmt(r.start.readySeconds, 2)} | ${phases(r.start)} | ${fmt(r.headSeries)} | ${mib(r.rss)} |`);
    }
    lines.push('');
    for (const m of millions) {
      lines.push(`- ${m.store.title}, ${fmt(m.series)} series: sent in ${fmt(m.sendSeconds, 1)} s; block cut and head let go after ${fmt(m.settled.cutSeconds, 1)} s (quiet after ${fmt(m.settled.quietSeconds, 1)} s${m.settled.timedOut ? ', TIMED OUT' : ''}); then ${fmt(m.headSeriesBefore)} head series, ${fmt(m.blocks)} blocks, RSS ${mib(m.rssBefore)}${m.stored ? `; ${m.stored}` : ''}; load average ${fmt(m.load1, 2)}.`);
    }
    if (millions.length > 0) lines.push('');
  }

  const s = by('strata');
  const p = by('prometheus');
  lines.push('| target | result |');
  lines.push('|---|---|');
  if (s) lines.push(`| Strata RSS(gen ${gens}) / RSS(gen ${RATIO_FROM}) at most 1.35 (Prometheus measured 1.25) | ${ratioOf(s) <= 1.35 ? 'met' : 'NOT met'}: ${fmt(ratioOf(s), 2)}${p ? ` (Prometheus in this run: ${fmt(ratioOf(p), 2)})` : ''} |`);
  if (s) lines.push(`| block bytes/sample (Prometheus measured 2.63) | Strata ${fmt(s.disk.chunkBytes / s.disk.samples, 2)}${p ? `, Prometheus ${fmt(p.disk.chunkBytes / p.disk.samples, 2)}` : ''} |`);
  if (s?.restart) lines.push(`| restart after the churn (Prometheus measured 4.8 s) | Strata ${fmt(s.restart.start.readySeconds, 2)} s${p?.restart ? `, Prometheus ${fmt(p.restart.start.readySeconds, 2)} s` : ''} |`);
  const sm = millions.find((m) => m.store.name === 'strata');
  if (sm) lines.push(`| restart with ${fmt(sm.series)} series in blocks under 2 s | ${sm.restart.start.readySeconds < 2 ? 'met' : 'NOT met'}: ${fmt(sm.restart.start.readySeconds, 2)} s |`);
  return lines.join('\n');
}

function phases(s: StartInfo): string {
  return s.engineOpenMs === undefined ? 'n/a' : `${fmt(s.listeningMs ?? NaN)} / ${fmt(s.engineOpenMs)} / ${fmt(s.startedMs ?? NaN)}`;
}

function writeResults(section: string): void {
  const path = join(root, 'bench/RESULTS.md');
  const current = readFileSync(path, 'utf8');
  const firstSection = current.indexOf('\n## ');
  const next = firstSection < 0 ? `${current.trimEnd()}\n\n${section}\n` : `${current.slice(0, firstSection + 1)}${section}\n\n${current.slice(firstSection + 1)}`;
  writeFileSync(path, next);
}

async function main(): Promise<void> {
  if (!existsSync(join(root, 'dist/cli/main.js'))) fail('not built: run `npm run build:ts` first');
  for (const p of [...PEERS, ...(MILLION ? MILLION_PEERS : [])]) {
    if (p !== 'strata' && p !== 'prometheus') fail(`unknown server ${p} (strata, prometheus)`);
    if (p === 'prometheus' && which('prometheus') === undefined) fail('prometheus is not on PATH: apt-get install -y prometheus');
  }
  if (GENERATIONS < 1 || SERIES < 1 || SAMPLES < 1 || PER_REQUEST < 1 || SAMPLES_PER_REQUEST < 1 || IN_FLIGHT < 1) fail('counts must be at least 1');
  if (HEAP_SNAPSHOTS !== undefined) mkdirSync(HEAP_SNAPSHOTS, { recursive: true });
  const loadStart = loadText();
  progress.log(`load average ${loadStart}`);
  const parent = mkdtempSync(join(tmpdir(), 'strata-bench-churn-'));
  parentDir = parent;
  const churns: ChurnResult[] = [];
  const millions: MillionResult[] = [];
  try {
    for (const name of PEERS) churns.push(await churn(name, parent));
    if (MILLION) for (const name of MILLION_PEERS) millions.push(await million(name, parent));
  } finally {
    await stopAll();
    rmSync(parent, { recursive: true, force: true });
  }
  const section = report(churns, millions, loadStart, loadText());
  console.log(`\n${section}`);
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
  console.error((err as Error).stack ?? (err as Error).message);
  process.exitCode = 1;
}
