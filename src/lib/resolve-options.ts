/**
 * Checks Strata.open's options and turns them into what the engine and
 * the listeners take (milliseconds, bytes, parsed configurations). Each
 * mistake is an InvalidArgumentError naming the option, as `strata serve`
 * names the flag; the notations (durations, sizes, HOST:PORT) are parsed
 * by the CLI's own parsers, so both take exactly the same values.
 */
import { BLOCK_FILES_IN_FLIGHT } from '../shipper/upload-files.js';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { stringify } from 'yaml';
import { parseBytes } from '../config/bytes.js';
import { parseHostPort, type HostPort } from '../config/host-port.js';
import { UsageError } from '../config/usage-error.js';
import { parseModelDuration } from '../config/duration.js';
import { DEFAULT_MAX_EXEMPLARS, DEFAULT_RESERVE_BYTES, DEFAULT_RETENTION_MS } from '../db/options.js';
import { DEFAULT_MAX_BODY_BYTES } from '../http/prometheus/limits.js';
import { parseBucketConfig, type BucketConfig } from '../objstore/index.js';
import { DEFAULT_TENANT, DEFAULT_TENANT_LABEL } from '../ingest/parse/index.js';
import { loadLimitsFile, loadLimitsText, type WriteLimitsOptions } from '../ingest/limits/index.js';
import { InvalidArgumentError } from './errors.js';
import { otlpSettings, type OtlpSettings } from '../otlp/settings.js';
import { labelPairs } from './labels.js';
import { SILENT_LOGGER } from './logger.js';
import type { Duration, Size, StrataLogger, StrataOptions } from './options.js';

/** TLS files of a listener, checked to exist. */
export interface TlsFiles {
  cert: string;
  key: string;
  clientCa?: string;
}

/** The options, checked and in the units the parts take. */
export interface ResolvedOptions {
  /** Absolute. */
  dataDir: string;
  grpcAddress?: HostPort;
  httpAddress?: HostPort;
  remoteWriteAddress?: HostPort;
  /** Sorted by name. */
  externalLabels: Array<[string, string]>;
  replicaLabels: string[];
  workers: number;
  env: 'development' | 'production';
  retentionMs: number;
  retentionBytes: number;
  diskReserveBytes: number;
  compaction: boolean;
  bucket?: BucketConfig;
  shipperUploadConcurrency: number;
  walFsyncIntervalMs: number;
  tenantLabelName: string;
  receiveDefaultTenantId: string;
  /** How long a close waits for HTTP requests and gRPC calls in flight (ms). */
  httpGraceMs: number;
  grpcGraceMs: number;
  grpcMaxRecvBytes: number;
  httpMaxBodyBytes: number;
  limitRequestSeries: number;
  limitRequestSamples: number;
  grpcTls?: TlsFiles;
  httpTls?: TlsFiles;
  writeLimits: Omit<WriteLimitsOptions, 'tenantLabel'>;
  outOfOrderWindowMs: number;
  tooFarInFutureMs: number;
  maxExemplars: number;
  memorySnapshotOnShutdown: boolean;
  otlp: OtlpSettings;
  log: StrataLogger;
}

/** Every option Strata.open knows (unknown ones are refused: a typo must not pass unnoticed). */
export const OPTION_NAMES: ReadonlySet<string> = new Set<keyof StrataOptions>([
  'dataDir', 'grpcAddress', 'httpAddress', 'remoteWriteAddress', 'externalLabels', 'replicaLabels', 'workers', 'env', 'retention', 'retentionSize', 'diskReserve',
  'compaction', 'objstoreConfig', 'objstoreConfigFile', 'shipperUploadConcurrency', 'walFsyncInterval', 'tenantLabelName', 'receiveDefaultTenantId',
  'httpGracePeriod', 'grpcGracePeriod', 'grpcMaxRecvBytes',
  'httpMaxBodyBytes', 'storeLimitsRequestSeries', 'storeLimitsRequestSamples', 'grpcServerTlsCert', 'grpcServerTlsKey',
  'grpcServerTlsClientCa', 'httpServerTlsCert', 'httpServerTlsKey', 'httpServerTlsClientCa', 'receiveLimitsConfigFile',
  'receiveLimitsConfig', 'receiveLimitsConfigReloadTimer', 'receiveHeapLimitRatio', 'receiveMemoryLimit',
  'tsdbOutOfOrderTimeWindow', 'tsdbTooFarInFutureTimeWindow', 'tsdbMaxExemplars', 'tsdbMemorySnapshotOnShutdown', 'otlpTranslationStrategy', 'otlpPromoteResourceAttributes', 'otlpPromoteAllResourceAttributes',
  'otlpIgnoreResourceAttributes', 'otlpKeepIdentifyingResourceAttributes', 'otlpPromoteScopeMetadata', 'log',
]);

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** As --tsdb.max-exemplars: beyond this the exemplar columns would not fit in memory anyway. */
const MAX_EXEMPLARS = 100_000_000;
const DEFAULT_GRPC_MAX_RECV_BYTES = 64 * 1024 * 1024;
/** How long a library user's close waits for requests in flight: what the listeners waited before the option existed. */
const DEFAULT_GRACE_MS = 10_000;

/**
 * A tenant name as Thanos takes one (pkg/tenancy IsTenantValid: equal to
 * its own path.Base, so without '/'), and not empty: it names a tenant.
 */
function tenantName(value: unknown): string {
  if (value === undefined) return DEFAULT_TENANT;
  if (typeof value !== 'string' || value === '' || value.includes('/')) {
    throw new InvalidArgumentError(`receiveDefaultTenantId: ${JSON.stringify(value)} is not a tenant name (not empty, no '/')`);
  }
  return value;
}

/** Checks `options`; throws InvalidArgumentError naming the first option that is wrong. */
export function resolveOptions(options: StrataOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('Strata.open takes an options object with at least dataDir');
  for (const key of Object.keys(options)) {
    if (!OPTION_NAMES.has(key)) throw new InvalidArgumentError(`unknown option '${key}'`);
  }
  const o = options;
  if (typeof o.dataDir !== 'string' || o.dataDir === '') throw new InvalidArgumentError('dataDir: a directory is required');
  const env = o.env ?? 'production';
  if (env !== 'development' && env !== 'production') throw new InvalidArgumentError(`env: '${String(env)}' is not development or production`);
  const tenantLabelName = o.tenantLabelName ?? DEFAULT_TENANT_LABEL;
  if (!LABEL_NAME.test(tenantLabelName)) throw new InvalidArgumentError(`tenantLabelName: '${tenantLabelName}' is not a valid label name`);
  const out: ResolvedOptions = {
    dataDir: resolve(o.dataDir),
    externalLabels: externalLabels(o.externalLabels),
    replicaLabels: replicaLabels(o.replicaLabels),
    workers: o.workers === undefined ? availableParallelism() : whole('workers', o.workers, 1, 256),
    shipperUploadConcurrency: o.shipperUploadConcurrency === undefined ? BLOCK_FILES_IN_FLIGHT : whole('shipperUploadConcurrency', o.shipperUploadConcurrency, 0),
    env,
    retentionMs: duration('retention', o.retention, DEFAULT_RETENTION_MS, 1),
    retentionBytes: size('retentionSize', o.retentionSize, 0),
    diskReserveBytes: size('diskReserve', o.diskReserve, DEFAULT_RESERVE_BYTES),
    compaction: bool('compaction', o.compaction, true),
    walFsyncIntervalMs: duration('walFsyncInterval', o.walFsyncInterval, 1000, 0),
    tenantLabelName,
    receiveDefaultTenantId: tenantName(o.receiveDefaultTenantId),
    httpGraceMs: duration('httpGracePeriod', o.httpGracePeriod, DEFAULT_GRACE_MS, 0),
    grpcGraceMs: duration('grpcGracePeriod', o.grpcGracePeriod, DEFAULT_GRACE_MS, 0),
    grpcMaxRecvBytes: o.grpcMaxRecvBytes === undefined ? DEFAULT_GRPC_MAX_RECV_BYTES : whole('grpcMaxRecvBytes', o.grpcMaxRecvBytes, 1),
    httpMaxBodyBytes: o.httpMaxBodyBytes === undefined ? DEFAULT_MAX_BODY_BYTES : whole('httpMaxBodyBytes', o.httpMaxBodyBytes, 1),
    limitRequestSeries: o.storeLimitsRequestSeries === undefined ? 0 : whole('storeLimitsRequestSeries', o.storeLimitsRequestSeries, 0),
    limitRequestSamples: o.storeLimitsRequestSamples === undefined ? 0 : whole('storeLimitsRequestSamples', o.storeLimitsRequestSamples, 0),
    writeLimits: writeLimits(o),
    outOfOrderWindowMs: duration('tsdbOutOfOrderTimeWindow', o.tsdbOutOfOrderTimeWindow, 0, 0),
    tooFarInFutureMs: duration('tsdbTooFarInFutureTimeWindow', o.tsdbTooFarInFutureTimeWindow, 0, 0),
    maxExemplars: maxExemplars(o.tsdbMaxExemplars),
    memorySnapshotOnShutdown: bool('tsdbMemorySnapshotOnShutdown', o.tsdbMemorySnapshotOnShutdown, true),
    otlp: otlpOptions(o),
    log: logger(o.log),
  };
  if (o.grpcAddress !== undefined) out.grpcAddress = hostPort('grpcAddress', o.grpcAddress);
  if (o.httpAddress !== undefined) out.httpAddress = hostPort('httpAddress', o.httpAddress);
  if (o.remoteWriteAddress !== undefined) out.remoteWriteAddress = hostPort('remoteWriteAddress', o.remoteWriteAddress);
  const bucket = bucketConfig(o.objstoreConfig, o.objstoreConfigFile);
  if (bucket !== undefined) out.bucket = bucket;
  const grpcTls = tlsFiles('grpcServerTls', o.grpcServerTlsCert, o.grpcServerTlsKey, o.grpcServerTlsClientCa);
  if (grpcTls !== undefined) out.grpcTls = grpcTls;
  const httpTls = tlsFiles('httpServerTls', o.httpServerTlsCert, o.httpServerTlsKey, o.httpServerTlsClientCa);
  if (httpTls !== undefined) out.httpTls = httpTls;
  return out;
}

/** `host:port` as --grpc-address takes it. */
export function hostPort(option: string, value: unknown): HostPort {
  if (typeof value !== 'string') throw new InvalidArgumentError(`${option}: expected 'HOST:PORT', got ${typeof value}`);
  return asOption(option, () => parseHostPort(option, value));
}

/** Runs one of the CLI's parsers, its `--flag: ...` message becoming `option: ...`. */
function asOption<T>(option: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    throw new InvalidArgumentError(err.message.replace(/^--[\w.-]+:/, `${option}:`));
  }
}

function duration(option: string, value: Duration | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  let ms: number | undefined;
  if (typeof value === 'number') ms = Number.isSafeInteger(value) ? value : undefined;
  else if (typeof value === 'string') ms = parseModelDuration(value);
  if (ms === undefined) throw new InvalidArgumentError(`${option}: ${JSON.stringify(value)} is not a duration such as 15d, 1h30m or 500ms, or a whole number of milliseconds`);
  if (ms < min) throw new InvalidArgumentError(min > 0 ? `${option}: must be longer than 0` : `${option}: must not be negative`);
  return ms;
}

function size(option: string, value: Size | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number') return whole(option, value, 0);
  if (typeof value !== 'string') throw new InvalidArgumentError(`${option}: expected bytes or a size such as 512MB, got ${typeof value}`);
  return asOption(option, () => parseBytes(option, value));
}

function whole(option: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
    throw new InvalidArgumentError(`${option}: ${JSON.stringify(value)} is not a whole number ${range}`);
  }
  return value;
}

function bool(option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new InvalidArgumentError(`${option}: ${JSON.stringify(value)} is not true or false`);
  return value;
}

function ratio(option: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw new InvalidArgumentError(`${option}: ${JSON.stringify(value)} is not a number from 0 to 1`);
  return value;
}

function externalLabels(value: StrataOptions['externalLabels']): Array<[string, string]> {
  if (value === undefined) return [];
  const pairs = labelPairs(value, 'externalLabels', true);
  for (const [name, v] of pairs) {
    if (!LABEL_NAME.test(name) || v === '') {
      throw new InvalidArgumentError(`externalLabels: '${name}=${v}' is not NAME=VALUE with a valid label name and a non-empty value`);
    }
  }
  return pairs;
}

function replicaLabels(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new InvalidArgumentError('replicaLabels: expected an array of label names');
  for (const name of value) {
    if (typeof name !== 'string' || !LABEL_NAME.test(name)) throw new InvalidArgumentError(`replicaLabels: '${String(name)}' is not a valid label name`);
  }
  return [...new Set(value as string[])];
}

function maxExemplars(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_EXEMPLARS;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new InvalidArgumentError(`tsdbMaxExemplars: ${JSON.stringify(value)} is not a whole number`);
  if (value > MAX_EXEMPLARS) throw new InvalidArgumentError(`tsdbMaxExemplars: ${value} is more than ${MAX_EXEMPLARS}`);
  return value > 0 ? value : 0;
}

/** YAML text as given, or the YAML an object describes. */
function yamlText(option: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) return stringify(value);
  throw new InvalidArgumentError(`${option}: expected YAML text or an object`);
}

function existingFile(option: string, file: unknown): string {
  if (typeof file !== 'string' || file === '') throw new InvalidArgumentError(`${option}: expected a file name`);
  if (!existsSync(file)) throw new InvalidArgumentError(`${option}: '${file}' does not exist`);
  return file;
}

function bucketConfig(inline: unknown, file: unknown): BucketConfig | undefined {
  if (inline !== undefined && file !== undefined) throw new InvalidArgumentError('objstoreConfig and objstoreConfigFile: give one of them, not both');
  if (inline === undefined && file === undefined) return undefined;
  const option = inline !== undefined ? 'objstoreConfig' : 'objstoreConfigFile';
  const text = inline !== undefined ? yamlText(option, inline) : readFileSync(existingFile(option, file), 'utf8');
  try {
    return parseBucketConfig(text);
  } catch (err) {
    throw new InvalidArgumentError(`${option}: ${(err as Error).message}`, { cause: err });
  }
}

function writeLimits(o: StrataOptions): ResolvedOptions['writeLimits'] {
  const out: ResolvedOptions['writeLimits'] = {
    reloadIntervalMs: duration('receiveLimitsConfigReloadTimer', o.receiveLimitsConfigReloadTimer, 1000, 1),
    memory: {
      heapRatio: ratio('receiveHeapLimitRatio', o.receiveHeapLimitRatio, 0.9),
      anonBytes: size('receiveMemoryLimit', o.receiveMemoryLimit, 0),
    },
  };
  const file = o.receiveLimitsConfigFile;
  const inline = o.receiveLimitsConfig;
  if (file !== undefined && inline !== undefined) throw new InvalidArgumentError('receiveLimitsConfigFile and receiveLimitsConfig: give one of them, not both');
  const load = <T>(option: string, read: () => T): T => {
    try {
      return read();
    } catch (err) {
      throw new InvalidArgumentError(`${option}: ${(err as Error).message}`, { cause: err });
    }
  };
  if (file !== undefined) {
    const path = existingFile('receiveLimitsConfigFile', file);
    out.source = { loaded: load('receiveLimitsConfigFile', () => loadLimitsFile(path)), file: path };
  } else if (inline !== undefined) {
    const text = yamlText('receiveLimitsConfig', inline);
    out.source = { loaded: load('receiveLimitsConfig', () => loadLimitsText(text)) };
  }
  return out;
}

/** A listener's TLS options checked together: cert and key go together, a client CA needs both, files exist. */
function tlsFiles(prefix: string, cert?: string, key?: string, clientCa?: string): TlsFiles | undefined {
  if (cert === undefined && key === undefined) {
    if (clientCa !== undefined) throw new InvalidArgumentError(`${prefix}ClientCa: needs ${prefix}Cert and ${prefix}Key`);
    return undefined;
  }
  if (cert === undefined || key === undefined) throw new InvalidArgumentError(`${prefix}Cert and ${prefix}Key go together`);
  const files: TlsFiles = { cert: existingFile(`${prefix}Cert`, cert), key: existingFile(`${prefix}Key`, key) };
  if (clientCa !== undefined) files.clientCa = existingFile(`${prefix}ClientCa`, clientCa);
  return files;
}

function logger(value: unknown): StrataLogger {
  if (value === undefined) return SILENT_LOGGER;
  const l = value as Partial<StrataLogger> | null;
  if (l === null || typeof l !== 'object' || !(['debug', 'info', 'warn', 'error'] as const).every((m) => typeof l[m] === 'function')) {
    throw new InvalidArgumentError('log: expected a logger with debug, info, warn and error methods (a pino logger fits)');
  }
  return l as StrataLogger;
}

/** The otlp* options as the OTLP translation's settings; InvalidArgumentError naming the option. */
function otlpOptions(o: StrataOptions): OtlpSettings {
  const s = otlpSettings({
    ...(o.otlpTranslationStrategy === undefined ? {} : { translationStrategy: o.otlpTranslationStrategy }),
    ...(o.otlpPromoteResourceAttributes === undefined ? {} : { promoteResourceAttributes: o.otlpPromoteResourceAttributes }),
    ...(o.otlpPromoteAllResourceAttributes === undefined ? {} : { promoteAllResourceAttributes: o.otlpPromoteAllResourceAttributes }),
    ...(o.otlpIgnoreResourceAttributes === undefined ? {} : { ignoreResourceAttributes: o.otlpIgnoreResourceAttributes }),
    ...(o.otlpKeepIdentifyingResourceAttributes === undefined ? {} : { keepIdentifyingResourceAttributes: o.otlpKeepIdentifyingResourceAttributes }),
    ...(o.otlpPromoteScopeMetadata === undefined ? {} : { promoteScopeMetadata: o.otlpPromoteScopeMetadata }),
  }, (setting) => `otlp${setting[0]!.toUpperCase()}${setting.slice(1)}`);
  if (typeof s === 'string') throw new InvalidArgumentError(s);
  return s;
}
