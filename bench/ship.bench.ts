// npm run bench:ship — shipping throughput: Strata's shipper uploading
// real blocks to a bucket, against a plain copy of the same files.
//
// Blocks: BENCH_SHIP_BLOCKS consecutive 2 h blocks of BENCH_SHIP_SERIES
// node_exporter-like series at 15 s, written once with Strata's block
// writer (bench/ship/make-blocks.ts) and reused by later runs. Every upload
// runs in a child process of its own (bench/ship/upload-run.ts): the
// figure is bytes uploaded over the wall time of the upload, its CPU time,
// and its peak RSS during the upload (VmHWM reset just before it).
//
// On S3 it also shows how long each upload had no request in flight, one,
// or more (bench/ship/wire.ts): time the uploader spent on itself.
//
// Targets, each with one warm-up run then BENCH_RUNS timed runs (median);
// on S3 the shipper and the reference take turns, run by run:
// - FILESYSTEM bucket on local disk (a fresh directory a run), against
//   `cp -r` of the block directories, and `cp -r` then `sync FILE...`
//   (fsync of every copied file: the bucket fsyncs every object).
// - S3 on Ceph's radosgw (scripts/start-radosgw.sh through
//   test/objstore/s3-servers.ts: its defaults, memstore OSD), against the
//   AWS SDK's bare PutObject of the same files; skipped with the reason
//   when radosgw cannot be started.
// - S3 on s3rver (npm; a small S3 imitation in JavaScript, run in this
//   process, storing files on disk), the same two.
// Between runs the uploaded objects are deleted (outside the timing).
//
// Env: BENCH_SHIP_SERIES (40000), BENCH_SHIP_BLOCKS (3), BENCH_RUNS (3),
// BENCH_TARGETS (filesystem,radosgw,s3rver), BENCH_QUIET_LOAD (1.5) and
// BENCH_QUIET_WAIT (600 s): before the timed runs, wait (bounded) for the
// 1-minute load average to come down to BENCH_QUIET_LOAD;
// BENCH_CHILD_NODE_ARGS: node flags for the upload processes (e.g.
// --cpu-prof --cpu-prof-dir=DIR); BENCH_S3_CONFIG: more keys for the S3
// buckets' config, `;`-separated (e.g. `disable_multipart: true;send_content_md5: false`).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { DeleteObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { machineBusySeconds } from './compare/proc.js';
import { shipBlocks } from './ship/make-blocks.js';
import type { UploadJob, UploadResult } from './ship/upload-run.js';
import { loadText, waitForLowLoad } from './support/load-average.js';
import { startRadosgw, startS3rver, type S3Server } from '../test/objstore/s3-servers.js';

const run = promisify(execFile);
const root = new URL('..', import.meta.url).pathname;
const env = (name: string, fallback: number): number => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`bench:ship: ${name}=${v} is not a non-negative number`);
  return n;
};
const SERIES = env('BENCH_SHIP_SERIES', 40_000);
const BLOCKS = env('BENCH_SHIP_BLOCKS', 3);
const RUNS = Math.max(1, env('BENCH_RUNS', 3));
const TARGETS = new Set((process.env.BENCH_TARGETS ?? 'filesystem,radosgw,s3rver').split(',').map((s) => s.trim()));
const QUIET_LOAD = env('BENCH_QUIET_LOAD', 1.5);
const QUIET_WAIT_S = env('BENCH_QUIET_WAIT', 600);
const CHILD_NODE_ARGS = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
const S3_CONFIG = (process.env.BENCH_S3_CONFIG ?? '').split(';').map((s) => s.trim()).filter((s) => s !== '');
/** One upload (or copy) must end within this. */
const RUN_TIMEOUT_MS = 600_000;
/** radosgw's memstore OSD keeps objects in memory: room for a few runs even if its garbage collection lags. */
const RGW_OSD_BYTES = 6 * 2 ** 30;

const f = (x: number, d = 0): string => (Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : 'n/a');
const mib = (bytes: number): string => `${f(bytes / 2 ** 20)} MiB`;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const log = (s: string): void => void process.stderr.write(`${s}\n`);

/** One timed upload or copy. */
interface Run {
  ms: number;
  bytes: number;
  blocks: number;
  /** CPU of the uploading process, and of the whole machine, during the run (ms). */
  cpuMs: number;
  machineCpuMs: number;
  /** CPU of the store's processes during the run (radosgw, its OSD and monitor; s3rver: this process), when known. */
  serverCpuMs?: number;
  peakRssBytes?: number;
  rssBeforeBytes?: number;
  /** Time with no request in flight, with one, with more (S3 only). */
  wire?: { idleMs: number; oneMs: number; moreMs: number };
}

interface Row {
  target: string;
  how: string;
  runs: Run[];
}

const rows: Row[] = [];
const notes: string[] = [];

function filesOf(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesOf(p));
    else out.push(p);
  }
  return out;
}

/** Bytes the shipper uploads: chunk segments, index, meta.json (the local one; the uploaded one has the Thanos section). */
function shippedBytes(blocks: string[]): number {
  let n = 0;
  for (const b of blocks) {
    for (const c of readdirSync(join(b, 'chunks'))) n += statSync(join(b, 'chunks', c)).size;
    n += statSync(join(b, 'index')).size + statSync(join(b, 'meta.json')).size;
  }
  return n;
}

async function uploadOnce(job: UploadJob): Promise<Run> {
  // execFile, not spawnSync: s3rver answers from this process' event loop.
  const { stdout } = await run(process.execPath, [...CHILD_NODE_ARGS, '--import', 'tsx', join(root, 'bench/ship/upload-run.ts'), JSON.stringify(job)], {
    cwd: root, timeout: RUN_TIMEOUT_MS, maxBuffer: 16 << 20,
  });
  const r = JSON.parse(stdout.trim().split('\n').pop()!) as UploadResult;
  if (!r.peakReset) notes.push('VmHWM could not be reset: peak RSS includes the upload process\' start-up');
  return {
    ms: r.ms, bytes: r.bytes, blocks: r.blocks, cpuMs: r.cpuMs, machineCpuMs: r.machineCpuMs, serverCpuMs: r.storeCpuMs,
    peakRssBytes: r.peakRssBytes, rssBeforeBytes: r.rssBeforeBytes, wire: r.wire,
  };
}

/** One way of uploading, measured: `once` makes run i, `after` cleans up after it. */
interface Contender {
  how: string;
  once: (i: number) => Promise<Run>;
  after: (i: number) => Promise<void>;
}

/**
 * Runs each contender one time to warm up, then RUNS times, taking turns
 * (run i of every contender, then run i+1), so that a change in the
 * machine's load falls on all of them alike.
 */
async function measure(target: string, ...contenders: Contender[]): Promise<void> {
  const runs: Run[][] = contenders.map(() => []);
  for (let i = 0; i <= RUNS; i++) {
    for (const [k, c] of contenders.entries()) {
      const r = await c.once(i);
      await c.after(i);
      if (i > 0) runs[k]!.push(r);
      log(`${target}, ${c.how}, ${i === 0 ? 'warm-up' : `run ${i}`}: ${f(r.bytes / 1e6, 1)} MB in ${f(r.ms)} ms = ${f(r.bytes / 1e6 / (r.ms / 1000), 1)} MB/s`);
    }
  }
  for (const [k, c] of contenders.entries()) rows.push({ target, how: c.how, runs: runs[k]! });
}

/** The FILESYSTEM bucket, a fresh directory a run; then `cp -r` and `cp -r` + `sync FILE...` of the same blocks. */
async function filesystem(blocksDir: string, blocks: string[]): Promise<void> {
  const parent = mkdtempSync(join(tmpdir(), 'strata-bench-ship-fs-'));
  const want = blocks.reduce((n, b) => n + readdirSync(join(b, 'chunks')).length + 2, 0);
  const bytes = shippedBytes(blocks);
  try {
    await measure('FILESYSTEM', { how: 'Strata shipper', once: async (i) => {
      const bucketDir = join(parent, `ship-${i}`, 'bucket');
      const metaDir = join(parent, `ship-${i}`);
      mkdirSync(metaDir, { recursive: true });
      const r = await uploadOnce({ mode: 'shipper', bucketYaml: `type: FILESYSTEM\nconfig:\n  directory: ${JSON.stringify(bucketDir)}\n`, blocksDir, metaDir });
      const objects = filesOf(bucketDir).length;
      if (objects !== want || r.blocks !== blocks.length) throw new Error(`FILESYSTEM bucket holds ${objects} objects of ${r.blocks} blocks; want ${want} of ${blocks.length}`);
      return r;
    }, after: async (i) => rmSync(join(parent, `ship-${i}`), { recursive: true, force: true }) });

    // cp -r, timed alone and then with an fsync of every copied file (what the bucket does for each object).
    const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
    const synced: Run[] = [];
    await measure('FILESYSTEM', { how: 'reference: cp -r', once: async (i) => {
      const dest = join(parent, `cp-${i}`);
      mkdirSync(dest);
      const busy0 = machineBusySeconds();
      const t0 = performance.now();
      const cp = timeBin !== undefined
        ? await run(timeBin, ['-f', '%M %U %S', 'cp', '-r', ...blocks, dest], { timeout: RUN_TIMEOUT_MS })
        : await run('cp', ['-r', ...blocks, dest], { timeout: RUN_TIMEOUT_MS });
      const ms = performance.now() - t0;
      const machineCpuMs = (machineBusySeconds() - busy0) * 1000;
      const [maxKb, user, sys] = timeBin !== undefined ? cp.stderr.trim().split('\n').pop()!.split(' ').map(Number) : [NaN, NaN, NaN];
      const copied = filesOf(dest).filter((p) => !p.endsWith('/tombstones'));
      const s0 = performance.now();
      await run('sync', copied, { timeout: RUN_TIMEOUT_MS });
      const syncMs = performance.now() - s0;
      const cpuMs = (user! + sys!) * 1000;
      const r: Run = { ms, bytes, blocks: blocks.length, cpuMs, machineCpuMs, peakRssBytes: maxKb! * 1024 };
      if (i > 0) synced.push({ ...r, ms: ms + syncMs, machineCpuMs: (machineBusySeconds() - busy0) * 1000 });
      return r;
    }, after: async (i) => rmSync(join(parent, `cp-${i}`), { recursive: true, force: true }) });
    rows.push({ target: 'FILESYSTEM', how: 'reference: cp -r, then sync FILE... (fsync each)', runs: synced });
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}

/** Deletes every object under `prefix` (a few dozen at most: one by one). */
async function deletePrefix(client: S3Client, bucket: string, prefix: string): Promise<number> {
  let n = 0;
  for (let page = 0; page < 1000; page++) {
    const got = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
    const keys = (got.Contents ?? []).map((c) => c.Key).filter((k): k is string => k !== undefined);
    if (keys.length === 0) break;
    for (const k of keys) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: k }));
    n += keys.length;
  }
  return n;
}

/** One S3 store: the shipper, then the bare PutObject reference, on fresh prefixes. */
async function s3(target: string, server: S3Server, blocksDir: string, blocks: string[], storePids: number[]): Promise<void> {
  const want = blocks.reduce((n, b) => n + readdirSync(join(b, 'chunks')).length + 2, 0);
  const yaml = (prefix: string): string => [
    'type: S3',
    'config:',
    `  bucket: ${server.bucket}`,
    `  endpoint: ${server.endpoint}`,
    `  access_key: ${server.accessKey}`,
    `  secret_key: ${server.secretKey}`,
    '  insecure: true',
    '  region: us-east-1',
    ...S3_CONFIG.map((line) => `  ${line}`),
    `prefix: ${prefix}`,
    '',
  ].join('\n');
  await measure(target, {
    how: 'Strata shipper',
    once: async (i) => {
      const metaDir = mkdtempSync(join(tmpdir(), 'strata-bench-ship-meta-'));
      try {
        return await uploadOnce({ mode: 'shipper', bucketYaml: yaml(`ship-${i}`), blocksDir, metaDir, storePids });
      } finally {
        rmSync(metaDir, { recursive: true, force: true });
      }
    },
    after: async (i) => {
      const n = await deletePrefix(server.client, server.bucket, `ship-${i}/`);
      if (n !== want) throw new Error(`${target}: ${n} objects under ship-${i}/, want ${want}`);
    },
  }, {
    how: 'reference: SDK PutObject, file by file',
    once: (i) => uploadOnce({
      mode: 'put', endpoint: server.endpoint, accessKey: server.accessKey, secretKey: server.secretKey, bucket: server.bucket, prefix: `put-${i}/`, blocksDir, storePids,
    }),
    after: async (i) => {
      const n = await deletePrefix(server.client, server.bucket, `put-${i}/`);
      if (n !== want) throw new Error(`${target}: ${n} objects under put-${i}/, want ${want}`);
    },
  });
}

/** radosgw, its OSD and its monitor, by the pids scripts/start-radosgw.sh records (none when unreadable). */
function radosgwPids(): number[] {
  const dir = process.env.STRATA_RGW_DIR ?? '/tmp/strata-radosgw';
  const pids: number[] = [];
  for (const d of ['rgw', 'osd', 'mon']) {
    try {
      pids.push(Number(readFileSync(join(dir, 'run', `${d}.pid`), 'utf8').trim()));
    } catch {
      return [];
    }
  }
  return pids;
}

function table(): string[] {
  const out = [
    '| target | what | MB/s, median | MB/s of each run | wall s, median | uploader CPU s | store CPU s | machine CPU s | peak RSS (RSS before) | wire s: 0 / 1 / 2+ requests in flight |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const rate = r.runs.map((x) => x.bytes / 1e6 / (x.ms / 1000));
    const m = (g: (x: Run) => number | undefined): number => median(r.runs.map((x) => g(x) ?? NaN));
    const peak = m((x) => x.peakRssBytes);
    const before = m((x) => x.rssBeforeBytes);
    const wire = Number.isFinite(m((x) => x.wire?.idleMs)) && m((x) => x.wire?.oneMs) > 0
      ? [m((x) => x.wire?.idleMs), m((x) => x.wire?.oneMs), m((x) => x.wire?.moreMs)].map((v) => f(v / 1000, 2)).join(' / ')
      : '-';
    out.push(`| ${r.target} | ${r.how} | ${f(median(rate), 1)} | ${rate.map((x) => f(x, 1)).join(', ')} | ${f(m((x) => x.ms) / 1000, 2)} | ${f(m((x) => x.cpuMs) / 1000, 2)} | ${Number.isFinite(m((x) => x.serverCpuMs)) ? f(m((x) => x.serverCpuMs) / 1000, 2) : '-'} | ${f(m((x) => x.machineCpuMs) / 1000, 2)} | ${Number.isFinite(peak) ? mib(peak) : 'n/a'}${Number.isFinite(before) ? ` (${mib(before)})` : ''} | ${wire} |`);
  }
  return out;
}

async function main(): Promise<void> {
  const loadStart = loadText();
  const made = await shipBlocks(SERIES, BLOCKS);
  const blocks = made.blocks;
  let samples = 0;
  let chunkBytes = 0;
  let indexBytes = 0;
  for (const b of blocks) {
    const meta = JSON.parse(readFileSync(join(b, 'meta.json'), 'utf8')) as { stats: { numSamples: number } };
    samples += meta.stats.numSamples;
    for (const c of readdirSync(join(b, 'chunks'))) chunkBytes += statSync(join(b, 'chunks', c)).size;
    indexBytes += statSync(join(b, 'index')).size;
  }
  const total = shippedBytes(blocks);
  log(`blocks: ${blocks.length} x ${f(SERIES)} series, ${f(total / 1e6, 1)} MB (${made.madeSeconds > 0 ? `made in ${f(made.madeSeconds, 1)} s` : 'reused'})`);

  const quiet = await waitForLowLoad(QUIET_LOAD, QUIET_WAIT_S, 10, (l) => log(`load average ${l.toFixed(2)} above ${QUIET_LOAD}: waiting`));
  const loadRuns = loadText();

  if (TARGETS.has('filesystem')) await filesystem(made.dir, blocks);
  const skipped: string[] = [];
  if (TARGETS.has('radosgw')) {
    process.env.STRATA_RGW_OSD_BYTES ??= String(RGW_OSD_BYTES);
    const t0 = performance.now();
    const server = await startRadosgw();
    if (typeof server === 'string') {
      skipped.push(`radosgw skipped: ${server}`);
      log(`radosgw skipped: ${server}`);
    } else {
      log(`radosgw at ${server.endpoint} in ${f((performance.now() - t0) / 1000, 1)} s`);
      try {
        await s3('S3 (radosgw)', server, made.dir, blocks, radosgwPids());
      } finally {
        await server.stop();
      }
    }
  }
  if (TARGETS.has('s3rver')) {
    const server = await startS3rver();
    if (typeof server === 'string') {
      skipped.push(`s3rver skipped: ${server}`);
    } else {
      try {
        // s3rver runs in this process.
        await s3('S3 (s3rver)', server, made.dir, blocks, [process.pid]);
      } finally {
        await server.stop();
      }
    }
  }

  console.log(`Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${f(totalmem() / 2 ** 30)} GiB, ${new Date().toISOString().slice(0, 10)}`);
  console.log(`load average (1, 5, 15 min): ${loadStart} at the start, ${loadRuns} before the runs${quiet.waitedS > 0 ? ` (waited ${f(quiet.waitedS)} s${quiet.low ? '' : ', still above the limit'})` : ''}, ${loadText()} at the end`);
  console.log(`blocks: ${blocks.length} consecutive 2 h blocks of ${f(SERIES)} node_exporter-like series at 15 s (Strata's block writer), ${f(samples)} samples; chunks ${f(chunkBytes / 1e6, 1)} MB (${f(chunkBytes / samples, 2)} bytes/sample), index ${f(indexBytes / 1e6, 1)} MB; ${f(total / 1e6, 1)} MB shipped a run`);
  console.log(`median of ${RUNS} runs after one warm-up; each upload in a process of its own${S3_CONFIG.length > 0 ? `; S3 config adds: ${S3_CONFIG.join(', ')}` : ''}\n`);
  for (const line of table()) console.log(line);
  for (const s of skipped) console.log(`\n${s}`);
  for (const n of new Set(notes)) console.log(`\n${n}`);
}

await main();
