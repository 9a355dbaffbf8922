/**
 * Tenants on the Prometheus-facing routes (WIRE.md "Tenants"): the
 * THANOS-TENANT header picks the tenant, the default one (Thanos'
 * --receive.default-tenant-id) when absent or
 * empty; reads see only that tenant's series and answer them exactly as
 * they were written, without the tenant label the store keeps on each.
 */
import { compareLabels } from '../../encoding/utf8.js';
import { matchesValue, MatchType, type LabelMatcher } from '../../index/index.js';
import { DEFAULT_TENANT } from '../../ingest/parse/parsed-write.js';

/** The request header naming the tenant (lower case, as routes list headers). */
export const TENANT_HEADER = 'thanos-tenant';

/** What a route needs to know of the tenant a request without THANOS-TENANT falls to. */
export interface DefaultTenantDeps {
  /** --receive.default-tenant-id (default 'default-tenant', as Thanos Receive). */
  defaultTenant?: string;
}

/** The tenant of a request, by its THANOS-TENANT header value: `fallback` when absent or empty. */
export function tenantOf(header: string | undefined, fallback: string = DEFAULT_TENANT): string {
  return header === undefined || header === '' ? fallback : header;
}

/** One request's view of the store: the tenant label's name and the tenant. */
export interface TenantScope {
  /** --tenant-label-name. */
  readonly label: string;
  readonly tenant: string;
}

/**
 * The matchers that select, among everything stored, the series `matchers`
 * select in the tenant's view: matchers on the tenant label's name are
 * decided against the empty value (the series as written do not have the
 * label; the store's tenant label overwrote any label of that name), and
 * the tenant label must equal the tenant. Undefined when a matcher on the
 * tenant label's name excludes every series.
 *
 * @throws InvalidMatcherError for a bad regular expression or match type on the tenant label's name
 */
export function scopedMatchers(matchers: readonly LabelMatcher[], scope: TenantScope): LabelMatcher[] | undefined {
  const out: LabelMatcher[] = [{ type: MatchType.EQ, name: scope.label, value: scope.tenant }];
  for (const m of matchers) {
    if (m.name !== scope.label) out.push(m);
    else if (!matchesValue(m, '')) return undefined;
  }
  return out;
}

/** `labels` ([name, value, ...], name order) without the label named `name`. */
export function withoutLabel(labels: readonly string[], name: string): readonly string[] {
  for (let i = 0; i < labels.length; i += 2) {
    if (labels[i] === name) return [...labels.slice(0, i), ...labels.slice(i + 2)];
  }
  return labels;
}

/**
 * `series` with the tenant label taken off each, sorted again: removing
 * the same pair from every label set can change their order (`{a, b, t}`
 * sorts before `{a, t}`, but `{a}` before `{a, b}`).
 */
export function unscoped<T extends { labels: readonly string[] }>(series: readonly T[], scope: TenantScope): T[] {
  const out = series.map((s) => ({ ...s, labels: withoutLabel(s.labels, scope.label) }));
  return out.sort((a, b) => compareLabels(a.labels, b.labels));
}
