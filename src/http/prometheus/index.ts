/**
 * The Prometheus-facing HTTP routes: remote write (/api/v1/write,
 * /api/v1/receive), OTLP (/api/v1/otlp/v1/metrics, /api/v1/otlp), remote read (/api/v1/read), the label and series
 * endpoints of the HTTP API, exemplars (/api/v1/query_exemplars) and
 * metadata (/api/v1/metadata), and the /-/healthy and /-/ready probes.
 *
 * ```ts
 * const readiness = new Readiness();
 * registerPrometheusRoutes(router, { readiness, pool, tenantLabel: 'tenant_id', maxBodyBytes: 32 << 20, log });
 * const http = await startHttpServer(router, address, log, { ready: () => readiness.ready });
 * const db = await Db.open({ dataDir });
 * readiness.markReady(db, new Writer(db, pool, { tenantLabel: 'tenant_id' }));   // routes answer 503 until then
 * ```
 */
import type { Logger } from 'pino';
import type { CodecPool } from '../../pool/codec-pool.js';
import type { Router } from '../router.js';
import { exemplarsApiRoutes } from './exemplars-api.js';
import { labelsApiRoutes } from './labels-api.js';
import { metadataApiRoutes } from './metadata-api.js';
import { probeRoutes } from './probes.js';
import type { Readiness } from './readiness.js';
import { remoteReadRoute } from './remote-read.js';
import { remoteWriteRoutes } from './remote-write.js';
import { otlpRoutes } from './otlp.js';
import type { OtlpSettings } from '../../otlp/settings.js';

export { Readiness } from './readiness.js';
export { notReady, probeRoutes, type ReadinessState } from './probes.js';
export { parseSelector, SelectorError } from '../../index/selector.js';
export { DEFAULT_MAX_BODY_BYTES } from './limits.js';
export { remoteWriteRoutes } from './remote-write.js';
export { otlpRoutes } from './otlp.js';

export interface PrometheusRoutesOptions {
  readiness: Readiness;
  pool: CodecPool;
  /** --tenant-label-name: the label carrying each series' tenant, hidden from Prometheus clients. */
  tenantLabel: string;
  /** --http-max-body-bytes: the largest remote-write or remote-read body. */
  maxBodyBytes: number;
  /** --receive.default-tenant-id: the tenant of a request without THANOS-TENANT (default 'default-tenant'). */
  defaultTenant?: string;
  /** false: remote write and OTLP have a listener of their own (--remote-write.address), given remoteWriteRoutes and otlpRoutes (default true). */
  remoteWrite?: boolean;
  log: Logger;
  /** The --otlp.* flags (src/otlp/settings.ts); Prometheus' defaults when absent. */
  otlp?: OtlpSettings;
}

/** Registers every Prometheus-facing route on `router`. */
export function registerPrometheusRoutes(router: Router, opts: PrometheusRoutesOptions): void {
  const routes = [
    ...probeRoutes(opts.readiness),
    ...(opts.remoteWrite === false ? [] : [...remoteWriteRoutes(opts), ...otlpRoutes(opts)]),
    remoteReadRoute(opts),
    ...labelsApiRoutes(opts),
    ...exemplarsApiRoutes(opts),
    ...metadataApiRoutes(opts),
  ];
  for (const r of routes) router.add(r);
}
