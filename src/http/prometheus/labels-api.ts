/**
 * The label and series endpoints of the Prometheus HTTP API, for Grafana's
 * label browsing: GET /api/v1/labels, GET /api/v1/label/:name/values and
 * GET /api/v1/series, the first and last also as POST with a form body
 * (as Prometheus serves them). Parameters: `match[]` (repeatable series
 * selectors; a series counts when any selects it), `start` and `end`
 * (Unix seconds or RFC 3339; all time when absent), `limit` (0: none).
 *
 * Tenant-scoped (THANOS-TENANT, default tenant): only the tenant's series,
 * as written, without the tenant label.
 */
import type { Logger } from 'pino';
import type { Db } from '../../db/db.js';
import { compareLabels } from '../../encoding/utf8.js';
import { compareUtf8, InvalidMatcherError, MatchType, type LabelMatcher } from '../../index/index.js';
import type { RequestContext, RouteSpec } from '../route.js';
import { apiHandler, success } from './api-reply.js';
import { badParameter, parseLimit, parseTime } from './api-time.js';
import type { Readiness } from './readiness.js';
import { parseSelector, SelectorError } from '../../index/selector.js';
import { scopedMatchers, TENANT_HEADER, tenantOf, withoutLabel, type TenantScope, type DefaultTenantDeps } from './tenant.js';

export interface LabelsApiDeps extends DefaultTenantDeps {
  readiness: Readiness;
  /** --tenant-label-name. */
  tenantLabel: string;
  log: Logger;
}

/** Largest form body taken by the POST forms: long match[] lists are why clients POST, but they stay far below this. */
export const FORM_BODY_LIMIT = 4 << 20;

const FORM = 'application/x-www-form-urlencoded';
const TRUNCATED = 'results truncated due to limit';

/** A request's parameters after parsing. */
interface ApiQuery {
  /** One matcher list per match[], undefined when none was given. */
  selectors: LabelMatcher[][] | undefined;
  start: number;
  end: number;
  limit: number;
}

/** The parameters of a request: a POST's form values first, then the query string's (Go's Request.Form order). */
export function parameters(ctx: RequestContext): URLSearchParams {
  const params = new URLSearchParams(ctx.body === undefined ? '' : (ctx.body as Buffer).toString('utf8'));
  for (const [k, v] of new URLSearchParams(ctx.query)) params.append(k, v);
  return params;
}

function readQuery(params: URLSearchParams): ApiQuery {
  const raw = params.getAll('match[]');
  let selectors: LabelMatcher[][] | undefined;
  if (raw.length > 0) {
    selectors = raw.map((s) => {
      try {
        return parseSelector(s);
      } catch (err) {
        if (err instanceof SelectorError || err instanceof InvalidMatcherError) throw badParameter('match[]', err.message);
        throw err;
      }
    });
  }
  return {
    selectors,
    start: parseTime('start', params.get('start') ?? undefined, -Infinity),
    end: parseTime('end', params.get('end') ?? undefined, Infinity),
    limit: parseLimit(params.get('limit') ?? undefined),
  };
}

function scopeOf(ctx: RequestContext, deps: LabelsApiDeps): TenantScope {
  return { label: deps.tenantLabel, tenant: tenantOf(ctx.headers[TENANT_HEADER], deps.defaultTenant) };
}

/** The matcher lists to run: one per selector, scoped; the tenant alone when there is no selector. */
function scopedSelectors(q: ApiQuery, scope: TenantScope): LabelMatcher[][] {
  if (q.selectors === undefined) return [[{ type: MatchType.EQ, name: scope.label, value: scope.tenant }]];
  const out: LabelMatcher[][] = [];
  for (const s of q.selectors) {
    const scoped = scopedMatchers(s, scope);
    if (scoped !== undefined) out.push(scoped);
  }
  return out;
}

function limited<T>(items: T[], limit: number): { items: T[]; warnings: string[] } {
  if (limit > 0 && items.length > limit) return { items: items.slice(0, limit), warnings: [TRUNCATED] };
  return { items, warnings: [] };
}

/** A label set ([name, value, ...]) as a JSON object, keys in label order ("__proto__" is just a key here). */
function labelsJson(labels: readonly string[]): string {
  const parts: string[] = [];
  for (let i = 0; i < labels.length; i += 2) parts.push(`${JSON.stringify(labels[i])}:${JSON.stringify(labels[i + 1])}`);
  return `{${parts.join(',')}}`;
}

/**
 * A label name from the path, with Prometheus' `U__` escaping of names
 * that are not plain identifiers undone (`U__http_2e_status` is
 * `http.status`; `__` is `_`). A name that does not unescape stays as given.
 */
export function unescapeLabelName(name: string): string {
  if (!name.startsWith('U__')) return name;
  let out = '';
  const s = name.slice(3);
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '_') {
      out += s[i];
      continue;
    }
    i++;
    if (i >= s.length) return name;
    if (s[i] === '_') {
      out += '_';
      continue;
    }
    const close = s.indexOf('_', i);
    const hex = close < 0 ? '' : s.slice(i, close);
    if (hex.length === 0 || hex.length > 6 || !/^[0-9a-fA-F]+$/.test(hex)) return name;
    const cp = Number.parseInt(hex, 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return name;
    out += String.fromCodePoint(cp);
    i = close;
  }
  return out;
}

function labelNames(db: Db, q: ApiQuery, scope: TenantScope): string[] {
  const names = new Set<string>();
  for (const m of scopedSelectors(q, scope)) for (const n of db.querier().labelNames(m, q.start, q.end)) names.add(n);
  names.delete(scope.label);
  return [...names].sort(compareUtf8);
}

function labelValues(db: Db, name: string, q: ApiQuery, scope: TenantScope): string[] {
  if (name === scope.label) return []; // no series has it as written
  const values = new Set<string>();
  for (const m of scopedSelectors(q, scope)) for (const v of db.querier().labelValues(name, m, q.start, q.end)) values.add(v);
  return [...values].sort(compareUtf8);
}

function series(db: Db, q: ApiQuery, scope: TenantScope): Array<readonly string[]> {
  const seen = new Map<string, readonly string[]>();
  for (const m of scopedSelectors(q, scope)) {
    for (const s of db.querier().select(m, q.start, q.end, { skipChunks: true })) {
      const labels = withoutLabel(s.labels, scope.label);
      seen.set(labels.join('\xff'), labels);
    }
  }
  return [...seen.values()].sort(compareLabels);
}

/** The routes of the label and series endpoints. */
export function labelsApiRoutes(deps: LabelsApiDeps): RouteSpec[] {
  const { readiness, tenantLabel, log } = deps;
  const headers = [TENANT_HEADER];

  const labelsHandler = apiHandler((ctx) => {
    const q = readQuery(parameters(ctx));
    const { items, warnings } = limited(labelNames(readiness.db(), q, scopeOf(ctx, deps)), q.limit);
    return success(JSON.stringify(items), warnings);
  }, log);

  const valuesHandler = apiHandler((ctx) => {
    const name = unescapeLabelName(ctx.params[0]!);
    const q = readQuery(parameters(ctx));
    const { items, warnings } = limited(labelValues(readiness.db(), name, q, scopeOf(ctx, deps)), q.limit);
    return success(JSON.stringify(items), warnings);
  }, log);

  const seriesHandler = apiHandler((ctx) => {
    const q = readQuery(parameters(ctx));
    if (q.selectors === undefined) throw new SelectorError('no match[] parameter provided');
    const { items, warnings } = limited(series(readiness.db(), q, scopeOf(ctx, deps)), q.limit);
    return success(`[${items.map(labelsJson).join(',')}]`, warnings);
  }, log);

  const form = { kind: 'raw', limit: FORM_BODY_LIMIT, contentTypes: [FORM] } as const;
  return [
    { method: 'GET', path: '/api/v1/labels', body: { kind: 'none' }, headers, handler: labelsHandler },
    { method: 'POST', path: '/api/v1/labels', body: form, headers, handler: labelsHandler },
    { method: 'GET', path: '/api/v1/label/:name/values', body: { kind: 'none' }, headers, handler: valuesHandler },
    { method: 'GET', path: '/api/v1/series', body: { kind: 'none' }, headers, handler: seriesHandler },
    { method: 'POST', path: '/api/v1/series', body: form, headers, handler: seriesHandler },
  ];
}
