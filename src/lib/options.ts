/**
 * The options of Strata.open: `strata serve`'s flags, named in camelCase
 * (`--tsdb.out-of-order.time-window` is `tsdbOutOfOrderTimeWindow`), with
 * their defaults, except that the library listens nowhere unless told.
 * `strata serve` opens its store with these same options (src/cli/serve.ts),
 * so a flag and its option cannot drift apart; test/lib/options.test.ts
 * checks that every flag has its option.
 */
import type { LabelsInput } from './types.js';

/**
 * A duration: milliseconds, or Prometheus' notation as the flags take it
 * (`15d`, `1h30m`, `500ms`; units y w d h m s ms, largest first).
 *
 * @example
 * const a: Duration = '2h';
 * const b: Duration = 2 * 3_600_000;
 */
export type Duration = number | string;

/**
 * A size: bytes, or Prometheus' notation (`512MB`, `1.5GB`, `10GiB`; units
 * are powers of 1024).
 *
 * @example
 * const s: Size = '50GB';
 */
export type Size = number | string;

/**
 * Where the store logs: any pino-like logger (an object first, then the
 * message). Default: nowhere.
 *
 * @example
 * import { pino } from 'pino';
 * const store = await Strata.open({ dataDir, log: pino() });
 */
export interface StrataLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * How to open a store. Only `dataDir` is required.
 *
 * @example
 * const store = await Strata.open({
 *   dataDir: './data',
 *   retention: '30d',
 *   externalLabels: { cluster: 'eu-1', replica: 'a' },
 *   tsdbOutOfOrderTimeWindow: '1h',
 *   grpcAddress: '127.0.0.1:10901',
 * });
 */
export interface StrataOptions {
  /** --data-dir: where data lives (created if missing). Two stores cannot share one. */
  dataDir: string;
  /** --grpc-address: serve the Store API here from the start (default: no gRPC listener; see Strata.listen). */
  grpcAddress?: string;
  /** --http-address: serve HTTP here from the start (default: no HTTP listener). */
  httpAddress?: string;
  /**
   * --remote-write.address: serve remote write (POST /api/v1/receive and
   * /api/v1/write) on a listener of its own, as Thanos Receive does; the
   * HTTP address then serves everything else (default: remote write is
   * served on the HTTP address). HTTPS with the HTTP listener's TLS files.
   */
  remoteWriteAddress?: string;
  /** --label (repeatable): the store's external labels, added to every series read. */
  externalLabels?: LabelsInput;
  /** --replica-label (repeatable): the only labels a Store API client's without_replica_labels may remove (default: any). */
  replicaLabels?: readonly string[];
  /** --workers: worker threads parsing writes and encoding answers (default: the number of cores; 1 to 256). */
  workers?: number;
  /** --env: `development` also serves the HTTP API explorer at /api (default `production`). */
  env?: 'development' | 'production';
  /** --retention: keep data this far back from the newest sample (default 15d). */
  retention?: Duration;
  /** --retention-size: delete the oldest blocks while blocks, WAL and head chunks take more (default 0: no limit). */
  retentionSize?: Size;
  /**
   * --disk-reserve: space held back on the data directory's filesystem
   * (DATA/space-reserve) so that a full disk refuses writes cleanly and
   * they resume by themselves once space is freed (default 8MiB; 0: none).
   */
  diskReserve?: Size;
  /** --compaction: compact blocks 2h -> 6h -> 18h ... (default true; off when blocks are shipped). */
  compaction?: boolean;
  /**
   * --objstore.config: ship each new block to this bucket, Thanos' bucket
   * configuration (FILESYSTEM, S3) as YAML text or as the object the YAML
   * describes (`{ type: 'FILESYSTEM', config: { directory } }`).
   */
  objstoreConfig?: string | Readonly<Record<string, unknown>>;
  /** --objstore.config-file: the same configuration read from a file. */
  objstoreConfigFile?: string;
  /**
   * --shipper.upload-concurrency: block files uploaded at once (default 2;
   * 0 or 1: one at a time, Thanos' default).
   */
  shipperUploadConcurrency?: number;
  /** --wal-fsync-interval: fsync the write-ahead log this often (default 1s; 0: after every write). */
  walFsyncInterval?: Duration;
  /** --tenant-label-name: the label carrying each series' tenant (default `tenant_id`). */
  tenantLabelName?: string;
  /**
   * --receive.default-tenant-id: the tenant of a write or HTTP read that
   * names none (no THANOS-TENANT header, no tenant in a gRPC write, no
   * `tenant` given to append) (default `default-tenant`, as Thanos Receive).
   */
  receiveDefaultTenantId?: string;
  /**
   * --http-grace-period: on close, how long HTTP requests in flight may
   * take before the listener closes under them (default 10s; 0: at once).
   * `strata serve` defaults to Thanos' 2m.
   */
  httpGracePeriod?: Duration;
  /** --grpc-grace-period: the same for gRPC calls in flight (default 10s; 0: at once). */
  grpcGracePeriod?: Duration;
  /** --grpc-max-recv-bytes: largest gRPC request taken (default 64 MiB). */
  grpcMaxRecvBytes?: number;
  /** --http-max-body-bytes: largest remote-write or remote-read body over HTTP (default 32 MiB). */
  httpMaxBodyBytes?: number;
  /** --store.limits.request-series: most series one selection may return, Store API and select() alike (default 0: no limit). */
  storeLimitsRequestSeries?: number;
  /** --store.limits.request-samples: most samples one selection may return (default 0: no limit). */
  storeLimitsRequestSamples?: number;
  /** --grpc-server-tls-cert: serve gRPC over TLS with this certificate (PEM file). */
  grpcServerTlsCert?: string;
  /** --grpc-server-tls-key: ... and this private key (PEM file). */
  grpcServerTlsKey?: string;
  /** --grpc-server-tls-client-ca: require client certificates signed by this CA (PEM file). */
  grpcServerTlsClientCa?: string;
  /** --http-server-tls-cert: serve HTTPS with this certificate (PEM file). */
  httpServerTlsCert?: string;
  /** --http-server-tls-key: ... and this private key (PEM file, unencrypted). */
  httpServerTlsKey?: string;
  /** --http-server-tls-client-ca: require client certificates signed by this CA (PEM file). */
  httpServerTlsClientCa?: string;
  /** --receive.limits-config-file: per-tenant write limits, Thanos Receive's YAML; reloaded when it changes. */
  receiveLimitsConfigFile?: string;
  /** --receive.limits-config: the same configuration as YAML text or as the object it describes (not reloaded). */
  receiveLimitsConfig?: string | Readonly<Record<string, unknown>>;
  /** --receive.limits-config-reload-timer: how often the file is checked for changes (default 1s). */
  receiveLimitsConfigReloadTimer?: Duration;
  /** --receive.heap-limit-ratio: refuse writes while the JavaScript heap uses more than this share of its limit (default 0.9; 0: off). */
  receiveHeapLimitRatio?: number;
  /** --receive.memory-limit: refuse writes while anonymous resident memory is above this (default 0: off). */
  receiveMemoryLimit?: Size;
  /** --tsdb.out-of-order.time-window: accept samples out of order back to the newest held minus this (default 0: refused). */
  tsdbOutOfOrderTimeWindow?: Duration;
  /** --tsdb.too-far-in-future.time-window: refuse samples newer than now + this (default 0: no limit). */
  tsdbTooFarInFutureTimeWindow?: Duration;
  /** --tsdb.max-exemplars: exemplars kept from remote write, the oldest replaced first (default 100000; 0 or less: none). */
  tsdbMaxExemplars?: number;
  /** --tsdb.memory-snapshot-on-shutdown: write a head snapshot on close and load it at the next open (default true; docs/format/head-snapshot.md). */
  tsdbMemorySnapshotOnShutdown?: boolean;
  /** --otlp.translation-strategy: OTLP metric and label names (default UnderscoreEscapingWithSuffixes, as Prometheus). */
  otlpTranslationStrategy?: string;
  /** --otlp.promote-resource-attributes: resource attributes copied onto every series. */
  otlpPromoteResourceAttributes?: string[];
  /** --otlp.promote-all-resource-attributes: all of them but the ignored ones. */
  otlpPromoteAllResourceAttributes?: boolean;
  /** --otlp.ignore-resource-attributes. */
  otlpIgnoreResourceAttributes?: string[];
  /** --otlp.keep-identifying-resource-attributes: service.* also on target_info. */
  otlpKeepIdentifyingResourceAttributes?: boolean;
  /** --otlp.promote-scope-metadata: scope name, version, schema URL and attributes as labels. */
  otlpPromoteScopeMetadata?: boolean;
  /** Where to log (default: nowhere); `strata serve` passes its JSON logger. */
  log?: StrataLogger;
}
