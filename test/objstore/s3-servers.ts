import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../scripts/start-radosgw.sh', import.meta.url));

/** An S3 endpoint on 127.0.0.1 with an empty bucket made for the caller. */
export interface S3Server {
  kind: string;
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  /** A plain SDK client on the server, to look behind the bucket's back. */
  client: S3Client;
  stop(): Promise<void>;
}

function rawClient(endpoint: string, accessKey: string, secretKey: string): S3Client {
  return new S3Client({
    endpoint: `http://${endpoint}`, region: 'us-east-1', forcePathStyle: true,
    credentials: { accessKeyId: accessKey, secretAccessKey: secretKey },
    requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export async function emptyAndDelete(client: S3Client, bucket: string): Promise<void> {
  for (;;) {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    const keys = (page.Contents ?? []).map((c) => c.Key!).filter((k) => k !== undefined);
    if (keys.length === 0) break;
    for (const k of keys) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: k }));
  }
  await client.send(new DeleteBucketCommand({ Bucket: bucket }));
}

async function onPath(bin: string): Promise<boolean> {
  return run('sh', ['-c', `command -v ${bin}`]).then(() => true, () => false);
}

/**
 * Ceph's radosgw through scripts/start-radosgw.sh (a single-node cluster on
 * 127.0.0.1, about 13 s from nothing); a fresh bucket per call. Stops the
 * cluster at the end only if this call started it. Returns the reason when
 * it cannot run.
 */
export async function startRadosgw(): Promise<S3Server | string> {
  if (!(await onPath('radosgw')) || !(await onPath('ceph-osd')) || !(await onPath('ceph-mon'))) {
    return 'radosgw is not installed (apt-get install radosgw ceph-mon ceph-osd ceph-common)';
  }
  let out: string;
  try {
    out = (await run('bash', [SCRIPT], { timeout: 180_000 })).stdout;
  } catch (err) {
    return `scripts/start-radosgw.sh failed: ${(err as { stderr?: string }).stderr?.trim().split('\n').slice(-5).join(' | ') ?? String(err)}`;
  }
  const env = Object.fromEntries([...out.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
  const endpoint = env.STRATA_S3_ENDPOINT!;
  if (!/^127\.0\.0\.1:\d+$/.test(endpoint)) return `radosgw endpoint ${endpoint} is not on 127.0.0.1`;
  const client = rawClient(endpoint, env.STRATA_S3_ACCESS_KEY!, env.STRATA_S3_SECRET_KEY!);
  const bucket = `strata-test-${randomBytes(6).toString('hex')}`;
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    kind: 'radosgw', endpoint, accessKey: env.STRATA_S3_ACCESS_KEY!, secretKey: env.STRATA_S3_SECRET_KEY!, bucket, client,
    async stop() {
      await emptyAndDelete(client, bucket).catch(() => {});
      client.destroy();
      if (env.STRATA_RGW_STARTED === '1' && process.env.STRATA_RGW_KEEP !== '1') await run('bash', [SCRIPT, 'stop'], { timeout: 60_000 });
    },
  };
}

let radosgw: Promise<S3Server | string> | undefined;

/** One radosgw for every suite in this process; stopSharedRadosgw (in a top-level after hook) ends it. */
export function sharedRadosgw(): Promise<S3Server | string> {
  radosgw ??= startRadosgw();
  return radosgw.then((s) => (typeof s === 'string' ? s : { ...s, stop: async () => {} }));
}

/** Ends the shared radosgw (if this process started it). */
export async function stopSharedRadosgw(): Promise<void> {
  const s = await radosgw;
  radosgw = undefined;
  if (s !== undefined && typeof s !== 'string') await s.stop();
}

/** s3rver (npm, a small S3 imitation) in process on 127.0.0.1, on a free port. */
export async function startS3rver(): Promise<S3Server | string> {
  let S3rver: typeof import('s3rver').default;
  try {
    S3rver = (await import('s3rver')).default;
  } catch (err) {
    return `s3rver is not installed: ${(err as Error).message}`;
  }
  const dir = await mkdtemp(join(tmpdir(), 'strata-s3rver-'));
  const bucket = `strata-test-${randomBytes(6).toString('hex')}`;
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
  let port: number;
  try {
    port = (await server.run()).port;
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    return `s3rver did not start: ${(err as Error).message}`;
  }
  const endpoint = `127.0.0.1:${port}`;
  const client = rawClient(endpoint, 'S3RVER', 'S3RVER');
  return {
    kind: 's3rver', endpoint, accessKey: 'S3RVER', secretKey: 'S3RVER', bucket, client,
    async stop() {
      client.destroy();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
