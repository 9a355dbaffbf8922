import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import type * as http from 'node:http';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeleteObjectCommand, GetBucketLocationCommand, GetObjectCommand, HeadObjectCommand, ListObjectsCommand, ListObjectsV2Command,
  PutObjectCommand, S3Client, type PutObjectCommandInput, type StorageClass,
} from '@aws-sdk/client-s3';
import type { NodeHttpHandler } from '@smithy/node-http-handler';
import { ObjectNotFoundError, type Bucket } from './bucket.js';
import type { S3Config } from './config-s3.js';
import { configError } from './errors.js';
import type { ObjstoreLogger } from './logger.js';
import { compareUtf8 } from '../encoding/utf8.js';
import { dirPrefix, sortNames } from './names.js';
import { makeAgent, makeClient, makeHandler, readTlsFiles } from './s3-client.js';
import { endpointHost, regionFromHost } from './s3-endpoint.js';
import { attemptsFor, backoffMs, isRetryable } from './s3-retry.js';
import { PartBuffers } from './part-buffers.js';
import { PartHasher } from './part-hasher.js';
import { bufferSource, fileSource, multipartUpload, type PartSource } from './s3-multipart.js';
import { splitUserMetadata, uploadPlan } from './s3-upload.js';

/** The parameters SSE adds to writes and, for SSE-C, to reads. */
interface SseParams {
  write: Partial<PutObjectCommandInput>;
  read: { SSECustomerAlgorithm?: string; SSECustomerKey?: string };
}

/**
 * Opens an S3 bucket: reads the files the configuration names (TLS, SSE-C
 * key), builds the connection pool and the SDK clients. Contacts the store
 * only when the region must be looked up (no `region` and an endpoint that
 * names none), and then at the first request, as minio does.
 */
export async function openS3Bucket(cfg: S3Config, log?: ObjstoreLogger): Promise<S3Bucket> {
  const tls = await readTlsFiles(cfg.httpConfig);
  const sse = await sseParams(cfg);
  if (cfg.httpConfig.tlsConfig.insecureSkipVerify && !cfg.httpConfig.insecureSkipVerify) {
    log?.warn({ objstore: 'S3' }, 'config.http_config.tls_config.insecure_skip_verify is overridden by config.http_config.insecure_skip_verify in Thanos\' S3 client, and so in Strata: certificates are verified');
  }
  return new S3Bucket(cfg, makeAgent(cfg, tls), sse, log);
}

async function sseParams(cfg: S3Config): Promise<SseParams> {
  const s = cfg.sseConfig;
  switch (s.type) {
    case 'SSE-S3':
      return { write: { ServerSideEncryption: 'AES256' }, read: {} };
    case 'SSE-KMS':
      return {
        write: {
          ServerSideEncryption: 'aws:kms',
          SSEKMSKeyId: s.kmsKeyId,
          // As Thanos: the context always goes, `{}` when none is given.
          SSEKMSEncryptionContext: Buffer.from(JSON.stringify(s.kmsEncryptionContext)).toString('base64'),
        },
        read: {},
      };
    case 'SSE-C': {
      let key: Buffer;
      try {
        key = await readFile(s.encryptionKey);
      } catch (err) {
        throw configError('config.sse_config.encryption_key', `cannot read ${s.encryptionKey}: ${(err as Error).message}`);
      }
      if (key.length !== 32) throw configError('config.sse_config.encryption_key', `${s.encryptionKey} holds ${key.length} bytes; an SSE-C key is 32 bytes (AES-256)`);
      const c = { SSECustomerAlgorithm: 'AES256', SSECustomerKey: key.toString('base64') };
      return { write: c, read: c };
    }
    default:
      return { write: {}, read: {} };
  }
}

interface Clients {
  /** Retries as minio does; for requests whose body can be sent again. */
  client: S3Client;
  /** One attempt per call; for streamed bodies, which S3Bucket retries by reopening the file. */
  once: S3Client;
}

/** Thanos' S3 bucket over the AWS SDK for JavaScript v3. */
export class S3Bucket implements Bucket {
  readonly name: string;
  private readonly handler: NodeHttpHandler;
  private readonly attempts: number;
  private readonly putParams: Partial<PutObjectCommandInput>;
  private clients: Promise<Clients> | undefined;
  /** Hashes file parts off the main thread: Content-MD5 when send_content_md5, the payload's SHA-256 over plain HTTP (over TLS the payload goes unsigned). */
  private readonly hasher: PartHasher | undefined;
  /** The part buffers of multipart uploads from files, kept from one upload to the next. */
  private readonly partBuffers = new PartBuffers();

  constructor(private readonly cfg: S3Config, private readonly agent: http.Agent, private readonly sse: SseParams, private readonly log?: ObjstoreLogger) {
    this.name = `S3 ${cfg.bucket}@${cfg.endpoint}`;
    this.handler = makeHandler(cfg, agent);
    this.attempts = attemptsFor(cfg.maxRetries);
    this.hasher = cfg.sendContentMd5 || cfg.insecure ? new PartHasher({ md5: cfg.sendContentMd5, sha256: cfg.insecure }) : undefined;
    const meta = splitUserMetadata(cfg.putUserMetadata);
    this.putParams = {
      ...(Object.keys(meta.metadata).length > 0 ? { Metadata: meta.metadata } : {}),
      ...(meta.storageClass !== undefined ? { StorageClass: meta.storageClass as StorageClass } : {}),
      ...sse.write,
    };
  }

  /**
   * The clients, made on first use: the region is `region`, or the one the
   * endpoint's host names, or (as minio) the bucket's location asked of the
   * store with a request signed for us-east-1.
   */
  private getClients(): Promise<Clients> {
    this.clients ??= (async () => {
      const region = this.cfg.region || regionFromHost(endpointHost(this.cfg.endpoint)) || (await this.bucketLocation());
      const o = { handler: this.handler, region, log: this.log };
      return { client: makeClient(this.cfg, { ...o, attempts: this.attempts }), once: makeClient(this.cfg, { ...o, attempts: 1 }) };
    })().catch((err: unknown) => {
      this.clients = undefined;
      throw err;
    });
    return this.clients;
  }

  /** minio's getBucketLocation and processBucketLocationResponse. */
  private async bucketLocation(): Promise<string> {
    const probe = makeClient({ ...this.cfg, bucketLookupType: this.cfg.bucketLookupType === 'virtual-hosted' ? 'virtual-hosted' : 'path', region: 'us-east-1' }, {
      handler: this.handler, region: 'us-east-1', attempts: this.attempts, log: this.log,
    });
    try {
      const out = await probe.send(new GetBucketLocationCommand({ Bucket: this.cfg.bucket }));
      const loc = out.LocationConstraint as string | undefined;
      if (loc === undefined || loc === '') return 'us-east-1';
      return loc === 'EU' ? 'eu-west-1' : loc;
    } catch (err) {
      const e = err as { name?: string; Region?: string };
      if (e.name === 'AccessDenied' || e.name === 'AuthorizationHeaderMalformed' || e.name === 'InvalidRegion') return e.Region || 'us-east-1';
      if (e.name === 'NotImplemented') return 'us-east-1';
      throw this.fail('look up the region of the bucket', '', err);
    }
  }

  async upload(name: string, bytes: Uint8Array): Promise<void> {
    const { client } = await this.getClients();
    const body = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    try {
      const plan = uploadPlan(body.length, this.cfg);
      if (!plan.multipart) {
        await client.send(new PutObjectCommand({ Bucket: this.cfg.bucket, Key: name, Body: body, ContentLength: body.length, ...this.putParams }));
      } else {
        await this.multipart(client, name, bufferSource(body), plan.partSize);
      }
    } catch (err) {
      throw this.fail('upload', name, err);
    }
  }

  /**
   * A file of at most one part (see uploadPlan) is read whole and sent in
   * one PUT (retried by the client); past that, a multipart upload reads
   * each part straight into one of two part buffers (s3-multipart.ts: at
   * most two parts in memory an upload), by the hasher's thread as it
   * hashes them when there is one. With disable_multipart, one PUT streamed
   * from the file (Content-MD5 from a first pass over it when
   * send_content_md5), retried by reopening the file.
   */
  async uploadFile(name: string, path: string): Promise<void> {
    const { client, once } = await this.getClients();
    let file: FileHandle | undefined;
    try {
      file = await open(path, 'r');
      const size = (await file.stat()).size;
      const plan = uploadPlan(size, this.cfg);
      if (plan.multipart) {
        await this.multipart(client, name, fileSource(file, size), plan.partSize);
        return;
      }
      if (!this.cfg.disableMultipart) {
        const body = await fileSource(file, size).read(0, size, Buffer.allocUnsafe(size));
        await client.send(new PutObjectCommand({ Bucket: this.cfg.bucket, Key: name, Body: body, ContentLength: body.length, ...this.putParams }));
        return;
      }
      const md5 = this.cfg.sendContentMd5 ? await fileMd5(path) : undefined;
      await this.retrying(() => once.send(new PutObjectCommand({
        Bucket: this.cfg.bucket, Key: name, Body: createReadStream(path), ContentLength: size, ...(md5 !== undefined ? { ContentMD5: md5 } : {}), ...this.putParams,
      })));
    } catch (err) {
      throw this.fail('upload', name, err);
    } finally {
      await file?.close();
    }
  }

  private multipart(client: S3Client, name: string, source: PartSource, partSize: number): Promise<void> {
    return multipartUpload(client, source, {
      create: { Bucket: this.cfg.bucket, Key: name, ...this.putParams },
      part: this.sse.read,
      partSize,
      hashing: this.hasher,
      buffers: this.partBuffers,
    });
  }

  private async retrying<T>(f: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await f();
      } catch (err) {
        if (attempt >= this.attempts || !isRetryable(err)) throw err;
        await sleep(backoffMs(attempt));
      }
    }
  }

  async get(name: string): Promise<Buffer> {
    const { client } = await this.getClients();
    try {
      const out = await client.send(new GetObjectCommand({ Bucket: this.cfg.bucket, Key: name, ...this.sse.read }));
      if (out.Body === undefined) return Buffer.alloc(0);
      const bytes = await out.Body.transformToByteArray();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (err) {
      throw this.fail('get', name, err);
    }
  }

  async exists(name: string): Promise<boolean> {
    try {
      await this.head(name);
      return true;
    } catch (err) {
      if (err instanceof ObjectNotFoundError) return false;
      throw err;
    }
  }

  async size(name: string): Promise<number> {
    return (await this.head(name)).ContentLength ?? 0;
  }

  private async head(name: string) {
    const { client } = await this.getClients();
    try {
      return await client.send(new HeadObjectCommand({ Bucket: this.cfg.bucket, Key: name, ...this.sse.read }));
    } catch (err) {
      throw this.fail('stat', name, err);
    }
  }

  /**
   * ListObjectsV2 (or ListObjects with list_objects_version: v1) under
   * `dir/`, with delimiter `/` unless recursive, page after page. Keys come
   * URL-encoded when the store honours it (as minio asks), so that any key
   * survives XML.
   */
  async iter(dir: string, opts?: { recursive?: boolean }): Promise<string[]> {
    const { client } = await this.getClients();
    const prefix = dirPrefix(dir);
    const delimiter = opts?.recursive === true ? undefined : '/';
    const out: string[] = [];
    const add = (key: string | undefined, encoded: boolean) => {
      if (key === undefined || key === '') return;
      const k = encoded ? decodeURIComponent(key.replace(/\+/g, ' ')) : key;
      if (k !== prefix) out.push(k);
    };
    const base = { Bucket: this.cfg.bucket, Prefix: prefix, EncodingType: 'url' as const, ...(delimiter !== undefined ? { Delimiter: delimiter } : {}) };
    try {
      if (this.cfg.listObjectsVersion === 'v1') {
        let marker: string | undefined;
        for (;;) {
          const page = await client.send(new ListObjectsCommand({ ...base, ...(marker !== undefined ? { Marker: marker } : {}) }));
          const enc = page.EncodingType === 'url';
          for (const c of page.Contents ?? []) add(c.Key, enc);
          for (const p of page.CommonPrefixes ?? []) add(p.Prefix, enc);
          if (page.IsTruncated !== true) break;
          // NextMarker comes only with a delimiter; else the last key is the marker.
          const last = page.NextMarker ?? lastOf(page.Contents?.map((c) => c.Key), page.CommonPrefixes?.map((p) => p.Prefix));
          if (last === undefined || last === marker) break;
          marker = enc ? decodeURIComponent(last.replace(/\+/g, ' ')) : last;
        }
      } else {
        let token: string | undefined;
        for (;;) {
          const page = await client.send(new ListObjectsV2Command({ ...base, ...(token !== undefined ? { ContinuationToken: token } : {}) }));
          const enc = page.EncodingType === 'url';
          for (const c of page.Contents ?? []) add(c.Key, enc);
          for (const p of page.CommonPrefixes ?? []) add(p.Prefix, enc);
          if (page.IsTruncated !== true || page.NextContinuationToken === undefined) break;
          token = page.NextContinuationToken;
        }
      }
    } catch (err) {
      throw this.fail('list', prefix, err);
    }
    return sortNames([...new Set(out)]);
  }

  async delete(name: string): Promise<void> {
    const { client } = await this.getClients();
    try {
      await client.send(new DeleteObjectCommand({ Bucket: this.cfg.bucket, Key: name }));
    } catch (err) {
      if (isObjectMissing(err)) return;
      throw this.fail('delete', name, err);
    }
  }

  async close(): Promise<void> {
    const clients = await this.clients?.catch(() => undefined);
    clients?.client.destroy();
    clients?.once.destroy();
    this.handler.destroy();
    this.agent.destroy();
    await this.hasher?.close();
    this.partBuffers.clear();
  }

  /** ObjectNotFoundError for a missing key; otherwise the SDK's error wrapped with the bucket, the operation and the object. */
  private fail(op: string, name: string, err: unknown): Error {
    if (err instanceof ObjectNotFoundError) return err;
    if (isObjectMissing(err)) return new ObjectNotFoundError(name, this.name);
    const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
    const status = e.$metadata?.httpStatusCode !== undefined ? ` (HTTP ${e.$metadata.httpStatusCode})` : '';
    const what = name === '' ? op : `${op} ${JSON.stringify(name)}`;
    return new Error(`${this.name}: ${what}: ${e.name ?? 'Error'}${status}: ${e.message ?? String(err)}`, { cause: err });
  }
}

/** NoSuchKey, or a HEAD's bare 404. */
function isObjectMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  if (e?.name === 'NoSuchKey') return true;
  return e?.name === 'NotFound' || (e?.$metadata?.httpStatusCode === 404 && e.name !== 'NoSuchBucket');
}

function lastOf(...lists: (Array<string | undefined> | undefined)[]): string | undefined {
  let last: string | undefined;
  for (const l of lists) for (const s of l ?? []) if (s !== undefined && (last === undefined || compareUtf8(s, last) > 0)) last = s;
  return last;
}

async function fileMd5(path: string): Promise<string> {
  const hash = createHash('md5');
  await pipeline(createReadStream(path), hash);
  return hash.digest('base64');
}
