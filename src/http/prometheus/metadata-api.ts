/**
 * GET /api/v1/metadata: metric metadata, in Prometheus' shape:
 *
 *     {"status":"success","data":{"http_requests_total":[{"type":"counter","help":"Requests.","unit":""}]}}
 *
 * Prometheus answers what its scrape targets expose; Strata what remote
 * write told it (src/metadata), one entry per family: the latest told.
 * Parameters as Prometheus: `metric` (one family), `limit` (at most this
 * many families; none when negative or absent; 0 answers none, as
 * Prometheus does), `limit_per_metric` (taken for compatibility: a family
 * has one entry here). Families come sorted by name.
 *
 * Tenant-scoped (THANOS-TENANT, default tenant).
 */
import type { Logger } from 'pino';
import type { RouteSpec } from '../route.js';
import { apiHandler, success } from './api-reply.js';
import { parameters } from './labels-api.js';
import type { Readiness } from './readiness.js';
import { SelectorError } from '../../index/selector.js';
import { TENANT_HEADER, tenantOf, type DefaultTenantDeps } from './tenant.js';

export interface MetadataApiDeps extends DefaultTenantDeps {
  readiness: Readiness;
  log: Logger;
}

/** A `limit`-like parameter as Go's strconv.Atoi reads it; -1 (none) when absent. */
function intParam(params: URLSearchParams, name: string): number {
  const s = params.get(name);
  if (s === null || s === '') return -1;
  if (!/^[+-]?\d+$/.test(s) || !Number.isSafeInteger(Number(s))) throw new SelectorError(`${name} must be a number`);
  return Number(s);
}

/** The metadata route. */
export function metadataApiRoutes(deps: MetadataApiDeps): RouteSpec[] {
  const { readiness, log } = deps;
  const handler = apiHandler((ctx) => {
    const params = parameters(ctx);
    const limit = intParam(params, 'limit');
    const perMetric = intParam(params, 'limit_per_metric');
    const metric = params.get('metric') ?? '';
    const families = readiness.db().metadata.byFamily({
      tenant: tenantOf(ctx.headers[TENANT_HEADER], deps.defaultTenant),
      ...(metric === '' ? {} : { metric }),
      limit,
    });
    const parts: string[] = [];
    for (const [name, metas] of families) {
      const kept = perMetric > 0 ? metas.slice(0, perMetric) : metas;
      parts.push(`${JSON.stringify(name)}:${JSON.stringify(kept)}`);
    }
    return success(`{${parts.join(',')}}`);
  }, log);
  return [{ method: 'GET', path: '/api/v1/metadata', body: { kind: 'none' }, headers: [TENANT_HEADER], handler }];
}
