/**
 * What an open store is made of, and the order it starts and stops in:
 * the one start-up sequence of `strata serve` and of Strata.open.
 *
 * Start-up: the worker pool, the write limits, metrics and the HTTP
 * routes; the HTTP listener when asked for (GET /-/healthy answers 200
 * from here on; /-/ready, remote write and read, the label API and any
 * path not yet routed answer 503), and remote write's own listener when
 * asked for (--remote-write.address); then the storage engine (DATA/wal,
 * DATA/chunks_head; it takes DATA/lock and replays the write-ahead log)
 * and the shipper; the Store API over gRPC when asked for; with HTTP, the
 * record store (DATA/records) and the JSON resources on it; then ready.
 * A failure releases what was opened, in reverse, before it is thrown.
 *
 * Stopping: not ready; the listeners close, letting calls and requests in
 * flight finish; then the record store, the shipper, the engine (which
 * flushes its head), the write limits and the pool.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HostPort } from '../config/host-port.js';
import { threadCodec } from '../chunkenc/index.js';
import { Db } from '../db/db.js';
import { mountApiEngine, registerResources, Router, startHttpServer, type HttpServer } from '../http/index.js';
import { notReady, otlpRoutes, Readiness, registerPrometheusRoutes, remoteWriteRoutes, type PrometheusRoutesOptions } from '../http/prometheus/index.js';
import { metricsRoute } from '../http/metrics-route.js';
import { StrataMetrics } from '../metrics/index.js';
import { openBucket } from '../objstore/index.js';
import { CodecPool } from '../pool/codec-pool.js';
import { openRecordStore, type RecordStore } from '../docstore/index.js';
import { Shipper } from '../shipper/shipper.js';
import { ExternalLabels } from '../store/external-labels.js';
import { startGrpcServer, type RunningGrpcServer } from '../grpc/server.js';
import { startWriteLimits, type RunningWriteLimits } from '../ingest/limits/index.js';
import { Writer } from '../ingest/writer.js';
import { ReplayProgress } from '../wal/index.js';
import type { Stage } from './error-map.js';
import { asPino } from './logger.js';
import type { ResolvedOptions } from './resolve-options.js';
import { PACKAGE_VERSION } from '../config/package-version.js';


/**
 * What `strata serve` adds to a start (test hooks and error reporting);
 * Strata.open passes only `failed`.
 */
export interface StartHooks {
  /** Milliseconds to wait, once HTTP listens, before the engine opens (a test watches the not-ready phase). */
  openDelayMs?: number;
  /** Called when a block upload has sent the block's data and not its meta.json yet (a test crashes there). */
  beforeMeta?: () => void;
  /** Turns an error of `stage` into the one thrown (the library's typed errors); as it is when absent. */
  failed?: (err: unknown, stage: Stage) => unknown;
}

/** An open store's parts. One owner (the Strata that holds them) starts and stops them. */
export interface Parts {
  readonly config: ResolvedOptions;
  readonly db: Db;
  /** Every write goes through it (src/ingest/writer.ts). */
  readonly writer: Writer;
  readonly pool: CodecPool;
  readonly limits: RunningWriteLimits;
  readonly metrics: StrataMetrics;
  readonly readiness: Readiness;
  readonly router: Router;
  readonly shipper: Shipper | undefined;
  http: { server: HttpServer; host: string } | undefined;
  /** Remote write's own listener (--remote-write.address), when asked for. */
  remoteWrite: { server: HttpServer; host: string } | undefined;
  grpc: { server: RunningGrpcServer; host: string } | undefined;
  records: RecordStore | undefined;
}

/** Starts the parts `config` asks for, in the order the file comment gives. */
export async function startParts(config: ResolvedOptions, hooks: StartHooks = {}): Promise<Parts> {
  const failed = (err: unknown, stage: Stage): unknown => (hooks.failed === undefined ? err : hooks.failed(err, stage));
  const log = config.log;
  try {
    await mkdir(config.dataDir, { recursive: true });
  } catch (err) {
    throw failed(err, 'open');
  }
  threadCodec();
  const readiness = new Readiness();
  const metrics = new StrataMetrics({ version: PACKAGE_VERSION, ready: () => notReady(readiness) === undefined });
  const pool = new CodecPool({ workers: config.workers });
  metrics.watchPool(pool);
  const limits = startWriteLimits({ ...config.writeLimits, tenantLabel: config.tenantLabelName }, log);
  metrics.watchWriteLimits(limits);
  // Watched before HTTP listens: the replay's progress is readable while the engine opens.
  const walReplayProgress = new ReplayProgress();
  metrics.watchWalReplay(walReplayProgress);
  const router = new Router();
  router.add(metricsRoute(metrics));
  const routes: PrometheusRoutesOptions = {
    readiness, pool, tenantLabel: config.tenantLabelName, defaultTenant: config.receiveDefaultTenantId, maxBodyBytes: config.httpMaxBodyBytes, log: asPino(log), otlp: config.otlp,
    remoteWrite: config.remoteWriteAddress === undefined,
  };
  registerPrometheusRoutes(router, routes);
  let http: Parts['http'];
  let remoteWrite: Parts['remoteWrite'];
  try {
    if (config.httpAddress !== undefined) {
      http = { server: await startHttp(config, config.httpAddress, router, metrics, readiness), host: config.httpAddress.host };
      log.info({ httpAddress: `${http.host}:${http.server.port}` }, 'HTTP listening; opening the storage engine');
    }
    if (config.remoteWriteAddress !== undefined) {
      remoteWrite = { server: await startRemoteWrite(config, config.remoteWriteAddress, routes, metrics), host: config.remoteWriteAddress.host };
      log.info({ remoteWriteAddress: `${remoteWrite.host}:${remoteWrite.server.port}` }, 'remote write listening');
    }
  } catch (err) {
    await http?.server.close(0);
    await limits.stop();
    await pool.close();
    throw failed(err, 'listen-http');
  }

  let db: Db | undefined;
  let writer: Writer | undefined;
  let shipper: Shipper | undefined;
  let grpc: Parts['grpc'];
  let records: RecordStore | undefined;
  let stage: Stage = 'open';
  try {
    if ((hooks.openDelayMs ?? 0) > 0) await sleep(hooks.openDelayMs);
    const externalLabels = Object.fromEntries(config.externalLabels);
    // With a bucket, as Thanos Receive: one block per tenant, shipped once
    // cut; Thanos' compactor owns compaction; retention waits for shipping.
    if (config.bucket !== undefined) {
      const bucket = await openBucket(config.bucket, log);
      const beforeMeta = hooks.beforeMeta;
      shipper = new Shipper({
        bucket, blocksDir: join(config.dataDir, 'blocks'), metaDir: config.dataDir, ship: () => ({ labels: externalLabels, source: 'receive' }), log,
        uploadConcurrency: config.shipperUploadConcurrency,
        ...(beforeMeta === undefined ? {} : { beforeMeta }),
      });
      if (config.compaction) log.info({ bucket: bucket.name }, 'blocks are shipped: local compaction is off (Thanos\' compactor compacts the bucket)');
      metrics.watchShipper(shipper);
    }
    const ship = shipper;
    db = await Db.open({
      dataDir: config.dataDir,
      walReplayProgress,
      retentionMs: config.retentionMs,
      retentionBytes: config.retentionBytes,
      reserveBytes: config.diskReserveBytes,
      compaction: config.compaction && ship === undefined,
      blockLabels: externalLabels,
      ...(ship === undefined ? {} : {
        blockPerTenant: config.tenantLabelName,
        onBlocks: () => ship.trigger(),
        mayDelete: (ulid: string) => ship.isShipped(ulid),
      }),
      walFsyncIntervalMs: config.walFsyncIntervalMs,
      outOfOrderWindowMs: config.outOfOrderWindowMs,
      tooFarInFutureMs: config.tooFarInFutureMs,
      maxExemplars: config.maxExemplars,
      memorySnapshotOnShutdown: config.memorySnapshotOnShutdown,
      log,
    });
    await shipper?.start();
    writer = new Writer(db, pool, { tenantLabel: config.tenantLabelName, defaultTenant: config.receiveDefaultTenantId, limits: limits.limiter });
    metrics.watchDb(db);
    metrics.watchWriter(writer);
    if (config.grpcAddress !== undefined) {
      stage = 'listen-grpc';
      grpc = { server: await startGrpc(config, config.grpcAddress, writer, metrics), host: config.grpcAddress.host };
      stage = 'open';
    }
    if (http !== undefined) records = await openResources(config, router);
  } catch (err) {
    // Start-up failed: release what was opened so that the process can exit.
    await http?.server.close(0);
    await remoteWrite?.server.close(0);
    await grpc?.server.close(0);
    await records?.close();
    await shipper?.stop();
    await db?.close();
    await limits.stop();
    await pool.close();
    throw failed(err, stage);
  }
  readiness.markReady(db, writer);
  return { config, db, writer, pool, limits, metrics, readiness, router, shipper, http, remoteWrite, grpc, records };
}

/** Starts the gRPC listener on `at` (Store API, WriteableStore, Info, Exemplars, Metadata, health, reflection). */
export function startGrpc(config: ResolvedOptions, at: HostPort, writer: Writer, metrics: StrataMetrics): Promise<RunningGrpcServer> {
  return startGrpcServer(writer, {
    host: at.host,
    port: at.port,
    maxRecvBytes: config.grpcMaxRecvBytes,
    ...(config.grpcTls === undefined ? {} : { tls: config.grpcTls }),
    store: {
      externalLabels: new ExternalLabels(config.externalLabels),
      replicaLabels: new Set(config.replicaLabels),
      tenantLabel: config.tenantLabelName,
      seriesLimit: config.limitRequestSeries,
      samplesLimit: config.limitRequestSamples,
    },
    log: config.log,
    onCall: metrics.onGrpcCall,
  });
}

/** Starts the HTTP listener on `at` over `router`. */
export function startHttp(config: ResolvedOptions, at: HostPort, router: Router, metrics: StrataMetrics, readiness: Readiness): Promise<HttpServer> {
  const address = config.httpTls === undefined ? { ...at } : { ...at, tls: config.httpTls };
  return startHttpServer(router, address, asPino(config.log), { onAnswer: metrics.onHttpAnswer, ready: () => readiness.ready });
}

/** Opens the record store (DATA/records) and routes the JSON resources on it (and, in development, the API explorer). */
export async function openResources(config: ResolvedOptions, router: Router): Promise<RecordStore> {
  const records = await openRecordStore(join(config.dataDir, 'records'), { logger: config.log });
  registerResources(router, records);
  if (config.env === 'development') mountApiEngine(router);
  return records;
}

/**
 * Starts remote write's own listener on `at`, as Thanos Receive's
 * --remote-write.address: the remote-write routes alone, answering 503
 * until the engine is open as they do on the HTTP listener.
 */
function startRemoteWrite(config: ResolvedOptions, at: HostPort, routes: PrometheusRoutesOptions, metrics: StrataMetrics): Promise<HttpServer> {
  const router = new Router();
  for (const route of [...remoteWriteRoutes(routes), ...otlpRoutes(routes)]) router.add(route);
  return startHttp(config, at, router, metrics, routes.readiness);
}

/**
 * Starts listeners on a running store: gRPC on `grpcAt`, HTTP on `httpAt`
 * (the record store and the JSON resources first, when HTTP was not
 * started with the store). The caller checked that neither runs yet.
 */
export async function listenOn(parts: Parts, grpcAt: HostPort | undefined, httpAt: HostPort | undefined, failed: (err: unknown, stage: Stage) => unknown): Promise<void> {
  const { config, writer, metrics, router, readiness } = parts;
  if (grpcAt !== undefined) {
    try {
      parts.grpc = { server: await startGrpc(config, grpcAt, writer, metrics), host: grpcAt.host };
    } catch (err) {
      throw failed(err, 'listen-grpc');
    }
  }
  if (httpAt !== undefined) {
    parts.records ??= await openResources(config, router);
    try {
      parts.http = { server: await startHttp(config, httpAt, router, metrics, readiness), host: httpAt.host };
    } catch (err) {
      throw failed(err, 'listen-http');
    }
    config.log.info({ httpAddress: `${httpAt.host}:${parts.http.server.port}` }, 'HTTP listening');
  }
}

/**
 * Stops the parts gracefully, in the order the file comment gives: each
 * listener waits up to its grace period (--http-grace-period,
 * --grpc-grace-period) for requests and calls in flight, then closes.
 */
export async function stopParts(parts: Parts): Promise<void> {
  parts.readiness.markStopping();
  const { httpGraceMs, grpcGraceMs } = parts.config;
  await Promise.all([parts.http?.server.close(httpGraceMs), parts.remoteWrite?.server.close(httpGraceMs), parts.grpc?.server.close(grpcGraceMs)]);
  parts.readiness.markStopped();
  await parts.records?.close();
  await parts.shipper?.stop();
  await parts.db.close();
  await parts.limits.stop();
  await parts.pool.close();
}
