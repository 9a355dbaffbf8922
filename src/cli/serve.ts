import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createApiRouter, startHttpServer } from '../http/index.js';
import { CodecPool } from '../pool/codec-pool.js';
import { openRecordStore } from '../records/index.js';
import { threadCodec } from '../codec/index.js';
import { Db } from '../db/db.js';
import { startGrpcServer } from '../store/grpc-server.js';
import { ExternalLabels } from '../store/external-labels.js';
import { createLogger } from './logger.js';
import type { ServeConfig } from './serve-options.js';

/**
 * Runs the server until SIGTERM or SIGINT, then stops gracefully and
 * resolves with exit status 0.
 *
 * What runs so far: the storage engine (DATA/wal, DATA/chunks_head; it
 * takes DATA/lock), the worker pool, the record store (DATA/records) and
 * the HTTP server on it, and the Store API over gRPC. Stopping closes the
 * listeners and lets calls and requests in flight finish before the stores
 * close.
 */
export async function serve(config: ServeConfig): Promise<number> {
  const log = createLogger(config.env);
  const dataDir = resolve(config.dataDir);
  await mkdir(dataDir, { recursive: true });
  threadCodec();
  const db = await Db.open({
    dataDir, retentionMs: config.retentionMs, walFsyncIntervalMs: config.walFsyncIntervalMs, log,
  });
  const pool = new CodecPool({ workers: config.workers });
  const grpc = await startGrpcServer(db, pool, {
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
  });
  const records = await openRecordStore(join(dataDir, 'records'), { logger: log });
  const router = createApiRouter(records, config.env);
  const http = await startHttpServer(router, config.httpAddress, log);
  log.info({
    dataDir,
    grpcAddress: `${config.grpcAddress.host}:${grpc.port}`,
    httpAddress: `${config.httpAddress.host}:${http.port}`,
    externalLabels: Object.fromEntries(config.externalLabels),
    replicaLabels: config.replicaLabels,
    workers: pool.threads,
    env: config.env,
    retention: config.retentionMs,
    series: db.seriesCount,
  }, 'strata started');

  const signal = await new Promise<NodeJS.Signals>((done) => {
    process.once('SIGTERM', () => done('SIGTERM'));
    process.once('SIGINT', () => done('SIGINT'));
  });
  log.info({ signal }, 'stopping');
  await Promise.all([http.close(), grpc.close()]);
  await records.close();
  await db.close();
  await pool.close();
  log.info('stopped');
  return 0;
}
