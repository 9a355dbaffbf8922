import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { expandBoolFlags } from './bool-flags.js';
import { UsageError } from '../config/usage-error.js';
import { parseDuration } from '../config/duration-flag.js';
import { parseBytes } from '../config/bytes.js';
import { parseHostPort, type HostPort } from '../config/host-port.js';
import { BLOCK_FILES_IN_FLIGHT } from '../shipper/upload-files.js';
import { parseBucketConfig, type BucketConfig } from '../objstore/index.js';
import { DEFAULT_MAX_BODY_BYTES } from '../http/prometheus/limits.js';
import { DEFAULT_MAX_EXEMPLARS } from '../db/options.js';
import { parseWriteLimitsFlags, writeLimitsFlags, writeLimitsHelp, type WriteLimitsConfig } from './write-limits-options.js';
import { parseTsdbFlags, tsdbFlags, tsdbHelp, type TsdbConfig } from './tsdb-options.js';
import { aliasHelp, renameAliases } from './flag-aliases.js';
import { parseLabelFlag } from './label-flag.js';
import { logFlags, logHelp, parseLogFlags, type LogConfig } from './log-options.js';
import { otlpFlags, otlpHelp, parseOtlpFlags } from './otlp-options.js';
import type { OtlpSettings } from '../otlp/settings.js';

export type Env = 'development' | 'production';

/** Everything `strata serve` is configured with. */
export interface ServeConfig {
  dataDir: string;
  grpcAddress: HostPort;
  httpAddress: HostPort;
  /** External labels, sorted by name. */
  externalLabels: Array<[string, string]>;
  replicaLabels: string[];
  workers: number;
  env: Env;
  /** Data older than this, back from the newest sample held, is deleted (ms). */
  retentionMs: number;
  /** Oldest blocks go while the data takes more bytes than this; 0: no limit. */
  retentionBytes: number;
  /** --disk-reserve: bytes held back for a full disk (src/db/write-health.ts). */
  diskReserveBytes: number;
  /** Compact blocks into larger ones (off where Thanos' compactor owns them). */
  compaction: boolean;
  /** Thanos' bucket configuration to ship blocks to, from --objstore.config or --objstore.config-file (`from`), and its text. */
  objstoreConfig?: { bucket: BucketConfig; from: string; text: string };
  /** --shipper.upload-concurrency: block files uploaded at once (0 and 1: one at a time). */
  shipperUploadConcurrency: number;
  /** Milliseconds between WAL fsyncs. */
  walFsyncIntervalMs: number;
  /** Label naming the tenant of every series (Thanos Receive's tenant_id). */
  tenantLabelName: string;
  grpcMaxRecvBytes: number;
  /** Largest remote-write or remote-read body taken over HTTP (bytes, compressed). */
  httpMaxBodyBytes: number;
  /** 0 = no limit. */
  limitRequestSeries: number;
  limitRequestSamples: number;
  grpcTls?: { cert: string; key: string; clientCa?: string };
  /** HTTPS instead of HTTP: certificate, key, and the CA client certificates must be signed by. */
  httpTls?: { cert: string; key: string; clientCa?: string };
  /** Per-tenant write limits and the memory rule (--receive.*). */
  writeLimits: WriteLimitsConfig;
  /** The out-of-order and too-far-in-future windows (--tsdb.*). */
  tsdb: TsdbConfig;
  /** Exemplars kept in the circular exemplar store (--tsdb.max-exemplars); 0: none. */
  maxExemplars: number;
  /** --tsdb.memory-snapshot-on-shutdown: head snapshot on close, loaded at the next start. */
  memorySnapshotOnShutdown: boolean;
  /** --log.level and --log.format. */
  log: LogConfig;
  /** --receive.default-tenant-id: the tenant of a write or HTTP read naming none. */
  defaultTenantId: string;
  /** --http-grace-period, --grpc-grace-period: how long a stop waits for requests and calls in flight (ms). */
  httpGraceMs: number;
  grpcGraceMs: number;
  /** --remote-write.address: remote write's own listener; undefined: on the HTTP address. */
  remoteWriteAddress?: HostPort;
  /** The OTLP translation (--otlp.*). */
  otlp: OtlpSettings;
}

/** Thanos' grace period flags, shared by serve and sidecar (pkg/extkingpin, cmd/thanos/config.go: default 2m). */
export const graceFlags = {
  'http-grace-period': { type: 'string', default: '2m' },
  'grpc-grace-period': { type: 'string', default: '2m' },
} as const;

/** Their lines of --help, in Thanos' words. */
export const graceHelp = `  --http-grace-period DUR   time to wait after an interrupt received for the HTTP server (default 2m)
  --grpc-grace-period DUR   time to wait after an interrupt received for the gRPC server (default 2m)`;

/** The grace periods parsed (ms; 0: close at once). */
export function parseGraceFlags(values: { 'http-grace-period': string; 'grpc-grace-period': string }): { httpGraceMs: number; grpcGraceMs: number } {
  return {
    httpGraceMs: parseDuration('http-grace-period', values['http-grace-period']),
    grpcGraceMs: parseDuration('grpc-grace-period', values['grpc-grace-period']),
  };
}

/** Strata's earlier names of serve's flags, kept: each stands for Thanos Receive's name. */
export const serveAliases = {
  'data-dir': 'tsdb.path',
  retention: 'tsdb.retention',
  'retention-size': 'tsdb.max-retention-bytes',
  'tenant-label-name': 'receive.tenant-label-name',
} as const;

export const serveOptions = {
  'tsdb.path': { type: 'string', default: './data' },
  'grpc-address': { type: 'string', default: '0.0.0.0:10901' },
  'http-address': { type: 'string', default: '0.0.0.0:8080' },
  label: { type: 'string', multiple: true, default: [] as string[] },
  'replica-label': { type: 'string', multiple: true, default: [] as string[] },
  workers: { type: 'string' },
  env: { type: 'string', default: 'production' },
  'tsdb.retention': { type: 'string', default: '15d' },
  'tsdb.max-retention-bytes': { type: 'string', default: '0' },
  'disk-reserve': { type: 'string', default: '8MiB' },
  compaction: { type: 'string', default: 'true' },
  'objstore.config': { type: 'string' },
  'objstore.config-file': { type: 'string' },
  'shipper.upload-concurrency': { type: 'string', default: String(BLOCK_FILES_IN_FLIGHT) },
  'wal-fsync-interval': { type: 'string', default: '1s' },
  'receive.tenant-label-name': { type: 'string', default: 'tenant_id' },
  'grpc-max-recv-bytes': { type: 'string', default: String(64 * 1024 * 1024) },
  'http-max-body-bytes': { type: 'string', default: String(DEFAULT_MAX_BODY_BYTES) },
  'store.limits.request-series': { type: 'string', default: '0' },
  'store.limits.request-samples': { type: 'string', default: '0' },
  'grpc-server-tls-cert': { type: 'string' },
  'grpc-server-tls-key': { type: 'string' },
  'grpc-server-tls-client-ca': { type: 'string' },
  'http-server-tls-cert': { type: 'string' },
  'http-server-tls-key': { type: 'string' },
  'http-server-tls-client-ca': { type: 'string' },
  ...writeLimitsFlags,
  ...tsdbFlags,
  'tsdb.max-exemplars': { type: 'string', default: String(DEFAULT_MAX_EXEMPLARS) },
  'tsdb.memory-snapshot-on-shutdown': { type: 'string', default: 'true' },
  'receive.default-tenant-id': { type: 'string', default: 'default-tenant' },
  'remote-write.address': { type: 'string' },
  ...graceFlags,
  ...logFlags,
  ...otlpFlags,
  help: { type: 'boolean', short: 'h' },
} as const;

export const serveHelp = `Usage: strata serve [flags]

Flags:
  --tsdb.path DIR           where data lives (default ./data)
  --grpc-address HOST:PORT  Store API listen address (default 0.0.0.0:10901)
  --http-address HOST:PORT  HTTP listen address (default 0.0.0.0:8080)
  --remote-write.address HOST:PORT  serve remote write (/api/v1/receive, /api/v1/write) on this address of its own,
                            as Thanos Receive (default: on the HTTP address)
  --label NAME="VALUE"      external label to announce (repeatable); the value a quoted Go string, as Thanos takes it
                            (shell: --label 'region="eu-west"')
  --replica-label NAME      only these labels may be removed by without_replica_labels (repeatable;
                            default: every label a request names, as Thanos Receive)
  --workers N               worker threads (default: the number of cores)
  --env ENV                 development or production (default production)
  --tsdb.retention DURATION keep data this far back from the newest sample (default 15d)
  --tsdb.max-retention-bytes SIZE  delete the oldest blocks while blocks, WAL and head chunks take more (e.g. 50GB; default 0: no limit)
  --disk-reserve SIZE       space held back on the data directory's filesystem, so that a full disk refuses writes
                            cleanly and they resume by themselves once space is freed (default 8MiB; 0: none)
  --compaction BOOL         compact blocks 2h -> 6h -> 18h ... (default true; false where Thanos' compactor owns them)
  --objstore.config-file FILE  ship each new block to this bucket (Thanos' bucket configuration: FILESYSTEM, S3)
  --objstore.config YAML       the same configuration given inline
  --shipper.upload-concurrency N  block files uploaded at once (default 2; 0 or 1: one at a time, Thanos' default)
  --wal-fsync-interval DUR  fsync the write-ahead log this often (default 1s; 0s: every write)
  --receive.tenant-label-name NAME  label carrying the tenant of every series (default tenant_id)
  --grpc-max-recv-bytes N   largest gRPC request accepted (default 67108864, 64 MiB)
  --http-max-body-bytes N   largest remote-write or remote-read body over HTTP (default 33554432, 32 MiB)
  --store.limits.request-series N   most series one Series call may select (default 0: no limit)
  --store.limits.request-samples N  most samples one Series call may select (default 0: no limit)
  --grpc-server-tls-cert FILE       serve gRPC over TLS with this certificate (PEM)
  --grpc-server-tls-key FILE        ... and this private key (PEM)
  --grpc-server-tls-client-ca FILE  require client certificates signed by this CA (mutual TLS)
  --http-server-tls-cert FILE       serve HTTP over TLS (HTTPS) with this certificate (PEM)
  --http-server-tls-key FILE        ... and this private key (PEM, unencrypted)
  --http-server-tls-client-ca FILE  require client certificates signed by this CA (mutual TLS)
${writeLimitsHelp}
${tsdbHelp}
  --tsdb.max-exemplars N    exemplars kept from remote write, the oldest replaced first (default ${DEFAULT_MAX_EXEMPLARS}; 0 or less: none)
  --tsdb.memory-snapshot-on-shutdown BOOL  write a head snapshot on a clean stop and load it at the next start instead of
                            the WAL checkpoint's series (default true; Thanos' flag, default false there)
  --receive.default-tenant-id ID  tenant of a write or HTTP read that names none (default default-tenant)
${graceHelp}
${logHelp}
${otlpHelp}
  -h, --help                show this help

${aliasHelp(serveAliases)}`;

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

function parseWorkers(value: string | undefined): number {
  if (value === undefined) return availableParallelism();
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 256) {
    throw new UsageError(`--workers: '${value}' is not a whole number from 1 to 256`);
  }
  return Number(value);
}

function labelName(flag: string, value: string): string {
  if (!LABEL_NAME.test(value)) throw new UsageError(`--${flag}: '${value}' is not a valid label name`);
  return value;
}

export function count(flag: string, value: string, min: number): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
    throw new UsageError(`--${flag}: '${value}' is not a whole number of at least ${min}`);
  }
  return Number(value);
}

/** The `--LISTENER-server-tls-*` flags checked together: cert and key go together, a client CA needs both, files exist. */
export function tlsOptions(cert?: string, key?: string, clientCa?: string, listener: 'grpc' | 'http' = 'grpc'): ServeConfig['grpcTls'] {
  const f = `${listener}-server-tls`;
  if (cert === undefined && key === undefined) {
    if (clientCa !== undefined) throw new UsageError(`--${f}-client-ca: needs --${f}-cert and --${f}-key`);
    return undefined;
  }
  if (cert === undefined || key === undefined) throw new UsageError(`--${f}-cert and --${f}-key go together`);
  for (const [flag, file] of [[`${f}-cert`, cert], [`${f}-key`, key], [`${f}-client-ca`, clientCa]] as const) {
    if (file !== undefined && !existsSync(file)) throw new UsageError(`--${flag}: '${file}' does not exist`);
  }
  return clientCa === undefined ? { cert, key } : { cert, key, clientCa };
}

export function objstoreConfig(inline: string | undefined, file: string | undefined): ServeConfig['objstoreConfig'] {
  if (inline !== undefined && file !== undefined) throw new UsageError('--objstore.config and --objstore.config-file: give one of them, not both');
  if (inline !== undefined) return { bucket: bucketConfig('objstore.config', inline), from: '--objstore.config', text: inline };
  if (file === undefined) return undefined;
  if (!existsSync(file)) throw new UsageError(`--objstore.config-file: '${file}' does not exist`);
  const text = readFileSync(file, 'utf8');
  return { bucket: bucketConfig('objstore.config-file', text), from: file, text };
}

function bucketConfig(flag: string, yaml: string): BucketConfig {
  try {
    return parseBucketConfig(yaml);
  } catch (err) {
    throw new UsageError(`--${flag}: ${(err as Error).message}`);
  }
}

function parseBool(flag: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`--${flag}: '${value}' is not true or false`);
}

export function positiveDuration(flag: string, value: string): number {
  const ms = parseDuration(flag, value);
  if (ms <= 0) throw new UsageError(`--${flag}: must be longer than 0`);
  return ms;
}

/** --tsdb.retention: Thanos reads 0 as keep forever, which Strata does not offer; say so rather than only "longer than 0". */
function retentionFlag(value: string): number {
  const ms = parseDuration('tsdb.retention', value);
  if (ms === 0) throw new UsageError(`--tsdb.retention: '${value}': 0 (Thanos: keep forever) is not supported; give a duration such as 15d or 10y`);
  return positiveDuration('tsdb.retention', value);
}

/** Parses the arguments after `serve`. Throws UsageError on any mistake. */
export function parseServeArgs(args: string[]): ServeConfig | 'help' {
  const { values, positionals } = parseArgs({ args: expandBoolFlags(renameAliases(args, serveAliases), ['tsdb.memory-snapshot-on-shutdown']), options: serveOptions, strict: true, allowPositionals: true });
  if (values.help) return 'help';
  if (positionals.length > 0) throw new UsageError(`serve: unexpected argument '${positionals[0]}'`);
  const env = values.env;
  if (env !== 'development' && env !== 'production') {
    throw new UsageError(`--env: '${env}' is not development or production`);
  }
  const externalLabels = values.label.map(parseLabelFlag).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (let i = 1; i < externalLabels.length; i++) {
    if (externalLabels[i]![0] === externalLabels[i - 1]![0]) throw new UsageError(`--label: '${externalLabels[i]![0]}' given twice`);
  }
  for (const name of values['replica-label']) {
    if (!LABEL_NAME.test(name)) throw new UsageError(`--replica-label: '${name}' is not a valid label name`);
  }
  if (values['tsdb.path'] === '') throw new UsageError('--tsdb.path: must not be empty');
  return {
    dataDir: values['tsdb.path'],
    grpcAddress: parseHostPort('grpc-address', values['grpc-address']),
    httpAddress: parseHostPort('http-address', values['http-address']),
    externalLabels,
    replicaLabels: [...new Set(values['replica-label'])],
    workers: parseWorkers(values.workers),
    env,
    retentionMs: retentionFlag(values['tsdb.retention']),
    retentionBytes: parseBytes('tsdb.max-retention-bytes', values['tsdb.max-retention-bytes']),
    diskReserveBytes: parseBytes('disk-reserve', values['disk-reserve']),
    compaction: parseBool('compaction', values.compaction),
    objstoreConfig: objstoreConfig(values['objstore.config'], values['objstore.config-file']),
    shipperUploadConcurrency: count('shipper.upload-concurrency', values['shipper.upload-concurrency'], 0),
    walFsyncIntervalMs: parseDuration('wal-fsync-interval', values['wal-fsync-interval']),
    tenantLabelName: labelName('receive.tenant-label-name', values['receive.tenant-label-name']),
    grpcMaxRecvBytes: count('grpc-max-recv-bytes', values['grpc-max-recv-bytes'], 1),
    httpMaxBodyBytes: count('http-max-body-bytes', values['http-max-body-bytes'], 1),
    limitRequestSeries: count('store.limits.request-series', values['store.limits.request-series'], 0),
    limitRequestSamples: count('store.limits.request-samples', values['store.limits.request-samples'], 0),
    grpcTls: tlsOptions(values['grpc-server-tls-cert'], values['grpc-server-tls-key'], values['grpc-server-tls-client-ca']),
    httpTls: tlsOptions(values['http-server-tls-cert'], values['http-server-tls-key'], values['http-server-tls-client-ca'], 'http'),
    writeLimits: parseWriteLimitsFlags(values),
    tsdb: parseTsdbFlags(values),
    maxExemplars: maxExemplars(values['tsdb.max-exemplars']),
    memorySnapshotOnShutdown: parseBool('tsdb.memory-snapshot-on-shutdown', values['tsdb.memory-snapshot-on-shutdown']),
    log: parseLogFlags(values, env),
    defaultTenantId: tenantId(values['receive.default-tenant-id']),
    ...parseGraceFlags(values),
    ...(values['remote-write.address'] === undefined ? {} : { remoteWriteAddress: parseHostPort('remote-write.address', values['remote-write.address']) }),
    otlp: parseOtlpFlags(values),
  };
}

/** --receive.default-tenant-id: a tenant name as Thanos takes one (pkg/tenancy: no '/'), not empty. */
function tenantId(value: string): string {
  if (value === '' || value.includes('/')) throw new UsageError(`--receive.default-tenant-id: '${value}' is not a tenant name (not empty, no '/')`);
  return value;
}

/** Beyond this the store's columns (about 40 bytes an exemplar) would not fit in memory anyway. */
const MAX_EXEMPLARS_FLAG = 100_000_000;

/** --tsdb.max-exemplars: a whole number, 0 or less turning the store off (Thanos Receive's meaning). */
function maxExemplars(value: string): number {
  if (!/^[+-]?\d+$/.test(value)) throw new UsageError(`--tsdb.max-exemplars: '${value}' is not a whole number`);
  const n = Number(value);
  if (n > MAX_EXEMPLARS_FLAG) throw new UsageError(`--tsdb.max-exemplars: ${value} is more than ${MAX_EXEMPLARS_FLAG}`);
  return n > 0 ? n : 0;
}
