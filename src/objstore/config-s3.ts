import { configError } from './errors.js';
import type { YamlMap } from '../config/yaml-map.js';

/** Thanos' exthttp.HTTPConfig: the HTTP transport of the S3 client. Durations in milliseconds. */
export interface HttpConfig {
  /** `idle_conn_timeout` (1m30s): a pooled keep-alive connection idle this long is closed. */
  idleConnTimeoutMs: number;
  /** `response_header_timeout` (2m): how long the server may stay silent on a request. */
  responseHeaderTimeoutMs: number;
  /** `insecure_skip_verify` (false): skip TLS certificate verification. */
  insecureSkipVerify: boolean;
  /** `tls_handshake_timeout` (10s). */
  tlsHandshakeTimeoutMs: number;
  /** `expect_continue_timeout` (1s); minio never sends `Expect: 100-continue`, nor does Strata. */
  expectContinueTimeoutMs: number;
  /** `max_idle_conns` (100; 0 = no limit). */
  maxIdleConns: number;
  /** `max_idle_conns_per_host` (100; 0 = Go's default of 2). */
  maxIdleConnsPerHost: number;
  /** `max_conns_per_host` (0 = no limit). */
  maxConnsPerHost: number;
  /** `tls_config`: as Prometheus' tls_config. */
  tlsConfig: TlsConfig;
  /** `disable_compression` (false). */
  disableCompression: boolean;
}

/** Thanos' exthttp.TLSConfig. */
export interface TlsConfig {
  caFile: string;
  certFile: string;
  keyFile: string;
  serverName: string;
  /** Thanos' S3 client overrides this with http_config.insecure_skip_verify; so does Strata. */
  insecureSkipVerify: boolean;
}

/** `sse_config`: server-side encryption of what Strata writes. */
export interface SseConfig {
  /** `type`: '' (none), `SSE-S3`, `SSE-KMS` or `SSE-C`. */
  type: '' | 'SSE-S3' | 'SSE-KMS' | 'SSE-C';
  kmsKeyId: string;
  kmsEncryptionContext: Record<string, string>;
  /** `encryption_key`: path of a file holding the 32-byte SSE-C key. */
  encryptionKey: string;
}

/** Thanos' s3.Config, every key of it. */
export interface S3Config {
  bucket: string;
  /** host or host:port, no scheme. */
  endpoint: string;
  region: string;
  disableDualstack: boolean;
  awsSdkAuth: boolean;
  accessKey: string;
  insecure: boolean;
  /** Always false: Strata refuses `signature_version2: true` (the AWS SDK for JavaScript v3 signs with SigV4 only). */
  signatureVersion2: boolean;
  secretKey: string;
  sessionToken: string;
  /** `put_user_metadata` as written (X-Amz-Storage-Class included). */
  putUserMetadata: Record<string, string>;
  httpConfig: HttpConfig;
  /** `trace.enable`: log every request and response at debug level. */
  traceEnable: boolean;
  /** `list_objects_version`: '' (= v2), `v1` or `v2`. */
  listObjectsVersion: '' | 'v1' | 'v2';
  bucketLookupType: 'auto' | 'virtual-hosted' | 'path';
  sendContentMd5: boolean;
  disableMultipart: boolean;
  /** `part_size` in bytes (64 MiB); 0 lets the client choose (16 MiB parts, as minio). */
  partSize: number;
  sseConfig: SseConfig;
  stsEndpoint: string;
  /** `max_retries`: attempts per request; 0 or less means minio's default of 10. */
  maxRetries: number;
}

const MiB = 1024 * 1024;
/** S3's smallest part (but the last); minio refuses a smaller part_size when it goes multipart. */
export const MIN_PART_SIZE = 5 * MiB;
/** S3's largest part. */
export const MAX_PART_SIZE = 5 * 1024 * MiB;

/** Thanos' s3.DefaultConfig and exthttp.DefaultHTTPConfig. */
export const S3_DEFAULTS = {
  partSize: 64 * MiB,
  sendContentMd5: true,
  bucketLookupType: 'auto',
  http: {
    idleConnTimeoutMs: 90_000,
    responseHeaderTimeoutMs: 120_000,
    tlsHandshakeTimeoutMs: 10_000,
    expectContinueTimeoutMs: 1_000,
    maxIdleConns: 100,
    maxIdleConnsPerHost: 100,
    maxConnsPerHost: 0,
  },
} as const;

const S3_KEYS = [
  'bucket', 'endpoint', 'region', 'disable_dualstack', 'aws_sdk_auth', 'access_key', 'insecure', 'signature_version2',
  'secret_key', 'session_token', 'put_user_metadata', 'http_config', 'trace', 'list_objects_version', 'bucket_lookup_type',
  'send_content_md5', 'disable_multipart', 'part_size', 'sse_config', 'sts_endpoint', 'max_retries',
] as const;
const HTTP_KEYS = [
  'idle_conn_timeout', 'response_header_timeout', 'insecure_skip_verify', 'tls_handshake_timeout', 'expect_continue_timeout',
  'max_idle_conns', 'max_idle_conns_per_host', 'max_conns_per_host', 'tls_config', 'disable_compression',
] as const;
const TLS_KEYS = ['ca_file', 'cert_file', 'key_file', 'server_name', 'insecure_skip_verify'] as const;
const SSE_KEYS = ['type', 'kms_key_id', 'kms_encryption_context', 'encryption_key'] as const;

/** Reads and validates the `config` of an S3 bucket as Thanos' s3.parseConfig, validate() and NewBucketWithConfig do. */
export function readS3Config(m: YamlMap): S3Config {
  const http = m.map('http_config');
  const tls = http.map('tls_config');
  const sse = m.map('sse_config');
  const trace = m.map('trace');
  const cfg: S3Config = {
    bucket: m.str('bucket'),
    endpoint: m.str('endpoint'),
    region: m.str('region'),
    disableDualstack: m.bool('disable_dualstack'),
    awsSdkAuth: m.bool('aws_sdk_auth'),
    accessKey: m.str('access_key'),
    insecure: m.bool('insecure'),
    signatureVersion2: m.bool('signature_version2'),
    secretKey: m.str('secret_key'),
    sessionToken: m.str('session_token'),
    putUserMetadata: m.strMap('put_user_metadata'),
    httpConfig: {
      idleConnTimeoutMs: http.duration('idle_conn_timeout', S3_DEFAULTS.http.idleConnTimeoutMs),
      responseHeaderTimeoutMs: http.duration('response_header_timeout', S3_DEFAULTS.http.responseHeaderTimeoutMs),
      insecureSkipVerify: http.bool('insecure_skip_verify'),
      tlsHandshakeTimeoutMs: http.duration('tls_handshake_timeout', S3_DEFAULTS.http.tlsHandshakeTimeoutMs),
      expectContinueTimeoutMs: http.duration('expect_continue_timeout', S3_DEFAULTS.http.expectContinueTimeoutMs),
      maxIdleConns: http.int('max_idle_conns', S3_DEFAULTS.http.maxIdleConns),
      maxIdleConnsPerHost: http.int('max_idle_conns_per_host', S3_DEFAULTS.http.maxIdleConnsPerHost),
      maxConnsPerHost: http.int('max_conns_per_host', S3_DEFAULTS.http.maxConnsPerHost),
      tlsConfig: {
        caFile: tls.str('ca_file'),
        certFile: tls.str('cert_file'),
        keyFile: tls.str('key_file'),
        serverName: tls.str('server_name'),
        insecureSkipVerify: tls.bool('insecure_skip_verify'),
      },
      disableCompression: http.bool('disable_compression'),
    },
    traceEnable: trace.bool('enable'),
    listObjectsVersion: m.str('list_objects_version') as S3Config['listObjectsVersion'],
    bucketLookupType: lookupType(m),
    sendContentMd5: m.bool('send_content_md5', S3_DEFAULTS.sendContentMd5),
    disableMultipart: m.bool('disable_multipart'),
    // part_size is a uint64 in Thanos: a negative value does not parse.
    partSize: m.int('part_size', S3_DEFAULTS.partSize, 0),
    sseConfig: {
      type: sse.str('type') as SseConfig['type'],
      kmsKeyId: sse.str('kms_key_id'),
      kmsEncryptionContext: sse.strMap('kms_encryption_context'),
      encryptionKey: sse.str('encryption_key'),
    },
    stsEndpoint: m.str('sts_endpoint'),
    maxRetries: m.int('max_retries'),
  };
  tls.finish(TLS_KEYS);
  http.finish(HTTP_KEYS);
  sse.finish(SSE_KEYS);
  trace.finish(['enable']);
  m.finish(S3_KEYS);
  validateS3(cfg, m);
  return cfg;
}

function lookupType(m: YamlMap): S3Config['bucketLookupType'] {
  // Thanos' BucketLookupType.UnmarshalYAML; a null value is the zero value, auto.
  const v = m.str('bucket_lookup_type', S3_DEFAULTS.bucketLookupType);
  if (v === '') return 'auto';
  if (v === 'auto' || v === 'virtual-hosted' || v === 'path') return v;
  throw configError(m.at('bucket_lookup_type'), `unsupported bucket lookup type: ${v} (auto, virtual-hosted or path)`);
}

/**
 * Thanos' checks, in Thanos' order (validate(), then the SSE type, then the
 * list version), then Strata's own: what Thanos would only find out at the
 * first request, or never (a bucket, a part size S3 takes, metadata names
 * minio refuses at every upload, SigV2).
 */
function validateS3(c: S3Config, m: YamlMap): void {
  const sse = c.sseConfig;
  if (c.endpoint === '') throw configError(m.at('endpoint'), 'no s3 endpoint in config file');
  if (c.awsSdkAuth && c.accessKey !== '') throw configError(m.at('aws_sdk_auth'), 'aws_sdk_auth and access_key are mutually exclusive configurations');
  if (c.accessKey === '' && c.secretKey !== '') {
    throw configError(m.at('access_key'), 'no s3 access_key specified while secret_key is present in config file; either both should be present in config or envvars/IAM should be used');
  }
  if (c.accessKey !== '' && c.secretKey === '') {
    throw configError(m.at('secret_key'), 'no s3 secret_key specified while access_key is present in config file; either both should be present in config or envvars/IAM should be used');
  }
  if (sse.type === 'SSE-C' && sse.encryptionKey === '') throw configError(m.at('sse_config.encryption_key'), "encryption_key must be set if sse_config.type is set to 'SSE-C'");
  if (sse.type === 'SSE-KMS' && sse.kmsKeyId === '') throw configError(m.at('sse_config.kms_key_id'), "kms_key_id must be set if sse_config.type is set to 'SSE-KMS'");
  if (!['', 'SSE-S3', 'SSE-KMS', 'SSE-C'].includes(sse.type)) {
    throw configError(m.at('sse_config.type'), `Unsupported type ${JSON.stringify(sse.type)} was provided. Supported types are SSE-S3, SSE-KMS, SSE-C`);
  }
  if (!['', 'v1', 'v2'].includes(c.listObjectsVersion)) {
    throw configError(m.at('list_objects_version'), `Unsupported version ${JSON.stringify(c.listObjectsVersion)} was provided. Supported values are v1, v2`);
  }
  if (c.signatureVersion2) {
    throw configError(m.at('signature_version2'),
      'true is not supported by Strata: its S3 client (the AWS SDK for JavaScript v3) signs requests with AWS Signature Version 4 only; set signature_version2: false and use a store that accepts SigV4');
  }
  if (c.bucket === '') throw configError(m.at('bucket'), 'no s3 bucket in config file');
  checkEndpoint(c.endpoint, m.at('endpoint'));
  if (c.stsEndpoint !== '' && !/^https?:\/\/[^/]/.test(c.stsEndpoint)) {
    throw configError(m.at('sts_endpoint'), `${JSON.stringify(c.stsEndpoint)} is not an http:// or https:// URL`);
  }
  if (c.partSize !== 0 && c.partSize < MIN_PART_SIZE) {
    throw configError(m.at('part_size'), `${c.partSize} is below S3's smallest part of 5 MiB (${MIN_PART_SIZE}); minio refuses it for every multipart upload (0 lets the client choose)`);
  }
  if (c.partSize > MAX_PART_SIZE) throw configError(m.at('part_size'), `${c.partSize} is above S3's largest part of 5 GiB (${MAX_PART_SIZE})`);
  for (const key of Object.keys(c.putUserMetadata)) checkMetadataName(key, m.at(`put_user_metadata.${key}`));
  for (const [key, v] of Object.entries(c.putUserMetadata)) {
    // eslint-disable-next-line no-control-regex
    if (/[\x00-\x08\x0a-\x1f\x7f]/.test(v)) throw configError(m.at(`put_user_metadata.${key}`), `${JSON.stringify(v)} is not a valid HTTP header value`);
  }
  const tls = c.httpConfig.tlsConfig;
  if (tls.certFile !== '' && tls.keyFile === '') throw configError(m.at('http_config.tls_config.cert_file'), `client cert file ${JSON.stringify(tls.certFile)} specified without client key file`);
  if (tls.keyFile !== '' && tls.certFile === '') throw configError(m.at('http_config.tls_config.key_file'), `client key file ${JSON.stringify(tls.keyFile)} specified without client cert file`);
}

/** minio.New's check: a host (name or IP) with an optional port, nothing else. */
function checkEndpoint(endpoint: string, path: string): void {
  const bad = (why: string) => configError(path, `${JSON.stringify(endpoint)} ${why}`);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint)) throw bad('must be host or host:port without a scheme (insecure: true selects http)');
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:/\s]+))(?::(\d{1,5}))?$/.exec(endpoint);
  if (m === null) throw bad('is not host or host:port');
  const port = m[3];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) throw bad('has a port outside 1-65535');
  const host = m[2];
  if (host !== undefined && !/^[A-Za-z0-9_]([A-Za-z0-9_-]{0,62})(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62}))*\.?$/.test(host)) {
    throw bad('does not follow ip address or domain name standards');
  }
}

/** Standard headers minio refuses as user metadata ("unsupported user defined metadata name"). */
const STANDARD_HEADERS = new Set([
  'content-type', 'cache-control', 'content-encoding', 'content-disposition', 'content-language', 'expires',
  'x-amz-website-redirect-location', 'x-amz-object-lock-mode', 'x-amz-metadata-directive', 'x-amz-annotation-directive',
  'x-amz-object-lock-retain-until-date', 'x-amz-replication-status',
]);
const SSE_HEADERS = new Set([
  'x-amz-server-side-encryption', 'x-amz-server-side-encryption-aws-kms-key-id', 'x-amz-server-side-encryption-context',
  'x-amz-server-side-encryption-customer-algorithm', 'x-amz-server-side-encryption-customer-key',
  'x-amz-server-side-encryption-customer-key-md5',
]);

/** The names minio's PutObjectOptions.validate() refuses, at parse time rather than at every upload. */
function checkMetadataName(key: string, path: string): void {
  const k = key.toLowerCase();
  if (k === 'x-amz-storage-class') return; // Thanos takes it out as the storage class
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key) || STANDARD_HEADERS.has(k) || SSE_HEADERS.has(k) || k.startsWith('x-minio-')) {
    throw configError(path, `${key} unsupported user defined metadata name`);
  }
  if (k.startsWith('x-amz-checksum-')) throw configError(path, `${key}: checksums cannot be set as user metadata (minio refuses them without trailing headers)`);
}
