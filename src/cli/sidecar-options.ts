import { parseArgs } from 'node:util';
import { UsageError } from '../config/usage-error.js';
import { parseHostPort, type HostPort } from '../config/host-port.js';
import { BLOCK_FILES_IN_FLIGHT } from '../shipper/upload-files.js';
import { logFlags, logHelp, parseLogFlags, type LogConfig } from './log-options.js';
import { count, graceFlags, graceHelp, objstoreConfig, parseGraceFlags, positiveDuration, tlsOptions, type Env, type ServeConfig } from './serve-options.js';

/** Everything `strata sidecar` is configured with (Thanos sidecar's flag names). */
export interface SidecarConfig {
  /** --prometheus.url: Prometheus' base URL. */
  prometheusUrl: string;
  /** --tsdb.path: Prometheus' data directory. */
  tsdbPath: string;
  grpcAddress: HostPort;
  httpAddress: HostPort;
  objstoreConfig: ServeConfig['objstoreConfig'];
  /** --prometheus.ready_timeout: how long start-up waits for Prometheus' external labels. */
  readyTimeoutMs: number;
  /** --prometheus.get_config_interval / get_config_timeout: the heartbeat that re-reads them. */
  configIntervalMs: number;
  configTimeoutMs: number;
  /** --shipper.upload-compacted: ship compacted blocks too. */
  uploadCompacted: boolean;
  /** --shipper.upload-concurrency: block files uploaded at once (0 and 1: one at a time). */
  uploadConcurrency: number;
  /** --shipper.ignore-unequal-block-size: ship although Prometheus may compact blocks. */
  ignoreUnequalBlockSize: boolean;
  env: Env;
  grpcMaxRecvBytes: number;
  limitRequestSeries: number;
  limitRequestSamples: number;
  grpcTls: ServeConfig['grpcTls'];
  /** --log.level and --log.format. */
  log: LogConfig;
  /** --http-grace-period, --grpc-grace-period: how long a stop waits for requests and calls in flight (ms). */
  httpGraceMs: number;
  grpcGraceMs: number;
}

const sidecarOptions = {
  'prometheus.url': { type: 'string', default: 'http://localhost:9090' },
  'tsdb.path': { type: 'string', default: './data' },
  'grpc-address': { type: 'string', default: '0.0.0.0:10901' },
  'http-address': { type: 'string', default: '0.0.0.0:10902' },
  'objstore.config': { type: 'string' },
  'objstore.config-file': { type: 'string' },
  'prometheus.ready_timeout': { type: 'string', default: '10m' },
  'prometheus.get_config_interval': { type: 'string', default: '30s' },
  'prometheus.get_config_timeout': { type: 'string', default: '30s' },
  'shipper.upload-compacted': { type: 'boolean', default: false },
  'shipper.ignore-unequal-block-size': { type: 'boolean', default: false },
  'shipper.upload-concurrency': { type: 'string', default: String(BLOCK_FILES_IN_FLIGHT) },
  env: { type: 'string', default: 'production' },
  'grpc-max-recv-bytes': { type: 'string', default: String(64 * 1024 * 1024) },
  'store.limits.request-series': { type: 'string', default: '0' },
  'store.limits.request-samples': { type: 'string', default: '0' },
  'grpc-server-tls-cert': { type: 'string' },
  'grpc-server-tls-key': { type: 'string' },
  'grpc-server-tls-client-ca': { type: 'string' },
  ...graceFlags,
  ...logFlags,
  help: { type: 'boolean', short: 'h' },
} as const;

export const sidecarHelp = `Usage: strata sidecar [flags]

Beside a running Prometheus, as Thanos' sidecar: serves the Store API over
its blocks (read from its data directory) and its head (through its remote
read), with the external labels of its configuration, and ships its blocks
to a bucket when one is configured.

Flags:
  --prometheus.url URL              Prometheus' address (default http://localhost:9090)
  --tsdb.path DIR                   Prometheus' data directory (default ./data)
  --grpc-address HOST:PORT          Store API listen address (default 0.0.0.0:10901)
  --http-address HOST:PORT          probes and /metrics (default 0.0.0.0:10902)
  --objstore.config-file FILE       ship Prometheus' blocks to this bucket (Thanos' bucket configuration)
  --objstore.config YAML            the same configuration given inline
  --prometheus.ready_timeout DUR    how long start-up waits for Prometheus (default 10m)
  --prometheus.get_config_interval DUR  how often its configuration is read again (default 30s)
  --prometheus.get_config_timeout DUR   timeout of that read (default 30s)
  --shipper.upload-compacted        ship compacted blocks too (migrating an existing Prometheus)
  --shipper.ignore-unequal-block-size  ship although Prometheus' min and max block durations differ
  --shipper.upload-concurrency N    block files uploaded at once (default 2; 0 or 1: one at a time, Thanos' default)
  --env ENV                         development or production (default production)
  --grpc-max-recv-bytes N           largest gRPC request accepted (default 67108864, 64 MiB)
  --store.limits.request-series N   most series one Series call may select (default 0: no limit)
  --store.limits.request-samples N  most samples one Series call may select (default 0: no limit)
  --grpc-server-tls-cert FILE       serve gRPC over TLS with this certificate (PEM)
  --grpc-server-tls-key FILE        ... and this private key (PEM)
  --grpc-server-tls-client-ca FILE  require client certificates signed by this CA (mutual TLS)
${graceHelp}
${logHelp}
  -h, --help                        show this help`;

/** Parses the arguments after `sidecar`. Throws UsageError on any mistake. */
export function parseSidecarArgs(args: string[]): SidecarConfig | 'help' {
  const { values, positionals } = parseArgs({ args, options: sidecarOptions, strict: true, allowPositionals: true });
  if (values.help) return 'help';
  if (positionals.length > 0) throw new UsageError(`sidecar: unexpected argument '${positionals[0]}'`);
  const env = values.env;
  if (env !== 'development' && env !== 'production') throw new UsageError(`--env: '${env}' is not development or production`);
  let url: URL;
  try {
    url = new URL(values['prometheus.url']);
  } catch {
    throw new UsageError(`--prometheus.url: '${values['prometheus.url']}' is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--prometheus.url: '${values['prometheus.url']}' is not an http or https URL`);
  if (values['tsdb.path'] === '') throw new UsageError('--tsdb.path: must not be empty');
  return {
    prometheusUrl: url.toString(),
    tsdbPath: values['tsdb.path'],
    grpcAddress: parseHostPort('grpc-address', values['grpc-address']),
    httpAddress: parseHostPort('http-address', values['http-address']),
    objstoreConfig: objstoreConfig(values['objstore.config'], values['objstore.config-file']),
    readyTimeoutMs: positiveDuration('prometheus.ready_timeout', values['prometheus.ready_timeout']),
    configIntervalMs: positiveDuration('prometheus.get_config_interval', values['prometheus.get_config_interval']),
    configTimeoutMs: positiveDuration('prometheus.get_config_timeout', values['prometheus.get_config_timeout']),
    uploadCompacted: values['shipper.upload-compacted'],
    ignoreUnequalBlockSize: values['shipper.ignore-unequal-block-size'],
    uploadConcurrency: count('shipper.upload-concurrency', values['shipper.upload-concurrency'], 0),
    env,
    grpcMaxRecvBytes: count('grpc-max-recv-bytes', values['grpc-max-recv-bytes'], 1),
    limitRequestSeries: count('store.limits.request-series', values['store.limits.request-series'], 0),
    limitRequestSamples: count('store.limits.request-samples', values['store.limits.request-samples'], 0),
    grpcTls: tlsOptions(values['grpc-server-tls-cert'], values['grpc-server-tls-key'], values['grpc-server-tls-client-ca']),
    log: parseLogFlags(values, env),
    ...parseGraceFlags(values),
  };
}
