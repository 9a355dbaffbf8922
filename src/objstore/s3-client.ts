import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as http from 'node:http';
import * as https from 'node:https';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { ConfiguredRetryStrategy } from '@smithy/util-retry';
import type { HttpConfig, S3Config } from './config-s3.js';
import { configError } from './errors.js';
import type { ObjstoreLogger } from './logger.js';
import { endpointHost, isAmazonHost, isPinnedAmazonHost, useVirtualHost } from './s3-endpoint.js';
import { backoffMs } from './s3-retry.js';
import { splitUserMetadata } from './s3-upload.js';

/** Thanos' DefaultTransport dials with a 30 s timeout. */
const DIAL_TIMEOUT_MS = 30_000;
/** Go's DefaultMaxIdleConnsPerHost, which max_idle_conns_per_host: 0 means. */
const GO_DEFAULT_IDLE_PER_HOST = 2;

/** The TLS material http_config.tls_config names, read once at open. */
export interface TlsFiles {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

/** Reads the files of tls_config, naming the key of one that cannot be read. */
export async function readTlsFiles(cfg: HttpConfig): Promise<TlsFiles> {
  const t = cfg.tlsConfig;
  const read = async (file: string, key: string, what: string) => {
    if (file === '') return undefined;
    try {
      return await readFile(file);
    } catch (err) {
      throw configError(`config.http_config.tls_config.${key}`, `unable to load specified ${what} ${file}: ${(err as Error).message}`);
    }
  };
  const files: TlsFiles = {};
  const ca = await read(t.caFile, 'ca_file', 'CA cert');
  if (ca !== undefined) files.ca = ca;
  const cert = await read(t.certFile, 'cert_file', 'client cert');
  if (cert !== undefined) files.cert = cert;
  const key = await read(t.keyFile, 'key_file', 'client key');
  if (key !== undefined) files.key = key;
  return files;
}

/**
 * An https.Agent that bounds the TLS handshake (Go's TLSHandshakeTimeout),
 * which Node's agent does not: the clock starts when TCP connects.
 */
class HandshakeBoundAgent extends https.Agent {
  constructor(opts: https.AgentOptions, private readonly handshakeMs: number) {
    super(opts);
  }

  override createConnection(options: https.RequestOptions, callback?: (err: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    const socket = super.createConnection(options, callback) as TLSSocket | null | undefined;
    if (socket && this.handshakeMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      const clear = () => clearTimeout(timer);
      socket.once('connect', () => {
        timer = setTimeout(() => socket.destroy(Object.assign(new Error(`TLS handshake timeout after ${this.handshakeMs} ms`), { code: 'ETIMEDOUT' })), this.handshakeMs);
        timer.unref();
      });
      socket.once('secureConnect', clear);
      socket.once('close', clear);
    }
    return socket;
  }
}

/**
 * The connection pool of http_config, as Go's http.Transport would keep it:
 * keep-alive, idle connections closed after idle_conn_timeout, at most
 * max_conns_per_host open, at most min(max_idle_conns,
 * max_idle_conns_per_host) idle (one host). TLS: tls_config's CA, client
 * certificate and server name (SNI and the name verified); certificate
 * verification is off only with http_config.insecure_skip_verify, which in
 * Thanos' S3 client overrides tls_config.insecure_skip_verify.
 */
export function makeAgent(cfg: S3Config, tls: TlsFiles): http.Agent {
  const h = cfg.httpConfig;
  const idle = Math.min(h.maxIdleConns > 0 ? h.maxIdleConns : Infinity, h.maxIdleConnsPerHost > 0 ? h.maxIdleConnsPerHost : GO_DEFAULT_IDLE_PER_HOST);
  const base: http.AgentOptions = {
    keepAlive: true,
    maxSockets: h.maxConnsPerHost > 0 ? h.maxConnsPerHost : Infinity,
    maxFreeSockets: idle,
    ...(h.idleConnTimeoutMs > 0 ? { timeout: h.idleConnTimeoutMs } : {}),
  };
  if (cfg.insecure) return new http.Agent(base);
  const opts: https.AgentOptions = {
    ...base,
    rejectUnauthorized: !h.insecureSkipVerify,
    ...(tls.ca !== undefined ? { ca: tls.ca } : {}),
    ...(tls.cert !== undefined ? { cert: tls.cert } : {}),
    ...(tls.key !== undefined ? { key: tls.key } : {}),
    ...(h.tlsConfig.serverName !== '' ? { servername: h.tlsConfig.serverName } : {}),
  };
  return new HandshakeBoundAgent(opts, h.tlsHandshakeTimeoutMs);
}

/** Where the SDK sends requests for `cfg` in `region`. */
export function endpointOptions(cfg: S3Config): Pick<S3ClientConfig, 'endpoint' | 'forcePathStyle' | 'useDualstackEndpoint'> {
  const host = endpointHost(cfg.endpoint);
  const secure = !cfg.insecure;
  const forcePathStyle = !useVirtualHost(cfg.bucketLookupType, host, cfg.bucket, secure);
  if (isAmazonHost(host) && secure && !isPinnedAmazonHost(host)) {
    // minio sends Amazon requests to the bucket region's own host, dual-stack
    // unless disable_dualstack: the SDK's own endpoint resolution does that.
    return { forcePathStyle, useDualstackEndpoint: !cfg.disableDualstack };
  }
  return { endpoint: `${secure ? 'https' : 'http'}://${cfg.endpoint}`, forcePathStyle };
}

/** Options shared by every client made for one bucket. */
export interface ClientOptions {
  handler: NodeHttpHandler;
  region: string;
  /** Attempts per request: 1 for a client whose requests carry a stream body (retried by the caller). */
  attempts: number;
  log?: ObjstoreLogger | undefined;
}

/** An S3 client for `cfg`: credentials, endpoint, retries, checksums, metadata and trace middleware. */
export function makeClient(cfg: S3Config, o: ClientOptions): S3Client {
  const credentials: S3ClientConfig['credentials'] = cfg.accessKey !== ''
    ? { accessKeyId: cfg.accessKey, secretAccessKey: cfg.secretKey, ...(cfg.sessionToken !== '' ? { sessionToken: cfg.sessionToken } : {}) }
    // aws_sdk_auth, or no keys: the SDK's default chain (environment, shared
    // files, web identity, ECS/EC2 roles), as minio's env/file/IAM chain and
    // aws-sdk-go's LoadDefaultConfig; sts_endpoint for its STS calls.
    : fromNodeProviderChain(cfg.stsEndpoint !== '' ? { clientConfig: { endpoint: cfg.stsEndpoint, region: o.region } } : {});
  const client = new S3Client({
    region: o.region,
    ...endpointOptions(cfg),
    credentials,
    requestHandler: o.handler,
    retryStrategy: new ConfiguredRetryStrategy(o.attempts, backoffMs),
    // As minio without trailing headers: no CRC trailers (many S3-compatible
    // stores refuse them); Content-MD5 when send_content_md5 (below).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // minio never sends Expect: 100-continue (so Go's expect_continue_timeout never applies).
    expectContinueHeader: false,
    customUserAgent: 'strata',
  });
  addUploadHeaders(client, cfg);
  if (cfg.traceEnable && o.log !== undefined) addTrace(client, o.log);
  return client;
}

/**
 * On every PutObject and UploadPart: Content-MD5 of an in-memory body when
 * send_content_md5 (a streamed body has it set by the caller), an unsigned
 * payload over TLS, and the
 * put_user_metadata headers minio sends as written (x-amz-acl, x-amz-grant-*).
 */
function addUploadHeaders(client: S3Client, cfg: S3Config): void {
  const { headers } = splitUserMetadata(cfg.putUserMetadata);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const req = args.request as { headers?: Record<string, string>; body?: unknown };
      const cmd = context.commandName;
      if (req.headers !== undefined && (cmd === 'PutObjectCommand' || cmd === 'UploadPartCommand' || cmd === 'CreateMultipartUploadCommand')) {
        if (cmd !== 'UploadPartCommand') Object.assign(req.headers, headers);
        if (cfg.sendContentMd5 && cmd !== 'CreateMultipartUploadCommand' && req.body instanceof Uint8Array && !hasHeader(req.headers, 'content-md5')) {
          req.headers['content-md5'] = createHash('md5').update(req.body).digest('base64');
        }
        // minio signs a body's SHA-256 only over plain HTTP (its streaming
        // signature); over TLS it sends UNSIGNED-PAYLOAD, sparing the hash.
        if (!cfg.insecure && cmd !== 'CreateMultipartUploadCommand' && !hasHeader(req.headers, 'x-amz-content-sha256')) {
          req.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
        }
      }
      return next(args);
    },
    { step: 'build', name: 'strataUploadHeaders' },
  );
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === name);
}

/** trace.enable: each attempt's request and answer at debug level (signatures left out). */
function addTrace(client: S3Client, log: ObjstoreLogger): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const req = args.request as { method?: string; hostname?: string; path?: string; query?: unknown; headers?: Record<string, string> };
      const headers = { ...(req.headers ?? {}) };
      for (const k of Object.keys(headers)) if (/^(authorization|x-amz-security-token|x-amz-server-side-encryption-customer-key)$/i.test(k)) headers[k] = '<redacted>';
      log.debug({ s3TraceMsg: 'request', command: context.commandName, method: req.method, host: req.hostname, path: req.path, query: req.query, headers }, 's3 request');
      try {
        const out = await next(args);
        const res = out.response as { statusCode?: number; headers?: Record<string, string> };
        log.debug({ s3TraceMsg: 'response', command: context.commandName, status: res.statusCode, headers: res.headers }, 's3 response');
        return out;
      } catch (err) {
        log.debug({ s3TraceMsg: 'error', command: context.commandName, err: String(err) }, 's3 request failed');
        throw err;
      }
    },
    { step: 'deserialize', name: 'strataTrace' },
  );
}

/**
 * The request handler over `agent`: dial bounded as Thanos' transport (30 s),
 * and a socket that stays silent for response_header_timeout fails the
 * attempt (Node has no timeout on response headers alone; an idle socket is
 * the nearest: it also ends a transfer that stalls that long).
 */
export function makeHandler(cfg: S3Config, agent: http.Agent): NodeHttpHandler {
  const t = cfg.httpConfig.responseHeaderTimeoutMs;
  return new NodeHttpHandler({
    connectionTimeout: DIAL_TIMEOUT_MS,
    ...(t > 0 ? { socketTimeout: t } : {}),
    ...(cfg.insecure ? { httpAgent: agent } : { httpsAgent: agent as https.Agent }),
  });
}
