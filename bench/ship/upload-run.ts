// node --import tsx bench/ship/upload-run.ts '<json>' — one timed upload of
// a directory of blocks, in a process of its own so that its peak RSS is
// the upload's (bench/ship.bench.ts starts it once a run). Prints one JSON
// line (UploadResult) on stdout as its last line.
//
// Modes:
// - shipper: Strata's Shipper (src/shipper/shipper.ts) over the bucket the
//   Thanos bucket configuration names: one pass, as `strata serve` or
//   `strata sidecar` runs it when blocks are new (every block looked up in
//   the bucket, uploaded chunks/, index, meta.json; thanos.shipper.json
//   written).
// - put: the reference: the AWS SDK's PutObjectCommand, one request a file
//   with the file read whole into memory, one file after another; no
//   Content-MD5, no multipart, no existence checks.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { listBlockDirs } from '../../src/blocks/block-reader.js';
import { openBucket, parseBucketConfig } from '../../src/objstore/index.js';
import { Shipper } from '../../src/shipper/shipper.js';
import { cpuSeconds, machineBusySeconds } from '../compare/proc.js';
import { watchWire, type WireTime } from './wire.js';

/** The store's processes (their CPU during the upload is reported). */
interface Common { storePids?: number[] }

export type UploadJob =
  | (Common & { mode: 'shipper'; bucketYaml: string; blocksDir: string; metaDir: string })
  | (Common & { mode: 'put'; endpoint: string; accessKey: string; secretKey: string; bucket: string; prefix: string; blocksDir: string });

export interface UploadResult {
  ms: number;
  bytes: number;
  blocks: number;
  /** CPU this process used during the upload (user + system). */
  cpuMs: number;
  /** CPU the whole machine and the store's processes used during the upload. */
  machineCpuMs: number;
  storeCpuMs: number | undefined;
  /** VmRSS just before the upload started and the peak (VmHWM, reset just before) during it. */
  rssBeforeBytes: number;
  peakRssBytes: number;
  /** Whether the peak could be reset before the upload (else it counts start-up too). */
  peakReset: boolean;
  /** How long the upload had no request, one, or more in flight (HTTP stores only). */
  wire: WireTime;
}

const status = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) * 1024;

/** Resets VmHWM to the current RSS (Linux 4.0+: write 5 to clear_refs). */
function resetPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

async function shipperUpload(job: Extract<UploadJob, { mode: 'shipper' }>, timed: (f: () => Promise<void>) => Promise<void>): Promise<{ bytes: number; blocks: number }> {
  const bucket = await openBucket(parseBucketConfig(job.bucketYaml), quiet);
  const shipper = new Shipper({
    bucket, blocksDir: job.blocksDir, metaDir: job.metaDir, log: quiet,
    ship: () => ({ labels: { cluster: 'bench', replica: '0' }, source: 'sidecar' }),
    intervalMs: 3_600_000,
  });
  try {
    await timed(() => shipper.syncNow());
  } finally {
    await shipper.stop();
    await bucket.close();
  }
  const c = shipper.counters;
  if (c.uploadFailures > 0 || c.dirSyncFailures > 0) throw new Error(`shipper: ${c.uploadFailures} failed uploads, ${c.dirSyncFailures} failed passes`);
  return { bytes: c.uploadedBytes, blocks: c.uploads };
}

async function putUpload(job: Extract<UploadJob, { mode: 'put' }>, timed: (f: () => Promise<void>) => Promise<void>): Promise<{ bytes: number; blocks: number }> {
  const client = new S3Client({
    endpoint: `http://${job.endpoint}`, region: 'us-east-1', forcePathStyle: true,
    credentials: { accessKeyId: job.accessKey, secretAccessKey: job.secretKey },
    requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const blocks = listBlockDirs(job.blocksDir).sort();
  const files: Array<[string, string]> = [];
  for (const dir of blocks) {
    const ulid = dir.slice(dir.lastIndexOf('/') + 1);
    for (const f of readdirSync(join(dir, 'chunks')).sort()) files.push([`${job.prefix}${ulid}/chunks/${f}`, join(dir, 'chunks', f)]);
    files.push([`${job.prefix}${ulid}/index`, join(dir, 'index')], [`${job.prefix}${ulid}/meta.json`, join(dir, 'meta.json')]);
  }
  let bytes = 0;
  try {
    await timed(async () => {
      for (const [key, path] of files) {
        const body = await readFile(path);
        await client.send(new PutObjectCommand({ Bucket: job.bucket, Key: key, Body: body, ContentLength: body.length }));
        bytes += body.length;
      }
    });
  } finally {
    client.destroy();
  }
  return { bytes, blocks: blocks.length };
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2] ?? '') as UploadJob;
  let ms = 0;
  let cpuMs = 0;
  let machineCpuMs = 0;
  let storeCpuMs: number | undefined;
  const pids = job.storePids ?? [];
  const storeCpu = (): number => pids.reduce((sum, p) => sum + cpuSeconds(p), 0);
  let rssBeforeBytes = 0;
  let peakReset = false;
  let wire: WireTime = { idleMs: 0, oneMs: 0, moreMs: 0 };
  const timed = async (f: () => Promise<void>): Promise<void> => {
    const watch = watchWire();
    rssBeforeBytes = status('VmRSS');
    peakReset = resetPeak();
    const cpu = process.cpuUsage();
    const busy0 = machineBusySeconds();
    const store0 = storeCpu();
    const t0 = performance.now();
    watch.start();
    await f();
    ms = performance.now() - t0;
    wire = watch.stop();
    const used = process.cpuUsage(cpu);
    cpuMs = (used.user + used.system) / 1000;
    machineCpuMs = (machineBusySeconds() - busy0) * 1000;
    if (pids.length > 0) storeCpuMs = (storeCpu() - store0) * 1000;
  };
  const got = job.mode === 'shipper' ? await shipperUpload(job, timed) : await putUpload(job, timed);
  const result: UploadResult = { ms, ...got, cpuMs, machineCpuMs, storeCpuMs, rssBeforeBytes, peakRssBytes: status('VmHWM'), peakReset, wire };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
