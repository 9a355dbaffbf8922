/**
 * GET and POST /api/v1/query_exemplars: Prometheus' exemplar query, its
 * answer in Prometheus' shape:
 *
 *     {"status":"success","data":[{"seriesLabels":{"__name__":"rpc_seconds_bucket","le":"0.5"},
 *       "exemplars":[{"labels":{"trace_id":"abc"},"value":"0.31","timestamp":1700000000.123}]}]}
 *
 * Parameters: `query`, a series selector (Prometheus takes any PromQL
 * expression and uses its selectors; an expression is bad_data here),
 * `start` and `end` (Unix seconds or RFC 3339; unbounded when absent).
 * Series come sorted by labels, each one's exemplars oldest first.
 *
 * Tenant-scoped (THANOS-TENANT, default tenant): only the tenant's series,
 * as written, without the tenant label.
 */
import type { Logger } from 'pino';
import { exemplarLabelsOf, type ExemplarQueryResult } from '../../exemplars/exemplar-store.js';
import { seriesMatcher } from '../../index/series-matcher.js';
import { compareLabels, InvalidMatcherError } from '../../index/index.js';
import type { RouteSpec } from '../route.js';
import { formatFloat, formatTimestamp } from './api-float.js';
import { apiHandler, success } from './api-reply.js';
import { badParameter, parseTime } from './api-time.js';
import { FORM_BODY_LIMIT, parameters } from './labels-api.js';
import type { Readiness } from './readiness.js';
import { parseSelector, SelectorError } from '../../index/selector.js';
import { scopedMatchers, TENANT_HEADER, tenantOf, withoutLabel, type DefaultTenantDeps } from './tenant.js';

export interface ExemplarsApiDeps extends DefaultTenantDeps {
  readiness: Readiness;
  /** --tenant-label-name. */
  tenantLabel: string;
  log: Logger;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** A label set ([name, value, ...]) as a JSON object, keys in label order. */
export function labelsJson(labels: readonly string[]): string {
  const parts: string[] = [];
  for (let i = 0; i < labels.length; i += 2) parts.push(`${JSON.stringify(labels[i])}:${JSON.stringify(labels[i + 1])}`);
  return `{${parts.join(',')}}`;
}

/** Query results as the `data` of Prometheus' answer. */
export function exemplarsJson(results: readonly ExemplarQueryResult[]): string {
  const series: string[] = [];
  for (const r of results) {
    const exemplars: string[] = [];
    for (const e of r.exemplars) {
      u32[0] = e.valueLo;
      u32[1] = e.valueHi;
      exemplars.push(`{"labels":${labelsJson(exemplarLabelsOf(e.labelsKey))},"value":"${formatFloat(f64[0]!)}","timestamp":${formatTimestamp(e.ts)}}`);
    }
    series.push(`{"seriesLabels":${labelsJson(r.seriesLabels)},"exemplars":[${exemplars.join(',')}]}`);
  }
  return `[${series.join(',')}]`;
}

/** The routes of the exemplar query. */
export function exemplarsApiRoutes(deps: ExemplarsApiDeps): RouteSpec[] {
  const { readiness, tenantLabel, log } = deps;
  const handler = apiHandler((ctx) => {
    const params = parameters(ctx);
    const start = parseTime('start', params.get('start') ?? undefined, -Infinity);
    const end = parseTime('end', params.get('end') ?? undefined, Infinity);
    if (end < start) throw new SelectorError('end timestamp must not be before start timestamp');
    let matchers;
    try {
      matchers = parseSelector(params.get('query') ?? '');
    } catch (err) {
      if (err instanceof SelectorError || err instanceof InvalidMatcherError) throw badParameter('query', `${err.message} (a series selector, such as rpc_seconds_bucket{job="api"})`);
      throw err;
    }
    const scope = { label: tenantLabel, tenant: tenantOf(ctx.headers[TENANT_HEADER], deps.defaultTenant) };
    const scoped = scopedMatchers(matchers, scope);
    const db = readiness.db();
    if (scoped === undefined) return success('[]');
    const found = db.exemplars.select(start, end, seriesMatcher(scoped), compareLabels);
    // The series as written: without the tenant label, sorted again (taking it out can change the order).
    const answered = found.map((r) => ({ ...r, seriesLabels: withoutLabel(r.seriesLabels, tenantLabel) }));
    answered.sort((a, b) => compareLabels(a.seriesLabels, b.seriesLabels));
    return success(exemplarsJson(answered));
  }, log);
  const headers = [TENANT_HEADER];
  return [
    { method: 'GET', path: '/api/v1/query_exemplars', body: { kind: 'none' }, headers, handler },
    { method: 'POST', path: '/api/v1/query_exemplars', body: { kind: 'raw', limit: FORM_BODY_LIMIT, contentTypes: ['application/x-www-form-urlencoded'] }, headers, handler },
  ];
}
