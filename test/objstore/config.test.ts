import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { ObjstoreConfigError, openBucket, parseBucketConfig, type BucketConfig, type ObjstoreLogger, type S3Config } from '../../src/objstore/index.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** Thanos' documented S3 configuration with every key at its default (docs/storage.md), plus the required ones. */
const DOCUMENTED_S3 = `type: S3
config:
  bucket: "thanos"
  endpoint: "s3.example.com"
  region: ""
  disable_dualstack: false
  aws_sdk_auth: false
  access_key: ""
  insecure: false
  signature_version2: false
  secret_key: ""
  session_token: ""
  put_user_metadata: {}
  http_config:
    idle_conn_timeout: 1m30s
    response_header_timeout: 2m
    insecure_skip_verify: false
    tls_handshake_timeout: 10s
    expect_continue_timeout: 1s
    max_idle_conns: 100
    max_idle_conns_per_host: 100
    max_conns_per_host: 0
    tls_config:
      ca_file: ""
      cert_file: ""
      key_file: ""
      server_name: ""
      insecure_skip_verify: false
    disable_compression: false
  trace:
    enable: false
  list_objects_version: ""
  bucket_lookup_type: auto
  send_content_md5: true
  disable_multipart: false
  part_size: 67108864
  sse_config:
    type: ""
    kms_key_id: ""
    kms_encryption_context: {}
    encryption_key: ""
  sts_endpoint: ""
  max_retries: 0
prefix: ""
`;

const DEFAULT_S3: S3Config = {
  bucket: 'thanos',
  endpoint: 's3.example.com',
  region: '',
  disableDualstack: false,
  awsSdkAuth: false,
  accessKey: '',
  insecure: false,
  signatureVersion2: false,
  secretKey: '',
  sessionToken: '',
  putUserMetadata: {},
  httpConfig: {
    idleConnTimeoutMs: 90_000,
    responseHeaderTimeoutMs: 120_000,
    insecureSkipVerify: false,
    tlsHandshakeTimeoutMs: 10_000,
    expectContinueTimeoutMs: 1_000,
    maxIdleConns: 100,
    maxIdleConnsPerHost: 100,
    maxConnsPerHost: 0,
    tlsConfig: { caFile: '', certFile: '', keyFile: '', serverName: '', insecureSkipVerify: false },
    disableCompression: false,
  },
  traceEnable: false,
  listObjectsVersion: '',
  bucketLookupType: 'auto',
  sendContentMd5: true,
  disableMultipart: false,
  partSize: 64 * 1024 * 1024,
  sseConfig: { type: '', kmsKeyId: '', kmsEncryptionContext: {}, encryptionKey: '' },
  stsEndpoint: '',
  maxRetries: 0,
};

function s3(cfg: BucketConfig): S3Config {
  assert.equal(cfg.type, 'S3');
  return cfg.config as S3Config;
}

/** S3 YAML with the required keys and `lines` under config. */
function s3Yaml(...lines: string[]): string {
  return ['type: S3', 'config:', '  bucket: thanos', '  endpoint: s3.example.com', ...lines.map((l) => `  ${l}`)].join('\n');
}

function refuses(text: string, message: string | RegExp): void {
  assert.throws(() => parseBucketConfig(text), (err: unknown) => {
    assert.ok(err instanceof ObjstoreConfigError, `not an ObjstoreConfigError: ${String(err)}`);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

describe('bucket configuration: top level', () => {
  it('takes the type in any case, as Thanos', () => {
    for (const t of ['FILESYSTEM', 'filesystem', 'FileSystem']) {
      assert.equal(parseBucketConfig(`type: ${t}\nconfig:\n  directory: /d\n`).type, 'FILESYSTEM');
    }
    for (const t of ['S3', 's3']) assert.equal(parseBucketConfig(s3Yaml().replace('type: S3', `type: ${t}`)).type, 'S3');
  });

  it('refuses every other Thanos bucket type as not supported by Strata, naming it', () => {
    for (const t of ['GCS', 'AZURE', 'SWIFT', 'COS', 'ALIYUNOSS', 'BOS', 'OCI', 'OBS', 'gcs']) {
      refuses(`type: ${t}\nconfig:\n  bucket: b\n`, new RegExp(`^objstore config: type: bucket type ${t.toUpperCase()} is not supported by Strata \\(it supports S3 and FILESYSTEM\\)`));
    }
  });

  it('refuses an unknown type as Thanos does', () => {
    refuses('type: FTP\nconfig: {}\n', /^objstore config: type: bucket with type "FTP" is not supported \(Thanos knows GCS, S3, AZURE/);
    refuses('config:\n  directory: /d\n', /^objstore config: type: bucket with type "" is not supported/);
    refuses('', /^objstore config: type: bucket with type "" is not supported/);
  });

  it('refuses unknown top-level keys', () => {
    refuses('type: FILESYSTEM\nconfig:\n  directory: /d\nprefixes: x\n', 'objstore config: prefixes: unknown key; the keys here are type, config, prefix');
  });

  it('reads the prefix', () => {
    assert.equal(parseBucketConfig('type: FILESYSTEM\nconfig:\n  directory: /d\nprefix: tenant/a\n').prefix, 'tenant/a');
    assert.equal(parseBucketConfig('type: FILESYSTEM\nconfig:\n  directory: /d\n').prefix, '');
  });

  it('uses only the first YAML document, as Thanos', () => {
    const cfg = parseBucketConfig('type: FILESYSTEM\nconfig:\n  directory: /first\n---\ntype: S3\nconfig: {}\n');
    assert.deepEqual(cfg.config, { directory: '/first' });
  });

  it('refuses YAML that does not parse, and repeated keys', () => {
    refuses('type: [FILESYSTEM\n', /^objstore config: not valid YAML: /);
    refuses('type: FILESYSTEM\ntype: S3\n', /^objstore config: not valid YAML: Map keys must be unique/);
    refuses('- a\n- b\n', 'objstore config: expected a mapping of keys to values, got a list');
    refuses('type: FILESYSTEM\nconfig: [1]\n', 'objstore config: config: expected a mapping of keys to values, got a list');
  });

  it('follows YAML anchors and merge keys, as yaml.v2', () => {
    const cfg = parseBucketConfig('type: FILESYSTEM\nconfig:\n  directory: &d /anchored\nprefix: *d\n');
    assert.deepEqual(cfg.config, { directory: '/anchored' });
    assert.equal(cfg.prefix, '/anchored');
    const merged = s3(parseBucketConfig(['type: S3', 'config:', '  <<: {bucket: b, endpoint: "e.example.com"}', '  bucket: own'].join('\n')));
    assert.equal(merged.bucket, 'own');
    assert.equal(merged.endpoint, 'e.example.com');
  });
});

describe('bucket configuration: FILESYSTEM', () => {
  it('reads directory', () => {
    assert.deepEqual(parseBucketConfig('type: FILESYSTEM\nconfig:\n  directory: /var/thanos\n'), {
      type: 'FILESYSTEM', config: { directory: '/var/thanos' }, prefix: '', warnings: [],
    });
  });

  it('requires directory', () => {
    refuses('type: FILESYSTEM\nconfig: {}\n', 'objstore config: config.directory: missing directory for filesystem bucket');
    refuses('type: FILESYSTEM\n', 'objstore config: config.directory: missing directory for filesystem bucket');
  });

  it('warns of, rather than refuses, unknown keys, as Thanos decodes FILESYSTEM leniently', () => {
    const cfg = parseBucketConfig('type: FILESYSTEM\nconfig:\n  directory: /d\n  dir: /typo\n');
    assert.deepEqual(cfg.warnings, ['config.dir: unknown key ignored (FILESYSTEM takes only directory)']);
  });

  it('takes Strata\'s pino logger', async () => {
    const log: ObjstoreLogger = pino({ level: 'silent' });
    const bucket = await openBucket(parseBucketConfig('type: FILESYSTEM\nconfig:\n  directory: /nonexistent-strata\n  x: 1\n'), log);
    assert.deepEqual(await bucket.iter(''), []);
  });

  it('opens a bucket with the prefix applied', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-cfg-'));
    try {
      const warned: string[] = [];
      const log = { debug() {}, info() {}, warn: (_o: object, m: string) => void warned.push(m) };
      const bucket = await openBucket(parseBucketConfig(`type: FILESYSTEM\nconfig:\n  directory: ${dir}\n  extra: 1\nprefix: /p/q/\n`), log);
      assert.equal(bucket.name, `FILESYSTEM ${dir} prefix p/q`);
      await bucket.upload('obj', Buffer.from('x'));
      assert.deepEqual(await bucket.iter(''), ['obj']);
      assert.equal(warned.length, 1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('bucket configuration: S3', () => {
  it('reads Thanos\' documented configuration as its defaults', () => {
    assert.deepEqual(s3(parseBucketConfig(DOCUMENTED_S3)), DEFAULT_S3);
  });

  it('defaults every key left out as Thanos does', () => {
    assert.deepEqual(s3(parseBucketConfig(s3Yaml())), DEFAULT_S3);
  });

  it('reads every key', () => {
    const cfg = s3(parseBucketConfig(`type: S3
config:
  bucket: blocks
  endpoint: "[::1]:9000"
  region: eu-west-3
  disable_dualstack: true
  access_key: AK
  insecure: true
  secret_key: SK
  session_token: TOKEN
  put_user_metadata:
    X-Amz-Storage-Class: STANDARD_IA
    team: obs
  http_config:
    idle_conn_timeout: 30s
    response_header_timeout: 1m
    insecure_skip_verify: true
    tls_handshake_timeout: 500ms
    expect_continue_timeout: 0
    max_idle_conns: 7
    max_idle_conns_per_host: 3
    max_conns_per_host: 9
    tls_config:
      ca_file: /ca.pem
      cert_file: /c.pem
      key_file: /k.pem
      server_name: s3.internal
      insecure_skip_verify: true
    disable_compression: true
  trace:
    enable: true
  list_objects_version: v1
  bucket_lookup_type: path
  send_content_md5: false
  disable_multipart: true
  part_size: 5242880
  sse_config:
    type: SSE-KMS
    kms_key_id: key-1
    kms_encryption_context:
      app: strata
  sts_endpoint: https://sts.example.com
  max_retries: 4
prefix: x
`));
    assert.deepEqual(cfg, {
      bucket: 'blocks', endpoint: '[::1]:9000', region: 'eu-west-3', disableDualstack: true, awsSdkAuth: false, accessKey: 'AK', insecure: true,
      signatureVersion2: false, secretKey: 'SK', sessionToken: 'TOKEN', putUserMetadata: { 'X-Amz-Storage-Class': 'STANDARD_IA', team: 'obs' },
      httpConfig: {
        idleConnTimeoutMs: 30_000, responseHeaderTimeoutMs: 60_000, insecureSkipVerify: true, tlsHandshakeTimeoutMs: 500, expectContinueTimeoutMs: 0,
        maxIdleConns: 7, maxIdleConnsPerHost: 3, maxConnsPerHost: 9,
        tlsConfig: { caFile: '/ca.pem', certFile: '/c.pem', keyFile: '/k.pem', serverName: 's3.internal', insecureSkipVerify: true },
        disableCompression: true,
      },
      traceEnable: true, listObjectsVersion: 'v1', bucketLookupType: 'path', sendContentMd5: false, disableMultipart: true, partSize: 5_242_880,
      sseConfig: { type: 'SSE-KMS', kmsKeyId: 'key-1', kmsEncryptionContext: { app: 'strata' }, encryptionKey: '' },
      stsEndpoint: 'https://sts.example.com', maxRetries: 4,
    } satisfies S3Config);
  });

  it('takes aws_sdk_auth without keys', () => {
    assert.equal(s3(parseBucketConfig(s3Yaml('aws_sdk_auth: true'))).awsSdkAuth, true);
  });

  it('reads durations as Prometheus writes them, and refuses others naming the key', () => {
    const d = (v: string) => s3(parseBucketConfig(s3Yaml('http_config:', `  idle_conn_timeout: ${v}`))).httpConfig.idleConnTimeoutMs;
    assert.equal(d('1m30s'), 90_000);
    assert.equal(d('2h'), 7_200_000);
    assert.equal(d('1d'), 86_400_000);
    assert.equal(d('250ms'), 250);
    assert.equal(d('0'), 0);
    assert.equal(d('"10s"'), 10_000);
    refuses(s3Yaml('http_config:', '  idle_conn_timeout: x'), 'objstore config: config.http_config.idle_conn_timeout: "x" is not a duration (such as 1m30s, 2m, 10s or 500ms)');
    for (const bad of ['90', '1.5h', '300us', '30s1m', '-1s', '""']) {
      refuses(s3Yaml('http_config:', `  response_header_timeout: ${bad}`), /^objstore config: config\.http_config\.response_header_timeout: .* is not a duration/);
    }
  });

  it('gives a key written empty its zero value, not its default, as yaml.v2', () => {
    const cfg = s3(parseBucketConfig(s3Yaml('part_size:', 'send_content_md5:', 'bucket_lookup_type:', 'http_config:')));
    assert.equal(cfg.partSize, 0);
    assert.equal(cfg.sendContentMd5, false);
    assert.equal(cfg.bucketLookupType, 'auto');
    assert.equal(cfg.httpConfig.idleConnTimeoutMs, 0);
    assert.equal(cfg.httpConfig.maxIdleConnsPerHost, 0);
  });

  it('reads YAML 1.1 booleans and any scalar into a string, as yaml.v2', () => {
    const cfg = s3(parseBucketConfig(['type: S3', 'config:', '  bucket: 0123', '  endpoint: s3.example.com', '  insecure: yes', '  disable_multipart: off', '  access_key: 1e3', '  secret_key: true'].join('\n')));
    assert.equal(cfg.bucket, '0123');
    assert.equal(cfg.insecure, true);
    assert.equal(cfg.disableMultipart, false);
    assert.equal(cfg.accessKey, '1e3');
    assert.equal(cfg.secretKey, 'true');
  });

  it('refuses values of the wrong type, naming the key', () => {
    refuses(s3Yaml('insecure: "true"'), 'objstore config: config.insecure: "true" is not a boolean (true or false)');
    refuses(s3Yaml('max_retries: three'), 'objstore config: config.max_retries: "three" is not an integer');
    refuses(s3Yaml('part_size: 1.5'), 'objstore config: config.part_size: "1.5" is not an integer');
    refuses(s3Yaml('part_size: -1'), 'objstore config: config.part_size: "-1" is below 0');
    refuses(s3Yaml('http_config: 5'), 'objstore config: config.http_config: expected a mapping of keys to values, got "5"');
    refuses(s3Yaml('bucket_lookup_type: dns'), 'objstore config: config.bucket_lookup_type: unsupported bucket lookup type: dns (auto, virtual-hosted or path)');
    refuses(s3Yaml('put_user_metadata:', '  a: [1]'), 'objstore config: config.put_user_metadata.a: expected a string, got a list');
  });

  it('refuses unknown keys at every level, naming the path', () => {
    refuses(s3Yaml('buckets: x'), /^objstore config: config\.buckets: unknown key; the keys here are bucket, endpoint, region, /);
    refuses(s3Yaml('http_config:', '  idle_timeout: 1s'), /^objstore config: config\.http_config\.idle_timeout: unknown key; the keys here are idle_conn_timeout, /);
    refuses(s3Yaml('http_config:', '  tls_config:', '    ca: x'), /^objstore config: config\.http_config\.tls_config\.ca: unknown key/);
    refuses(s3Yaml('sse_config:', '  kind: SSE-S3'), /^objstore config: config\.sse_config\.kind: unknown key/);
    refuses(s3Yaml('trace:', '  enabled: true'), 'objstore config: config.trace.enabled: unknown key; the keys here are enable');
  });

  it('validates as Thanos\' S3 validate(), with Thanos\' messages', () => {
    refuses('type: S3\nconfig:\n  bucket: b\n', 'objstore config: config.endpoint: no s3 endpoint in config file');
    refuses('type: S3\n', 'objstore config: config.endpoint: no s3 endpoint in config file');
    refuses(s3Yaml('aws_sdk_auth: true', 'access_key: a', 'secret_key: s'), 'objstore config: config.aws_sdk_auth: aws_sdk_auth and access_key are mutually exclusive configurations');
    refuses(s3Yaml('secret_key: s'), /^objstore config: config\.access_key: no s3 access_key specified while secret_key is present in config file/);
    refuses(s3Yaml('access_key: a'), /^objstore config: config\.secret_key: no s3 secret_key specified while access_key is present in config file/);
    refuses(s3Yaml('sse_config:', '  type: SSE-C'), "objstore config: config.sse_config.encryption_key: encryption_key must be set if sse_config.type is set to 'SSE-C'");
    refuses(s3Yaml('sse_config:', '  type: SSE-KMS'), "objstore config: config.sse_config.kms_key_id: kms_key_id must be set if sse_config.type is set to 'SSE-KMS'");
    refuses(s3Yaml('sse_config:', '  type: AES'), 'objstore config: config.sse_config.type: Unsupported type "AES" was provided. Supported types are SSE-S3, SSE-KMS, SSE-C');
    refuses(s3Yaml('list_objects_version: v3'), 'objstore config: config.list_objects_version: Unsupported version "v3" was provided. Supported values are v1, v2');
  });

  it('takes each SSE type with what it needs', () => {
    assert.equal(s3(parseBucketConfig(s3Yaml('sse_config:', '  type: SSE-S3'))).sseConfig.type, 'SSE-S3');
    assert.equal(s3(parseBucketConfig(s3Yaml('sse_config:', '  type: SSE-KMS', '  kms_key_id: k'))).sseConfig.kmsKeyId, 'k');
    assert.equal(s3(parseBucketConfig(s3Yaml('sse_config:', '  type: SSE-C', '  encryption_key: /key'))).sseConfig.encryptionKey, '/key');
  });

  it('refuses signature_version2: true, saying why', () => {
    refuses(s3Yaml('signature_version2: true'), /^objstore config: config\.signature_version2: true is not supported by Strata: its S3 client \(the AWS SDK for JavaScript v3\) signs requests with AWS Signature Version 4 only/);
  });

  it('refuses at parse time what Thanos would find out only at the first upload', () => {
    refuses('type: S3\nconfig:\n  endpoint: s3.example.com\n', 'objstore config: config.bucket: no s3 bucket in config file');
    refuses(s3Yaml('part_size: 1048576'), /^objstore config: config\.part_size: 1048576 is below S3's smallest part of 5 MiB/);
    refuses(s3Yaml('part_size: 6442450944'), /^objstore config: config\.part_size: 6442450944 is above S3's largest part of 5 GiB/);
    refuses(s3Yaml('put_user_metadata:', '  Content-Type: text/plain'), 'objstore config: config.put_user_metadata.Content-Type: Content-Type unsupported user defined metadata name');
    refuses(s3Yaml('put_user_metadata:', '  x-minio-x: y'), 'objstore config: config.put_user_metadata.x-minio-x: x-minio-x unsupported user defined metadata name');
    refuses(s3Yaml('put_user_metadata:', '  "bad name": y'), 'objstore config: config.put_user_metadata.bad name: bad name unsupported user defined metadata name');
    refuses(s3Yaml('http_config:', '  tls_config:', '    cert_file: /c.pem'), 'objstore config: config.http_config.tls_config.cert_file: client cert file "/c.pem" specified without client key file');
    refuses(s3Yaml('http_config:', '  tls_config:', '    key_file: /k.pem'), 'objstore config: config.http_config.tls_config.key_file: client key file "/k.pem" specified without client cert file');
    refuses(s3Yaml('sts_endpoint: sts.example.com'), 'objstore config: config.sts_endpoint: "sts.example.com" is not an http:// or https:// URL');
    assert.equal(s3(parseBucketConfig(s3Yaml('part_size: 0'))).partSize, 0, '0 lets the client choose');
  });

  it('refuses an endpoint that is not host or host:port, as minio', () => {
    const ok = ['s3.example.com', 's3.example.com:9000', '127.0.0.1:7480', '[::1]:9000', 'minio'];
    for (const e of ok) assert.equal(s3(parseBucketConfig(s3Yaml().replace('endpoint: s3.example.com', `endpoint: "${e}"`))).endpoint, e);
    refuses(s3Yaml().replace('endpoint: s3.example.com', 'endpoint: "https://s3.example.com"'), 'objstore config: config.endpoint: "https://s3.example.com" must be host or host:port without a scheme (insecure: true selects http)');
    refuses(s3Yaml().replace('endpoint: s3.example.com', 'endpoint: "s3.example.com/path"'), 'objstore config: config.endpoint: "s3.example.com/path" is not host or host:port');
    refuses(s3Yaml().replace('endpoint: s3.example.com', 'endpoint: "host:70000"'), 'objstore config: config.endpoint: "host:70000" has a port outside 1-65535');
    refuses(s3Yaml().replace('endpoint: s3.example.com', 'endpoint: "bad..host"'), 'objstore config: config.endpoint: "bad..host" does not follow ip address or domain name standards');
  });
});

describe('opening an S3 bucket', () => {
  it('names the key of a file it cannot read', async () => {
    await assert.rejects(openBucket(parseBucketConfig(s3Yaml('http_config:', '  tls_config:', '    ca_file: /nonexistent/ca.pem'))),
      /^ObjstoreConfigError: objstore config: config\.http_config\.tls_config\.ca_file: unable to load specified CA cert \/nonexistent\/ca\.pem: ENOENT/);
    await assert.rejects(openBucket(parseBucketConfig(s3Yaml('sse_config:', '  type: SSE-C', '  encryption_key: /nonexistent/key'))),
      /objstore config: config\.sse_config\.encryption_key: cannot read \/nonexistent\/key/);
  });

  it('refuses an SSE-C key that is not 32 bytes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-ssec-'));
    try {
      await writeFile(join(dir, 'key'), 'short');
      await assert.rejects(openBucket(parseBucketConfig(s3Yaml('sse_config:', '  type: SSE-C', `  encryption_key: ${join(dir, 'key')}`))),
        /config\.sse_config\.encryption_key: .* holds 5 bytes; an SSE-C key is 32 bytes/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names the bucket and endpoint, and contacts nothing to open', async () => {
    const bucket = await openBucket(parseBucketConfig(s3Yaml('region: us-east-1')));
    assert.equal(bucket.name, 'S3 thanos@s3.example.com');
    await bucket.close();
  });
});
