import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { mountApiEngine, registerResources, Router, startHttpServer, type HttpServer } from '../http/index.js';
import { Readiness, registerPrometheusRoutes } from '../http/prometheus/index.js';
import { metricsRoute, StrataMetrics } from '../metrics/index.js';
import { CodecPool } from '../pool/codec-pool.js';
import { openRecordStore, type RecordStore } from '../records/index.js';
import { threadCodec } from '../codec/index.js';
import { Db } from '../db/db.js';
import { startGrpcServer, type RunningGrpcServer } from '../store/grpc-server.js';
import { ExternalLabels } from '../store/external-labels.js';
import { openBucket } from '../objstore/index.js';
import { Shipper } from '../shipper/shipper.js';
import { startWriteLimits } from '../write-limits/index.js';
import { createLogger } from './logger.js';
import { stopSignal } from './stop-signal.js';
import type { ServeConfig } from './serve-options.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/**
 * Test hook: milliseconds to wait, once HTTP listens, before the engine
 * opens, so that black-box tests can watch the not-ready phase (which a
 * small data directory otherwise passes in a few milliseconds). Unset in
 * production.
 */
const OPEN_DELAY_ENV = 'STRATA_TEST_OPEN_DELAY_MS';

/**
 * Test hook: when set to N, the process kills itself (SIGKILL) when the
 * Nth block upload has sent the block's data and not its meta.json yet: a
 * crash in the middle of an upload, on purpose. Unset in production.
 */
const KILL_BEFORE_META_ENV = 'STRATA_TEST_KILL_BEFORE_META';

/**
 * Runs the server until SIGTERM or SIGINT, then stops gracefully and
 * resolves with exit status 0.
 *
 * Start-up, in order: the worker pool; the HTTP listener with the probes,
 * /metrics and the Prometheus routes (GET /-/healthy answers 200 from here
 * on; /-/ready, remote write and read, the label API and any path not yet
 * routed answer 503); then the storage engine (DATA/wal, DATA/chunks_head;
 * it takes DATA/lock and replays the write-ahead log), the Store API over
 * gRPC, the record store (DATA/records) and the JSON resources on it; then
 * ready. A signal during start-up stops the server once start-up is done.
 * Stopping marks the server not ready, closes the listeners and lets calls
 * and requests in flight finish before the stores close.
 */
export async function serve(config: ServeConfig): Promise<number> {
  const signal = stopSignal();
  const log = createLogger(config.env);
  const dataDir = resolve(config.dataDir);
  await mkdir(dataDir, { recursive: true });
  threadCodec();
  const readiness = new Readiness();
  const metrics = new StrataMetrics({ version: pkg.version, ready: () => readiness.ready });
  const pool = new CodecPool({ workers: config.workers });
  metrics.watchPool(pool);
  const limits = startWriteLimits({ ...config.writeLimits, tenantLabel: config.tenantLabelName }, log);
  metrics.watchWriteLimits(limits);

  const router = new Router();
  router.add(metricsRoute(metrics));
  registerPrometheusRoutes(router, {
    readiness, pool, tenantLabel: config.tenantLabelName, maxBodyBytes: config.httpMaxBodyBytes, log, writeLimits: limits.limiter,
  });
  let http: HttpServer;
  try {
    http = await startHttpServer(router, { ...config.httpAddress, tls: config.httpTls }, log, { onAnswer: metrics.onHttpAnswer, ready: () => readiness.ready });
  } catch (err) {
    await limits.stop();
    await pool.close();
    throw err;
  }
  log.info({ httpAddress: `${config.httpAddress.host}:${http.port}` }, 'HTTP listening; opening the storage engine');

  let db: Db | undefined;
  let grpc: RunningGrpcServer | undefined;
  let records: RecordStore | undefined;
  let shipper: Shipper | undefined;
  try {
    const delay = Number(process.env[OPEN_DELAY_ENV] ?? 0);
    if (delay > 0) await sleep(delay);
    const externalLabels = Object.fromEntries(config.externalLabels);
    // With a bucket, as Thanos Receive: one block per tenant, shipped once
    // cut; Thanos' compactor owns compaction; retention waits for shipping.
    if (config.objstoreConfig !== undefined) {
      const bucket = await openBucket(config.objstoreConfig.bucket, log);
      const killAt = Number(process.env[KILL_BEFORE_META_ENV] ?? 0);
      let uploads = 0;
      shipper = new Shipper({
        bucket, blocksDir: join(dataDir, 'blocks'), metaDir: dataDir, ship: () => ({ labels: externalLabels, source: 'receive' }), log,
        ...(killAt > 0 ? { beforeMeta: () => (++uploads === killAt ? process.kill(process.pid, 'SIGKILL') : undefined) } : {}),
      });
      if (config.compaction) log.info({ bucket: bucket.name }, 'blocks are shipped: local compaction is off (Thanos\' compactor compacts the bucket)');
      metrics.watchShipper(shipper);
    }
    const ship = shipper;
    db = await Db.open({
      dataDir,
      retentionMs: config.retentionMs,
      retentionBytes: config.retentionBytes,
      compaction: config.compaction && ship === undefined,
      blockLabels: externalLabels,
      ...(ship === undefined ? {} : {
        blockPerTenant: config.tenantLabelName,
        onBlocks: () => ship.trigger(),
        mayDelete: (ulid: string) => ship.isShipped(ulid),
      }),
      walFsyncIntervalMs: config.walFsyncIntervalMs,
      outOfOrderWindowMs: config.tsdb.outOfOrderWindowMs,
      tooFarInFutureMs: config.tsdb.tooFarInFutureMs,
      maxExemplars: config.maxExemplars,
      log,
    });
    await shipper?.start();
    metrics.watchDb(db);
    grpc = await startGrpcServer(db, pool, {
      host: config.grpcAddress.host,
      port: config.grpcAddress.port,
      maxRecvBytes: config.grpcMaxRecvBytes,
      tls: config.grpcTls,
      store: {
        externalLabels: new ExternalLabels(config.externalLabels),
        replicaLabels: new Set(config.replicaLabels),
        tenantLabel: config.tenantLabelName,
        seriesLimit: config.limitRequestSeries,
        samplesLimit: config.limitRequestSamples,
      },
      log,
      onCall: metrics.onGrpcCall,
      writeLimits: limits.limiter,
    });
    records = await openRecordStore(join(dataDir, 'records'), { logger: log });
    registerResources(router, records);
    if (config.env === 'development') mountApiEngine(router);
  } catch (err) {
    // Start-up failed: release what was opened so that the process can exit.
    await http.close(0);
    await grpc?.close(0);
    await records?.close();
    await shipper?.stop();
    await db?.close();
    await limits.stop();
    await pool.close();
    throw err;
  }
  readiness.markReady(db);
  log.info({
    dataDir,
    grpcAddress: `${config.grpcAddress.host}:${grpc.port}`,
    httpAddress: `${config.httpAddress.host}:${http.port}`,
    externalLabels: Object.fromEntries(config.externalLabels),
    replicaLabels: config.replicaLabels,
    workers: pool.threads,
    env: config.env,
    retention: config.retentionMs,
    bucket: shipper === undefined ? undefined : config.objstoreConfig?.from,
    series: db.seriesCount,
  }, 'strata started');

  log.info({ signal: await signal }, 'stopping');
  readiness.markStopping();
  await Promise.all([http.close(), grpc.close()]);
  await records.close();
  await shipper?.stop();
  await db.close();
  await limits.stop();
  await pool.close();
  log.info('stopped');
  return 0;
}
