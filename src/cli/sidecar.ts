import { watch, type FSWatcher } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { threadCodec } from '../chunkenc/index.js';
import { instantiateHeadWasm } from '../wasm/head.js';
import { Router, startHttpServer, type HttpServer } from '../http/index.js';
import { probeRoutes } from '../http/prometheus/index.js';
import { metricsRoute } from '../http/metrics-route.js';
import { StrataMetrics } from '../metrics/index.js';
import { openBucket } from '../objstore/index.js';
import { Shipper } from '../shipper/shipper.js';
import { PrometheusBlocks } from '../sidecar/prometheus-blocks.js';
import { PrometheusPeer } from '../sidecar/prometheus-peer.js';
import { SidecarSource } from '../sidecar/sidecar-source.js';
import { ExternalLabels } from '../store/external-labels.js';
import { serveStoreApi, type RunningGrpcServer } from '../grpc/server.js';
import { StoreApi } from '../store/store-api.js';
import type { LabelNamesQuery, LabelValuesQuery, SeriesQuery, SeriesSet, SourceInfo, StoreSource } from '../store/store-source.js';
import { decorateSource, type StoreApiConfig } from '../store/store-stack.js';
import { createLogger, type Logger } from './logger.js';
import { startupFailed } from './startup-failure.js';
import type { SidecarConfig } from './sidecar-options.js';
import { stopSignal } from './stop-signal.js';
import { PACKAGE_VERSION } from '../config/package-version.js';


/** The blocks directory is listed again this often even when no change was seen. */
const BLOCKS_REFRESH_MS = 30_000;
/** A burst of directory changes (Prometheus writing a block) is read once, after this quiet time. */
const BLOCKS_SETTLE_MS = 500;
/** Exit status when Prometheus never answered or has no external labels. */
const EXIT_PROMETHEUS = 1;

/**
 * Runs `strata sidecar` until SIGTERM or SIGINT (exit 0), as Thanos'
 * sidecar: HTTP (probes, /metrics) first, not ready; then Prometheus'
 * external labels, retried until --prometheus.ready_timeout (none
 * configured: exit 1); with a bucket, its block durations checked (min ==
 * max); then Prometheus' blocks opened, the Store API served over gRPC,
 * the shipper started. Ready whenever the last heartbeat reached
 * Prometheus; the Store API keeps serving the blocks while it does not.
 */
export async function sidecar(config: SidecarConfig): Promise<number> {
  const log = createLogger(config.log);
  try {
    return await runSidecar(config, log);
  } catch (err) {
    return startupFailed(log, err);
  }
}

async function runSidecar(config: SidecarConfig, log: Logger): Promise<number> {
  const signal = stopSignal();
  let stopping = false;
  void signal.then(() => (stopping = true));
  const tsdbPath = resolve(config.tsdbPath);
  threadCodec();
  const peer = new PrometheusPeer(config.prometheusUrl, log, config.configTimeoutMs);
  const blocks = new PrometheusBlocks(tsdbPath, log);
  let serving = false;
  const state = {
    get ready() {
      return serving && !stopping && peer.prometheusUp;
    },
    get reason() {
      if (stopping) return 'the sidecar is stopping';
      return serving ? peer.reason : `the sidecar is starting: ${peer.reason}`;
    },
    get prometheusUp() {
      return peer.prometheusUp;
    },
    get blocksLoaded() {
      return blocks.readers.length;
    },
  };
  const metrics = new StrataMetrics({ version: PACKAGE_VERSION, ready: () => state.ready });
  metrics.watchSidecar(state);
  const router = new Router();
  router.add(metricsRoute(metrics));
  for (const r of probeRoutes(state)) router.add(r);
  const http = await startHttpServer(router, config.httpAddress, log, { onAnswer: metrics.onHttpAnswer, ready: () => state.ready });
  log.info({ httpAddress: `${config.httpAddress.host}:${http.port}`, prometheus: config.prometheusUrl, tsdbPath }, 'HTTP listening; waiting for Prometheus');

  let grpc: RunningGrpcServer | undefined;
  let shipper: Shipper | undefined;
  let watcher: FSWatcher | undefined;
  let refreshTimer: NodeJS.Timeout | undefined;
  try {
    const started = Date.now();
    while (!(await peer.refresh())) {
      if (stopping) return await stopAll(http);
      if (Date.now() - started > config.readyTimeoutMs) {
        log.error({ prometheus: config.prometheusUrl, err: peer.reason }, `Prometheus did not answer within --prometheus.ready_timeout`);
        await stopAll(http);
        return EXIT_PROMETHEUS;
      }
      await Promise.race([sleep(2000), signal]);
    }
    if (peer.externalLabels.length === 0) {
      log.error({ prometheus: config.prometheusUrl }, 'no external labels configured on Prometheus server, uniquely identifying external labels must be configured (global.external_labels); see https://thanos.io/tip/thanos/storage.md#external-labels');
      await stopAll(http);
      return EXIT_PROMETHEUS;
    }
    const status = peer.last!;
    if (config.objstoreConfig !== undefined && status.minBlockDurationMs !== status.maxBlockDurationMs) {
      if (!config.ignoreUnequalBlockSize) {
        log.error({ minBlockDuration: status.minBlockDurationMs, maxBlockDuration: status.maxBlockDurationMs },
          'found that TSDB max block duration differs from min block duration: compaction needs to be disabled (storage.tsdb.min-block-duration = storage.tsdb.max-block-duration) before blocks are shipped');
        await stopAll(http);
        return EXIT_PROMETHEUS;
      }
      log.warn({}, 'Prometheus may compact blocks before they are shipped (--shipper.ignore-unequal-block-size): up to a block range of data may be missing from the bucket');
    }
    if (status.minBlockDurationMs !== 2 * 3600_000) log.warn({ blockDuration: status.minBlockDurationMs }, 'found that TSDB block time is not 2h. Only 2h block time is recommended.');

    await blocks.refresh();
    const source = new SidecarSource({
      prometheusUrl: config.prometheusUrl,
      blocks,
      externalLabels: () => peer.externalLabels,
      lowestTimestamp: () => peer.lowestTimestamp,
    });
    const wasm = instantiateHeadWasm();
    const storeConfig = (labels: ReadonlyArray<readonly [string, string]>): StoreApiConfig => ({
      externalLabels: new ExternalLabels(labels.map(([n, v]) => [n, v])),
      replicaLabels: new Set(),
      tenantLabel: '',
      seriesLimit: config.limitRequestSeries,
      samplesLimit: config.limitRequestSamples,
    });
    const current = new SwitchableSource(decorateSource(source, storeConfig(peer.externalLabels), wasm, 'Prometheus'));
    peer.onLabelsChange((labels) => current.use(decorateSource(source, storeConfig(labels), wasm, 'Prometheus')));

    if (config.objstoreConfig !== undefined) {
      const bucket = await openBucket(config.objstoreConfig.bucket, log);
      shipper = new Shipper({
        bucket,
        blocksDir: tsdbPath,
        metaDir: tsdbPath,
        ship: () => ({ labels: Object.fromEntries(peer.externalLabels), source: 'sidecar' }),
        uploadCompacted: config.uploadCompacted,
        uploadConcurrency: config.uploadConcurrency,
        log,
      });
      metrics.watchShipper(shipper);
      await shipper.start();
    }

    // New blocks are picked up as Prometheus renames them into place; a
    // full listing also runs every BLOCKS_REFRESH_MS in case a change was missed.
    let settle: NodeJS.Timeout | undefined;
    const ship = shipper;
    const refreshBlocks = (): void => {
      void blocks.refresh().then((changed) => {
        if (changed) ship?.trigger();
      });
    };
    try {
      watcher = watch(tsdbPath, () => {
        clearTimeout(settle);
        settle = setTimeout(refreshBlocks, BLOCKS_SETTLE_MS);
      });
      watcher.on('error', (err) => log.warn({ err: err.message }, 'watching the Prometheus data directory failed; listing it every 30 s'));
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'cannot watch the Prometheus data directory; listing it every 30 s');
    }
    refreshTimer = setInterval(refreshBlocks, BLOCKS_REFRESH_MS);
    refreshTimer.unref();

    grpc = await serveStoreApi(new StoreApi(current, 'sidecar'), {
      host: config.grpcAddress.host,
      port: config.grpcAddress.port,
      maxRecvBytes: config.grpcMaxRecvBytes,
      ...(config.grpcTls === undefined ? {} : { tls: config.grpcTls }),
      log,
      onCall: metrics.onGrpcCall,
    });
    peer.start(config.configIntervalMs);
  } catch (err) {
    watcher?.close();
    clearInterval(refreshTimer);
    await shipper?.stop();
    await grpc?.close(0);
    await http.close(0);
    throw err;
  }
  serving = true;
  log.info({
    grpcAddress: `${config.grpcAddress.host}:${grpc.port}`,
    httpAddress: `${config.httpAddress.host}:${http.port}`,
    prometheus: config.prometheusUrl,
    externalLabels: Object.fromEntries(peer.externalLabels),
    blocks: blocks.readers.length,
    bucket: config.objstoreConfig?.from,
  }, 'strata sidecar started');

  log.info({ signal: await signal }, 'stopping');
  peer.stop();
  watcher?.close();
  clearInterval(refreshTimer);
  await Promise.all([http.close(config.httpGraceMs), grpc.close(config.grpcGraceMs)]);
  await shipper?.stop();
  log.info('stopped');
  return 0;
}

async function stopAll(http: HttpServer): Promise<number> {
  await http.close(0);
  return 0;
}

/** The decorated source in use; swapped when Prometheus' external labels change. */
class SwitchableSource implements StoreSource {
  constructor(private current: StoreSource) {}

  use(source: StoreSource): void {
    this.current = source;
  }

  series(query: SeriesQuery): SeriesSet {
    return this.current.series(query);
  }

  labelNames(query: LabelNamesQuery): Promise<readonly string[]> {
    return this.current.labelNames(query);
  }

  labelValues(query: LabelValuesQuery): Promise<readonly string[]> {
    return this.current.labelValues(query);
  }

  info(): Promise<SourceInfo> {
    return this.current.info();
  }
}
