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
import { REFUSAL_REASONS, REQUEST_LIMITS, type LimitsConfig, type ReloadCounters, type WriteLimiter } from '../ingest/limits/index.js';
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

/** What the metrics read of the write limits (src/write-limits). */
export interface WriteLimitsSource {
  readonly limiter: Pick<WriteLimiter, 'config' | 'inFlight' | 'refusals' | 'memory'>;
  /** Whether a limits configuration was given (Thanos' families are listed only then). */
  readonly configured: boolean;
  /** Reloads of the limits file, when there is one. */
  readonly reloads: ReloadCounters | undefined;
}

/** How far the WAL replay at start has got (src/wal's ReplayProgress). */
export interface WalReplaySource {
  readonly segmentsTotal: number;
  readonly segmentsDone: number;
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

/** What the metrics read of the Writer's series cache (src/ingest/series-cache.ts). */
export interface SeriesCacheStats {
  readonly size: number;
  readonly bytes: number;
  readonly hits: number;
  readonly misses: number;
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
  private cache: SeriesCacheStats | undefined;
  private pool: PoolStatsSource | undefined;
  private shipper: ShipperSource | undefined;
  private sidecar: SidecarStateSource | undefined;
  private limits: WriteLimitsSource | undefined;
  private walReplay: WalReplaySource | undefined;
  private readonly http = new RequestStats(['route', 'method']);
  private readonly grpc = new RequestStats(['method']);

  constructor(opts: StrataMetricsOptions) {
    const r = this.registry;
    collectDefaultMetrics({ register: r, prefix: PREFIX });
    const one = (value: number, labels?: Record<string, string>): MetricValue[] => [labels === undefined ? { value } : { labels, value }];
    registerSampled(r, `${PREFIX}build_info`, 'A constant 1, labelled with the version of Strata running.', 'gauge', () => one(1, { version: opts.version }));
    registerSampled(r, `${PREFIX}ready`, '1 while /-/ready answers 200: the engine open, both listeners up, writes stored; 0 before, while stopping, and while a full or failing disk makes the engine refuse writes.', 'gauge', () => one(opts.ready() ? 1 : 0));

    const fromDb = (read: (db: Db) => MetricValue[]) => () => (this.db === undefined ? [] : read(this.db));
    const fromCache = (read: (c: SeriesCacheStats) => MetricValue[]) => () => (this.cache === undefined ? [] : read(this.cache));
    registerSampled(r, `${PREFIX}samples_ingested_total`, 'Samples stored by the engine since start.', 'counter', fromDb((db) => one(db.counters.samplesAppended)));
    registerSampled(r, `${PREFIX}samples_ignored_total`, 'Samples written again with the same timestamp and value: accepted, stored once.', 'counter', fromDb((db) => one(db.counters.samplesIgnored)));
    registerSampled(r, `${PREFIX}histogram_samples_ingested_total`, 'Native histogram samples stored by the engine since start.', 'counter', fromDb((db) => one(db.counters.histogramsAppended)));
    registerSampled(r, `${PREFIX}histogram_samples_ignored_total`, 'Native histogram samples written again with the same timestamp and value: accepted, stored once.', 'counter', fromDb((db) => one(db.counters.histogramsIgnored)));
    registerSampled(r, `${PREFIX}samples_rejected_total`, 'Samples refused by the sample rules since start, by reason.', 'counter', fromDb((db) => [
      { labels: { reason: 'out_of_order' }, value: db.counters.outOfOrder },
      { labels: { reason: 'conflict' }, value: db.counters.conflict },
      { labels: { reason: 'too_old' }, value: db.counters.tooOld },
      { labels: { reason: 'too_far_in_future' }, value: db.counters.tooFarInFuture },
    ]));
    registerSampled(r, `${PREFIX}samples_out_of_order_ingested_total`, 'Of the samples ingested, those accepted out of order within --tsdb.out-of-order.time-window (Prometheus\' prometheus_tsdb_head_out_of_order_samples_appended_total).', 'counter', fromDb((db) => one(db.counters.oooAppended)));
    registerSampled(r, `${PREFIX}head_out_of_order_samples`, 'Samples in the out-of-order head, not yet written into blocks.', 'gauge', fromDb((db) => one(db.oooSamples)));
    registerSampled(r, `${PREFIX}ooo_read_cache_bytes`, 'Bytes of chunks kept from reads that merged out-of-order samples into a series\' chunks, for the next read of it (bounded; the oldest leave first).', 'gauge', fromDb((db) => one(db.head.merged.bytes)));
    registerSampled(r, `${PREFIX}ooo_read_cache_hits_total`, 'Merges of out-of-order samples into a chunk answered from that cache (the series unchanged since).', 'counter', fromDb((db) => one(db.head.merged.hits)));
    registerSampled(r, `${PREFIX}ooo_read_cache_misses_total`, 'Merges of out-of-order samples into a chunk made by a read (first read, or the series changed since).', 'counter', fromDb((db) => one(db.head.merged.misses)));
    registerSampled(r, `${PREFIX}series_created_total`, 'Series created in the head since start.', 'counter', fromDb((db) => one(db.counters.seriesCreated)));
    registerSampled(r, `${PREFIX}head_series`, 'Series in the head.', 'gauge', fromDb((db) => one(db.seriesCount)));
    registerSampled(r, `${PREFIX}series_cache_series`, 'Keys the series cache holds: remote-write series by their raw label bytes, OTLP points by what makes their labels.', 'gauge', fromCache((c) => one(c.size)));
    registerSampled(r, `${PREFIX}series_cache_bytes`, 'Bytes of the series cache table (shared with the pool).', 'gauge', fromCache((c) => one(c.bytes)));
    registerSampled(r, `${PREFIX}series_cache_hits_total`, 'Remote-write series and OTLP points found in the series cache (their labels neither read nor made again).', 'counter', fromCache((c) => one(c.hits)));
    registerSampled(r, `${PREFIX}series_cache_misses_total`, 'Remote-write series and OTLP points not found in the series cache (read in full, then learned).', 'counter', fromCache((c) => one(c.misses)));
    // Exemplars and metadata (src/exemplars, src/metadata), as Prometheus' prometheus_tsdb_exemplar_* tell them.
    registerSampled(r, `${PREFIX}exemplars_appended_total`, 'Exemplars stored in the exemplar store since start (WAL replay included).', 'counter', fromDb((db) => one(db.exemplars.addedTotal)));
    registerSampled(r, `${PREFIX}exemplars_out_of_order_total`, 'Exemplars refused as older than their series\' newest.', 'counter', fromDb((db) => one(db.exemplars.outOfOrderTotal)));
    registerSampled(r, `${PREFIX}exemplars_in_storage`, 'Exemplars held in the circular exemplar store.', 'gauge', fromDb((db) => one(db.exemplars.size)));
    registerSampled(r, `${PREFIX}series_with_exemplars_in_storage`, 'Series with at least one exemplar held.', 'gauge', fromDb((db) => one(db.exemplars.seriesCount)));
    registerSampled(r, `${PREFIX}exemplars_max`, 'Exemplars the store holds at most (--tsdb.max-exemplars).', 'gauge', fromDb((db) => one(db.exemplars.capacity)));
    registerSampled(r, `${PREFIX}metadata_families`, 'Metric families (per tenant) whose metadata remote write told.', 'gauge', fromDb((db) => one(db.metadata.size)));
    registerSampled(r, `${PREFIX}wal_storage_size_bytes`, 'Bytes of the write-ahead log on disk.', 'gauge', fromDb((db) => one(db.diskBytes().wal)));
    registerSampled(r, `${PREFIX}head_chunks_storage_size_bytes`, 'Bytes of the memory-mapped head chunk files on disk.', 'gauge', fromDb((db) => one(db.diskBytes().chunks)));
    registerSampled(r, `${PREFIX}blocks_loaded`, 'Blocks on disk, open for reading.', 'gauge', fromDb((db) => one(db.blockCount)));
    registerSampled(r, `${PREFIX}blocks_storage_size_bytes`, 'Bytes of the blocks on disk.', 'gauge', fromDb((db) => one(db.diskBytes().blocks)));
    registerSampled(r, `${PREFIX}head_min_time_seconds`, 'Oldest sample time in the head (Unix seconds).', 'gauge', fromDb((db) => one(Number.isFinite(db.headMinTime) ? db.headMinTime / 1000 : NaN)));
    registerSampled(r, `${PREFIX}head_blocks_written_total`, 'Blocks cut from the head since start.', 'counter', fromDb((db) => one(db.counters.headBlocks)));
    registerSampled(r, `${PREFIX}compactions_total`, 'Block compactions done since start.', 'counter', fromDb((db) => one(db.counters.compactions)));
    registerSampled(r, `${PREFIX}wal_corruptions_total`, 'Damaged stretches of the write-ahead log skipped by the replay at start (logged with file and offset); only their records are lost (Prometheus\' prometheus_tsdb_wal_corruptions_total).', 'counter', fromDb((db) => one(db.walDamage)));
    // Read while the engine opens (HTTP answers before), so not through fromDb.
    const fromReplay = (read: (p: WalReplaySource) => MetricValue[]) => () => (this.walReplay === undefined ? [] : read(this.walReplay));
    registerSampled(r, `${PREFIX}wal_replay_segments_total`, 'WAL files the replay at start reads: the newest checkpoint (counted as one) and the segments after it. 0 until the WAL directory is listed.', 'gauge', fromReplay((p) => one(p.segmentsTotal)));
    registerSampled(r, `${PREFIX}wal_replay_segments_done`, 'Of strata_wal_replay_segments_total, the files replayed so far (equal once the replay is done; the log says "WAL segment loaded" for each).', 'gauge', fromReplay((p) => one(p.segmentsDone)));
    registerSampled(r, `${PREFIX}blocks_quarantined`, 'Blocks in DATA/quarantine: moved aside at start because they could not be opened (named in the log); the rest is served. Inspect them with strata tsdb check, then delete them or restore them from the bucket.', 'gauge', fromDb((db) => one(db.quarantinedBlocks)));
    registerSampled(r, `${PREFIX}head_chunks_corruptions_total`, 'Damaged stretches of the head chunk files skipped at start (logged with file and offset); only their chunks are lost.', 'counter', fromDb((db) => one(db.chunkFileDamage)));
    registerSampled(r, `${PREFIX}storage_writable`, '1 while the engine stores writes, 0 while a full or failing disk makes it refuse them (503; /-/ready says why). It goes back to 1 by itself once the disk takes writes again.', 'gauge', fromDb((db) => one(db.writeRefusal === undefined ? 1 : 0)));
    registerSampled(r, `${PREFIX}storage_write_errors_total`, 'Errors the engine\'s writers met, by writer (wal, chunks, checkpoint, block, reserve) and error code (ENOSPC, EIO, ...).', 'counter', fromDb((db) => db.writeFaults().errors.map((e) => ({ labels: { writer: e.site, code: e.code }, value: e.count }))));
    registerSampled(r, `${PREFIX}storage_write_stops_total`, 'Times the engine stopped storing writes for a full or failing disk (and strata_storage_write_resumes_total: started again).', 'counter', fromDb((db) => one(db.writeFaults().refusals)));
    registerSampled(r, `${PREFIX}storage_write_resumes_total`, 'Times the engine started storing writes again after a full or failing disk.', 'counter', fromDb((db) => one(db.writeFaults().recoveries)));
    registerSampled(r, `${PREFIX}disk_reserve_bytes`, 'Bytes held back on the data directory\'s filesystem for a full disk (--disk-reserve); 0 while they are given up.', 'gauge', fromDb((db) => one(db.writeFaults().reserveBytes)));
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

    this.registerWriteLimits(one);

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

  /** The WAL replay's progress is reported from now on (watch it before the engine opens). */
  watchWalReplay(progress: WalReplaySource): void {
    this.walReplay = progress;
  }

  /** The Writer's series cache is reported from now on. */
  watchWriter(writer: { readonly seriesCache: SeriesCacheStats }): void {
    this.cache = writer.seriesCache;
  }

  /** The pool's state is reported from now on. */
  watchPool(pool: PoolStatsSource): void {
    this.pool = pool;
  }

  /** The shipper's counters are reported from now on. */
  watchShipper(shipper: ShipperSource): void {
    this.shipper = shipper;
  }

  /** The write limits, their refusals and reloads are reported from now on. */
  watchWriteLimits(limits: WriteLimitsSource): void {
    this.limits = limits;
  }

  /**
   * Write limits, under Thanos Receive's names where it has the metric
   * (thanos_receive_*, so that dashboards and alerts carry over), and
   * strata_write_requests_refused_total for every refusal by tenant and
   * reason. thanos_receive_write_limits_hit is a summary without
   * quantiles here (its _sum and _count). Thanos' families are listed
   * only when a limits configuration was given, as Thanos registers them.
   */
  private registerWriteLimits(one: (value: number, labels?: Record<string, string>) => MetricValue[]): void {
    const r = this.registry;
    const from = (read: (s: WriteLimitsSource) => MetricValue[]) => () => (this.limits === undefined ? [] : read(this.limits));
    const thanos = (name: string, help: string, type: 'counter' | 'gauge' | 'summary', read: (s: WriteLimitsSource) => MetricValue[]) =>
      registerSampled(r, name, help, type, () => (this.limits?.configured === true ? read(this.limits) : []));
    registerSampled(r, `${PREFIX}write_requests_refused_total`, 'Remote writes refused by the write limits, by tenant and reason (body_size, series, samples: 413; head_series, concurrency: 429; memory: 503).', 'counter', from((s) => {
      const out: MetricValue[] = [];
      for (const [tenant, t] of s.limiter.refusals.entries()) {
        REFUSAL_REASONS.forEach((reason, i) => {
          if (t.count[i]! > 0) out.push({ labels: { tenant, reason }, value: t.count[i]! });
        });
      }
      return out;
    }));
    thanos('thanos_receive_write_limits_hit', 'Summary of how much beyond the limit a refused remote write request was.', 'summary', (s) => {
      const out: MetricValue[] = [];
      for (const [tenant, t] of s.limiter.refusals.entries()) {
        REQUEST_LIMITS.forEach((limit, i) => {
          const n = t.count[REFUSAL_REASONS.indexOf(limit)]!;
          if (n === 0) return;
          out.push({ metricName: 'thanos_receive_write_limits_hit_sum', labels: { tenant, limit }, value: t.overSum[i]! });
          out.push({ metricName: 'thanos_receive_write_limits_hit_count', labels: { tenant, limit }, value: n });
        });
      }
      return out;
    });
    const perTenant = (config: LimitsConfig): Array<[string, LimitsConfig['defaults']]> => [['', config.defaults], ...config.tenants];
    thanos('thanos_receive_write_limits', 'The configured write limits.', 'gauge', (s) => perTenant(s.limiter.config).flatMap(([tenant, l]) => [
      { labels: { tenant, limit: 'body_size' }, value: l.sizeBytes },
      { labels: { tenant, limit: 'series' }, value: l.series },
      { labels: { tenant, limit: 'samples' }, value: l.samples },
    ]));
    thanos('thanos_receive_head_series_limit', 'The configured limit for active (head) series of tenants.', 'gauge',
      (s) => perTenant(s.limiter.config).map(([tenant, l]) => ({ labels: { tenant }, value: l.headSeries })));
    thanos('thanos_receive_head_series_limited_requests_total', 'The total number of remote write requests that have been dropped due to active series limiting.', 'counter', (s) => {
      const out: MetricValue[] = [];
      for (const [tenant] of s.limiter.refusals.entries()) {
        const n = s.limiter.refusals.get(tenant, 'head_series');
        if (n > 0) out.push({ labels: { tenant }, value: n });
      }
      return out;
    });
    thanos('thanos_receive_write_request_concurrent_gate_write_requests_max', 'Maximum number of concurrent write_requests.', 'gauge', (s) => one(s.limiter.config.maxConcurrency));
    thanos('thanos_receive_write_request_concurrent_gate_write_requests_in_flight', 'Number of write_requests that are currently in flight.', 'gauge', (s) => one(s.limiter.inFlight));
    thanos('thanos_receive_limits_config_reload_total', 'How many times the limit configuration was reloaded', 'counter', (s) => (s.reloads === undefined ? [] : one(s.reloads.reloads)));
    thanos('thanos_receive_limits_config_reload_err_total', 'How many times the limit configuration failed to reload.', 'counter', (s) => (s.reloads === undefined ? [] : one(s.reloads.failures)));
    registerSampled(r, `${PREFIX}write_memory_pressure`, '1 while remote writes are answered 503 for memory pressure (--receive.heap-limit-ratio, --receive.memory-limit).', 'gauge',
      from((s) => one(s.limiter.memory?.reason === undefined ? 0 : 1)));
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
