import { openStrata } from '../lib/strata.js';
import type { StrataOptions } from '../lib/options.js';
import { createLogger, type Logger } from './logger.js';
import { stopSignal } from './stop-signal.js';
import { startupFailed } from './startup-failure.js';
import { pageOutWhenIdle } from '../pool/collect.js';
import { limitNativeHeap } from '../files/mmap.js';
import type { HostPort } from '../config/host-port.js';
import type { ServeConfig } from './serve-options.js';

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
 * Glibc's mmap threshold for the server (limitNativeHeap), set before the
 * pool's threads start. Glibc's own starts at 128 KiB but rises with every
 * larger block freed, up to 32 MiB; fixed at 1 MiB, blocks that large
 * (postings arrays, the series cache's tables, big bodies) are unmapped
 * when freed, and smaller ones (a request's body and batch) are reused
 * from the arenas as before: at 128 KiB their mapping and first touch on
 * every request cost 12% more server CPU at 100k x 120. Figures:
 * bench/RESULTS.md, issue 29.
 */
const NATIVE_MMAP_THRESHOLD = 1 << 20;

/**
 * Runs the server until SIGTERM or SIGINT, then stops gracefully and
 * resolves with exit status 0.
 *
 * A thin layer over the library (src/lib): the flags become Strata.open's
 * options, and the store starts as any embedding program's does
 * (src/lib/parts.ts gives the order: HTTP first, answering 503 until the
 * engine is open, then the engine, gRPC and the JSON resources). A signal
 * during start-up stops the server once start-up is done. Stopping is
 * store.close(): not ready, listeners closed with calls and requests in
 * flight finished, then the stores flushed and closed. A start-up error
 * is one log line naming its cause, and exit status 1 (startup-failure.ts).
 */
export async function serve(config: ServeConfig): Promise<number> {
  limitNativeHeap(NATIVE_MMAP_THRESHOLD);
  const signal = stopSignal();
  const log = createLogger(config.log);
  const killAt = Number(process.env[KILL_BEFORE_META_ENV] ?? 0);
  let uploads = 0;
  let store: Awaited<ReturnType<typeof openStrata>>;
  try {
    store = await openStrata(serveOptions(config, log), {
      rawErrors: true,
      openDelayMs: Number(process.env[OPEN_DELAY_ENV] ?? 0),
      ...(killAt > 0 ? { beforeMeta: () => (++uploads === killAt ? process.kill(process.pid, 'SIGKILL') : undefined) } : {}),
    });
  } catch (err) {
    return startupFailed(log, err);
  }
  const { grpc, http, remoteWrite } = store.listening;
  log.info({
    dataDir: store.dataDir,
    grpcAddress: `${config.grpcAddress.host}:${grpc!.port}`,
    httpAddress: `${config.httpAddress.host}:${http!.port}`,
    ...(remoteWrite === undefined ? {} : { remoteWriteAddress: remoteWrite.address }),
    externalLabels: Object.fromEntries(config.externalLabels),
    replicaLabels: config.replicaLabels,
    workers: config.workers,
    env: config.env,
    retention: config.retentionMs,
    bucket: config.objstoreConfig?.from,
    series: store.stats().headSeries,
  }, 'strata started');
  pageOutWhenIdle();

  log.info({ signal: await signal }, 'stopping');
  await store.close();
  log.info('stopped');
  return 0;
}

/** The flags as Strata.open's options: the CLI checked them already (usage errors, exit status 2). */
export function serveOptions(config: ServeConfig, log: Logger): StrataOptions {
  const limits = config.writeLimits;
  const options: StrataOptions = {
    dataDir: config.dataDir,
    grpcAddress: address(config.grpcAddress),
    httpAddress: address(config.httpAddress),
    externalLabels: config.externalLabels,
    replicaLabels: config.replicaLabels,
    workers: config.workers,
    env: config.env,
    retention: config.retentionMs,
    retentionSize: config.retentionBytes,
    diskReserve: config.diskReserveBytes,
    compaction: config.compaction,
    walFsyncInterval: config.walFsyncIntervalMs,
    tenantLabelName: config.tenantLabelName,
    receiveDefaultTenantId: config.defaultTenantId,
    httpGracePeriod: config.httpGraceMs,
    grpcGracePeriod: config.grpcGraceMs,
    grpcMaxRecvBytes: config.grpcMaxRecvBytes,
    httpMaxBodyBytes: config.httpMaxBodyBytes,
    storeLimitsRequestSeries: config.limitRequestSeries,
    storeLimitsRequestSamples: config.limitRequestSamples,
    receiveLimitsConfigReloadTimer: limits.reloadIntervalMs,
    receiveHeapLimitRatio: limits.memory.heapRatio,
    receiveMemoryLimit: limits.memory.anonBytes,
    tsdbOutOfOrderTimeWindow: config.tsdb.outOfOrderWindowMs,
    tsdbTooFarInFutureTimeWindow: config.tsdb.tooFarInFutureMs,
    tsdbMaxExemplars: config.maxExemplars,
    tsdbMemorySnapshotOnShutdown: config.memorySnapshotOnShutdown,
    otlpTranslationStrategy: config.otlp.translationStrategy,
    otlpPromoteResourceAttributes: config.otlp.promoteResourceAttributes,
    otlpPromoteAllResourceAttributes: config.otlp.promoteAllResourceAttributes,
    otlpIgnoreResourceAttributes: config.otlp.ignoreResourceAttributes,
    otlpKeepIdentifyingResourceAttributes: config.otlp.keepIdentifyingResourceAttributes,
    otlpPromoteScopeMetadata: config.otlp.promoteScopeMetadata,
    log,
  };
  // The text read when the flags were checked: the store parses that, not a file changed since.
  if (config.remoteWriteAddress !== undefined) options.remoteWriteAddress = address(config.remoteWriteAddress);
  if (config.objstoreConfig !== undefined) options.objstoreConfig = config.objstoreConfig.text;
  options.shipperUploadConcurrency = config.shipperUploadConcurrency;
  // A file is reloaded when it changes: the store must know its name.
  if (limits.source?.file !== undefined) options.receiveLimitsConfigFile = limits.source.file;
  else if (limits.source !== undefined) options.receiveLimitsConfig = limits.source.loaded.text;
  if (config.grpcTls !== undefined) {
    options.grpcServerTlsCert = config.grpcTls.cert;
    options.grpcServerTlsKey = config.grpcTls.key;
    if (config.grpcTls.clientCa !== undefined) options.grpcServerTlsClientCa = config.grpcTls.clientCa;
  }
  if (config.httpTls !== undefined) {
    options.httpServerTlsCert = config.httpTls.cert;
    options.httpServerTlsKey = config.httpTls.key;
    if (config.httpTls.clientCa !== undefined) options.httpServerTlsClientCa = config.httpTls.clientCa;
  }
  return options;
}

/** HOST:PORT as the flag took it ([v6]:port for an IPv6 host). */
function address(at: HostPort): string {
  return `${at.host.includes(':') ? `[${at.host}]` : at.host}:${at.port}`;
}
