/**
 * Strata's own metrics, for GET /metrics in Prometheus' text format: what
 * the engine ingested and refused, its size, HTTP and gRPC requests, the
 * worker pool, the event loop, and the process (prom-client's defaults).
 * Every name starts with `strata_`.
 *
 * Values are read at scrape time from where they are kept anyway (the
 * engine's counters, piscina's state) and from request stats kept in typed
 * arrays; nothing is added to the write path.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Db } from '../db/db.js';
import type { PoolStats, TimeSummary } from '../pool/codec-pool.js';
import type { ShipperCounters } from '../shipper/shipper.js';
import { RequestStats } from './request-stats.js';
import { registerSampled, type MetricValue } from './sampled.js';

// The pool's state is the pool's type (metrics read the pool, the pool knows no metrics).
export type { PoolStats, TimeSummary } from '../pool/codec-pool.js';

export interface PoolStatsSource {
  stats(): PoolStats;
}

/** What the metrics read of a shipper. */
export interface ShipperSource {
  readonly counters: ShipperCounters;
  readonly pending: number;
}

/** A sidecar's view of its Prometheus. */
export interface SidecarStateSource {
  readonly prometheusUp: boolean;
  /** Prometheus blocks open for reading. */
  readonly blocksLoaded: number;
}

export interface StrataMetricsOptions {
  version: string;
  /** Whether the server is ready (strata_ready). */
  ready: () => boolean;
}

const PREFIX = 'strata_';
const QUANTILES = [['0.5', 'p50'], ['0.9', 'p90'], ['0.99', 'p99']] as const;

/** The name of a gRPC status code (`OK`, `INVALID_ARGUMENT`, ...). */
function grpcCodeName(code: number): string {
  return (GrpcStatus as unknown as Record<number, string>)[code] ?? String(code);
}

/**
 * The registry and its sources. Create one per process; attach the engine
 * and the pool as they open, and hand the observers to the servers.
 */
export class StrataMetrics {
  readonly registry = new Registry();
  private db: Db | undefined;
  private pool: PoolStatsSource | undefined;
  private shipper: ShipperSource | undefined;
  private sidecar: SidecarStateSource | undefined;
  private readonly http = new RequestStats(['route', 'method']);
  private readonly grpc = new RequestStats(['method']);

  constructor(opts: StrataMetricsOptions) {
    const r = this.registry;
    collectDefaultMetrics({ register: r, prefix: PREFIX });
    const one = (value: number, labels?: Record<string, string>): MetricValue[] => [labels === undefined ? { value } : { labels, value }];
    registerSampled(r, `${PREFIX}build_info`, 'A constant 1, labelled with the version of Strata running.', 'gauge', () => one(1, { version: opts.version }));
    registerSampled(r, `${PREFIX}ready`, '1 once the server is ready (the engine open, both listeners up), 0 before and while stopping.', 'gauge', () => one(opts.ready() ? 1 : 0));

    const fromDb = (read: (db: Db) => MetricValue[]) => () => (this.db === undefined ? [] : read(this.db));
    registerSampled(r, `${PREFIX}samples_ingested_total`, 'Samples stored by the engine since start.', 'counter', fromDb((db) => one(db.counters.samplesAppended)));
    registerSampled(r, `${PREFIX}samples_ignored_total`, 'Samples written again with the same timestamp and value: accepted, stored once.', 'counter', fromDb((db) => one(db.counters.samplesIgnored)));
    registerSampled(r, `${PREFIX}samples_rejected_total`, 'Samples refused by the sample rules since start, by reason.', 'counter', fromDb((db) => [
      { labels: { reason: 'out_of_order' }, value: db.counters.outOfOrder },
      { labels: { reason: 'conflict' }, value: db.counters.conflict },
      { labels: { reason: 'too_old' }, value: db.counters.tooOld },
    ]));
    registerSampled(r, `${PREFIX}series_created_total`, 'Series created in the head since start.', 'counter', fromDb((db) => one(db.counters.seriesCreated)));
    registerSampled(r, `${PREFIX}head_series`, 'Series in the head.', 'gauge', fromDb((db) => one(db.seriesCount)));
    registerSampled(r, `${PREFIX}wal_storage_size_bytes`, 'Bytes of the write-ahead log on disk.', 'gauge', fromDb((db) => one(db.diskBytes().wal)));
    registerSampled(r, `${PREFIX}head_chunks_storage_size_bytes`, 'Bytes of the memory-mapped head chunk files on disk.', 'gauge', fromDb((db) => one(db.diskBytes().chunks)));
    registerSampled(r, `${PREFIX}blocks_loaded`, 'Blocks on disk, open for reading.', 'gauge', fromDb((db) => one(db.blockCount)));
    registerSampled(r, `${PREFIX}blocks_storage_size_bytes`, 'Bytes of the blocks on disk.', 'gauge', fromDb((db) => one(db.diskBytes().blocks)));
    registerSampled(r, `${PREFIX}head_min_time_seconds`, 'Oldest sample time in the head (Unix seconds).', 'gauge', fromDb((db) => one(Number.isFinite(db.headMinTime) ? db.headMinTime / 1000 : NaN)));
    registerSampled(r, `${PREFIX}head_blocks_written_total`, 'Blocks cut from the head since start.', 'counter', fromDb((db) => one(db.counters.headBlocks)));
    registerSampled(r, `${PREFIX}compactions_total`, 'Block compactions done since start.', 'counter', fromDb((db) => one(db.counters.compactions)));
    registerSampled(r, `${PREFIX}compactions_failed_total`, 'Block compactions that failed since start.', 'counter', fromDb((db) => one(db.counters.compactionFailures)));
    registerSampled(r, `${PREFIX}blocks_deleted_total`, 'Blocks deleted by retention since start, by reason (time, size).', 'counter', fromDb((db) => [
      { labels: { reason: 'time' }, value: db.counters.blocksDeletedByTime },
      { labels: { reason: 'size' }, value: db.counters.blocksDeletedBySize },
    ]));

    // The shipper's, under Thanos' names (thanos_shipper_*) so that dashboards and alerts carry over.
    const fromShipper = (read: (s: ShipperSource) => MetricValue[]) => () => (this.shipper === undefined ? [] : read(this.shipper));
    registerSampled(r, 'thanos_shipper_dir_syncs_total', 'Total number of dir syncs', 'counter', fromShipper((s) => one(s.counters.dirSyncs)));
    registerSampled(r, 'thanos_shipper_dir_sync_failures_total', 'Total number of failed dir syncs', 'counter', fromShipper((s) => one(s.counters.dirSyncFailures)));
    registerSampled(r, 'thanos_shipper_uploads_total', 'Total number of uploaded blocks', 'counter', fromShipper((s) => one(s.counters.uploads)));
    registerSampled(r, 'thanos_shipper_upload_failures_total', 'Total number of block upload failures', 'counter', fromShipper((s) => one(s.counters.uploadFailures)));
    registerSampled(r, 'thanos_shipper_corrupted_blocks_total', 'Total number of corrupted blocks', 'counter', fromShipper((s) => one(s.counters.corruptedBlocks)));
    registerSampled(r, `${PREFIX}shipper_uploaded_bytes_total`, 'Bytes of blocks uploaded to the bucket since start.', 'counter', fromShipper((s) => one(s.counters.uploadedBytes)));
    registerSampled(r, `${PREFIX}shipper_pending_blocks`, 'Blocks waiting to be shipped (retention keeps them until they are).', 'gauge', fromShipper((s) => one(s.pending)));

    const fromSidecar = (read: (s: SidecarStateSource) => MetricValue[]) => () => (this.sidecar === undefined ? [] : read(this.sidecar));
    registerSampled(r, 'thanos_sidecar_prometheus_up', 'Boolean indicator whether the sidecar can reach its Prometheus peer.', 'gauge', fromSidecar((s) => one(s.prometheusUp ? 1 : 0)));
    registerSampled(r, `${PREFIX}sidecar_prometheus_blocks_loaded`, 'Blocks of the Prometheus data directory open for reading.', 'gauge', fromSidecar((s) => one(s.blocksLoaded)));

    registerSampled(r, `${PREFIX}http_requests_total`, 'HTTP requests answered, by route pattern, method and status (499: the client went away first).', 'counter', () => this.http.counts());
    registerSampled(r, `${PREFIX}http_request_duration_seconds`, 'Seconds from a request\'s arrival to its answer, by route pattern and method.', 'histogram', () => this.http.histogram(`${PREFIX}http_request_duration_seconds`));
    registerSampled(r, `${PREFIX}grpc_requests_total`, 'gRPC calls finished, by method and status code.', 'counter', () => this.grpc.counts());
    registerSampled(r, `${PREFIX}grpc_request_duration_seconds`, 'Seconds a gRPC call took, by method.', 'histogram', () => this.grpc.histogram(`${PREFIX}grpc_request_duration_seconds`));

    const fromPool = (read: (s: PoolStats) => MetricValue[]) => () => (this.pool === undefined ? [] : read(this.pool.stats()));
    registerSampled(r, `${PREFIX}pool_threads`, 'Worker threads in the pool.', 'gauge', fromPool((s) => one(s.threads)));
    registerSampled(r, `${PREFIX}pool_queue_depth`, 'Pool tasks waiting for a worker.', 'gauge', fromPool((s) => one(s.queueSize)));
    registerSampled(r, `${PREFIX}pool_utilization_ratio`, 'Share of the pool\'s capacity used since start.', 'gauge', fromPool((s) => one(s.utilization)));
    registerSampled(r, `${PREFIX}pool_tasks_completed_total`, 'Pool tasks finished since start.', 'counter', fromPool((s) => one(s.completed)));
    const summary = (name: string, pick: (s: PoolStats) => TimeSummary) => fromPool((s) => {
      const t = pick(s);
      const values: MetricValue[] = QUANTILES.map(([q, key]) => ({ labels: { quantile: q }, value: s.completed === 0 ? NaN : t[key] / 1000 }));
      values.push({ metricName: `${name}_sum`, value: s.completed === 0 ? 0 : (t.mean * s.completed) / 1000 });
      values.push({ metricName: `${name}_count`, value: s.completed });
      return values;
    });
    registerSampled(r, `${PREFIX}pool_task_run_seconds`, 'Seconds pool tasks ran in a worker, since start (quantiles from piscina).', 'summary', summary(`${PREFIX}pool_task_run_seconds`, (s) => s.runTime));
    registerSampled(r, `${PREFIX}pool_task_wait_seconds`, 'Seconds pool tasks waited for a worker, since start (quantiles from piscina).', 'summary', summary(`${PREFIX}pool_task_wait_seconds`, (s) => s.waitTime));
  }

  /** The engine's counters and sizes are reported from now on. */
  watchDb(db: Db): void {
    this.db = db;
  }

  /** The pool's state is reported from now on. */
  watchPool(pool: PoolStatsSource): void {
    this.pool = pool;
  }

  /** The shipper's counters are reported from now on. */
  watchShipper(shipper: ShipperSource): void {
    this.shipper = shipper;
  }

  /** A sidecar's state is reported from now on. */
  watchSidecar(sidecar: SidecarStateSource): void {
    this.sidecar = sidecar;
  }

  /** For the HTTP server's dispatch hook (DispatchHooks.onAnswer). */
  readonly onHttpAnswer = (route: string, method: string, status: number, seconds: number): void => {
    this.http.observe(route, method, status, seconds);
  };

  /** For the gRPC server (GrpcServerOptions.onCall). */
  readonly onGrpcCall = (method: string, code: number, seconds: number): void => {
    this.grpc.observe(method, '', grpcCodeName(code), seconds);
  };

  /** The exposition's media type. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
