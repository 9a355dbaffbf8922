/**
 * Thanos Receive's limits configuration (`--receive.limits-config-file`,
 * `--receive.limits-config`; pkg/receive/limiter_config.go), read strictly
 * as Thanos reads it (yaml.v2 UnmarshalStrict) and resolved per tenant:
 *
 * ```yaml
 * write:
 *   global:
 *     max_concurrency: 30
 *   default:
 *     request: { size_bytes_limit: 1024, series_limit: 1000, samples_limit: 10 }
 *     head_series_limit: 1000
 *   tenants:
 *     acme:                          # every field it does not set is the default's
 *       request: { series_limit: 50000 }
 *       head_series_limit: 2000
 * ```
 *
 * Thanos' rules, kept: 0 means no limit, and so does a negative request
 * limit or max_concurrency (Thanos allows only > 0); a `default` or
 * `global` value not written means no limit; a tenant's value not written
 * (or null) is the default's, field by field. A tenant written as null
 * takes every default (Thanos crashes on one).
 *
 * Thanos' meta-monitoring keys (`meta_monitoring_url`,
 * `meta_monitoring_limit_query`, `meta_monitoring_http_client`) are read,
 * the URL checked as Thanos checks it, and otherwise ignored: Strata
 * counts each tenant's head series itself, exactly and at once, where
 * Thanos asks a meta-monitoring Prometheus every 15 s.
 */
import { YamlMap } from '../../config/yaml-map.js';

/** One tenant's limits. 0: no limit. */
export interface TenantLimits {
  /** request.size_bytes_limit: the largest request body, compressed and decompressed. */
  readonly sizeBytes: number;
  /** request.series_limit: most series in one request. */
  readonly series: number;
  /** request.samples_limit: most samples in one request, summed over its series. */
  readonly samples: number;
  /** head_series_limit: writes are refused while the tenant has this many series in the head. */
  readonly headSeries: number;
}

/** The configuration, resolved: what applies to each tenant. */
export interface LimitsConfig {
  /** write.global.max_concurrency: write requests worked on at once (0: no limit). */
  readonly maxConcurrency: number;
  /** write.default: for tenants not in `tenants`. */
  readonly defaults: TenantLimits;
  /** write.tenants, each merged with the default. */
  readonly tenants: ReadonlyMap<string, TenantLimits>;
  /** Keys given that Strata reads but does not use (meta-monitoring), for a log line. */
  readonly ignored: readonly string[];
}

/** No limits at all: what applies without a configuration. */
export const NO_LIMITS: LimitsConfig = {
  maxConcurrency: 0,
  defaults: { sizeBytes: 0, series: 0, samples: 0, headSeries: 0 },
  tenants: new Map(),
  ignored: [],
};

/** A limits configuration Strata refuses; the message names the key path. */
export class LimitsConfigError extends Error {
  override readonly name = 'LimitsConfigError';
  constructor(readonly path: string, detail: string) {
    super(path === '' ? `limits config: ${detail}` : `limits config: ${path}: ${detail}`);
  }
}

const limitsError = (path: string, detail: string): LimitsConfigError => new LimitsConfigError(path, detail);

/** Thanos' query when none is given (it is never run here). */
const DEFAULT_META_MONITORING_QUERY = 'sum(prometheus_tsdb_head_series) by (tenant)';

/**
 * Parses the limits configuration YAML (after environment substitution,
 * see config-source.ts). An empty document is no limits.
 *
 * @throws LimitsConfigError naming the key path of the first thing wrong:
 *   not YAML, an unknown or repeated key, a value of the wrong type, a
 *   negative head_series_limit, a meta_monitoring_url without scheme or host
 * @example
 * const config = parseLimitsConfig('write:\n  default:\n    head_series_limit: 1000\n');
 * config.defaults.headSeries; // 1000
 */
export function parseLimitsConfig(text: string): LimitsConfig {
  const root = YamlMap.parse(text, limitsError);
  const write = root.map('write');
  root.finish(['write']);

  const global = write.map('global');
  const maxConcurrency = Math.max(0, global.int('max_concurrency'));
  const ignored: string[] = [];
  const url = global.str('meta_monitoring_url');
  if (url !== '') {
    checkMetaMonitoringUrl(global.at('meta_monitoring_url'), url);
    ignored.push(global.at('meta_monitoring_url'));
  }
  if (global.str('meta_monitoring_limit_query', DEFAULT_META_MONITORING_QUERY) !== DEFAULT_META_MONITORING_QUERY) ignored.push(global.at('meta_monitoring_limit_query'));
  // Thanos' HTTP client configuration: a mapping, not looked into since it is not used.
  if (global.has('meta_monitoring_http_client')) {
    global.map('meta_monitoring_http_client');
    ignored.push(global.at('meta_monitoring_http_client'));
  }
  global.finish(['max_concurrency', 'meta_monitoring_url', 'meta_monitoring_http_client', 'meta_monitoring_limit_query']);

  const def = readLimits(write.map('default'));
  const defaults: TenantLimits = {
    sizeBytes: def.sizeBytes ?? 0,
    series: def.series ?? 0,
    samples: def.samples ?? 0,
    headSeries: def.headSeries ?? 0,
  };

  const tenants = new Map<string, TenantLimits>();
  const section = write.map('tenants');
  for (const name of section.keys()) {
    const own = readLimits(section.map(name));
    tenants.set(name, {
      sizeBytes: own.sizeBytes ?? defaults.sizeBytes,
      series: own.series ?? defaults.series,
      samples: own.samples ?? defaults.samples,
      headSeries: own.headSeries ?? defaults.headSeries,
    });
  }
  write.finish(['global', 'default', 'tenants']);
  return { maxConcurrency, defaults, tenants, ignored };
}

/** A `default` or tenant section: what it writes (undefined: not written). Request limits at or below 0 are no limit, as Thanos has them. */
function readLimits(m: YamlMap): Partial<Record<keyof TenantLimits, number>> {
  const request = m.map('request');
  const out: Partial<Record<keyof TenantLimits, number>> = {};
  const size = request.optInt('size_bytes_limit');
  const series = request.optInt('series_limit');
  const samples = request.optInt('samples_limit');
  request.finish(['size_bytes_limit', 'series_limit', 'samples_limit']);
  // head_series_limit is a uint64 in Thanos: a negative value does not parse.
  const headSeries = m.optInt('head_series_limit', 0);
  m.finish(['request', 'head_series_limit']);
  if (size !== undefined) out.sizeBytes = Math.max(0, size);
  if (series !== undefined) out.series = Math.max(0, series);
  if (samples !== undefined) out.samples = Math.max(0, samples);
  if (headSeries !== undefined) out.headSeries = headSeries;
  return out;
}

/** Thanos' check: the URL parses and has a scheme and a host. */
function checkMetaMonitoringUrl(path: string, url: string): void {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  if (u === undefined || u.protocol === '' || u.host === '') throw limitsError(path, `${JSON.stringify(url)} is not a valid meta-monitoring URL (it needs a scheme and a host)`);
}

/** The limits that apply to `tenant`. */
export function limitsOf(config: LimitsConfig, tenant: string): TenantLimits {
  return config.tenants.get(tenant) ?? config.defaults;
}
