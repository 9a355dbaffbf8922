import { parse as parseYaml } from 'yaml';
import { parseModelDuration } from '../config/duration.js';
import type { LabelMatcher } from '../index/types.js';

/** What the sidecar needs to know of the Prometheus beside it. */
export interface PrometheusStatus {
  /** global.external_labels of its configuration, sorted by name. */
  externalLabels: Array<[string, string]>;
  /** --storage.tsdb.min-block-duration and max-block-duration, in ms. */
  minBlockDurationMs: number;
  maxBlockDurationMs: number;
  /** --storage.tsdb.retention.time in ms (0 when not set). */
  retentionMs: number;
}

/** Errors talking to Prometheus' HTTP API. */
export class PrometheusApiError extends Error {
  override readonly name = 'PrometheusApiError';
}

const TIMEOUT_MS = 10_000;

async function getJson(url: string, path: string, signal: AbortSignal): Promise<unknown> {
  const res = await fetch(new URL(path, url), { signal });
  const text = await res.text();
  if (!res.ok) throw new PrometheusApiError(`${path} answered ${res.status}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { status?: string; data?: unknown; error?: string };
  if (body.status !== 'success') throw new PrometheusApiError(`${path} answered ${body.status}: ${body.error ?? ''}`);
  return body.data;
}

/** Whether Prometheus answers /-/ready with 200. */
export async function prometheusReady(url: string): Promise<boolean> {
  try {
    const res = await fetch(new URL('/-/ready', url), { signal: AbortSignal.timeout(TIMEOUT_MS) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Reads Prometheus' external labels from /api/v1/status/config (the
 * loaded configuration's YAML, global.external_labels), as Thanos' sidecar
 * does, and its block durations and retention from /api/v1/status/flags.
 */
export async function prometheusStatus(url: string, signal: AbortSignal = AbortSignal.timeout(TIMEOUT_MS)): Promise<PrometheusStatus> {
  const config = (await getJson(url, '/api/v1/status/config', signal)) as { yaml?: unknown };
  if (typeof config.yaml !== 'string') throw new PrometheusApiError('/api/v1/status/config has no "yaml"');
  const parsed = parseYaml(config.yaml) as { global?: { external_labels?: Record<string, unknown> } } | null;
  const ext = parsed?.global?.external_labels ?? {};
  const externalLabels = Object.entries(ext)
    .map(([k, v]) => [k, String(v)] as [string, string])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const flags = (await getJson(url, '/api/v1/status/flags', signal)) as Record<string, string>;
  const duration = (name: string, fallback: string): number => {
    const v = flags[name] ?? fallback;
    const ms = v === '' ? 0 : parseModelDuration(v);
    if (ms === undefined) throw new PrometheusApiError(`flag ${name}=${JSON.stringify(v)} is not a duration`);
    return ms;
  };
  return {
    externalLabels,
    minBlockDurationMs: duration('storage.tsdb.min-block-duration', '2h'),
    maxBlockDurationMs: duration('storage.tsdb.max-block-duration', '0s'),
    retentionMs: duration('storage.tsdb.retention.time', '0s'),
  };
}

/**
 * Prometheus' oldest sample in ms (prometheus_tsdb_lowest_timestamp_seconds
 * of its /metrics, as Thanos' sidecar reads it); undefined for an empty TSDB.
 */
export async function prometheusLowestTimestamp(url: string, signal: AbortSignal = AbortSignal.timeout(TIMEOUT_MS)): Promise<number | undefined> {
  const res = await fetch(new URL('/metrics', url), { signal });
  const text = await res.text();
  if (!res.ok) throw new PrometheusApiError(`/metrics answered ${res.status}`);
  const m = /^prometheus_tsdb_lowest_timestamp_seconds(?:\{\})? (\S+)$/m.exec(text);
  if (m === null) throw new PrometheusApiError('/metrics has no prometheus_tsdb_lowest_timestamp_seconds');
  const s = Number(m[1]);
  // An empty TSDB reports the largest int64 (in seconds: about 9.2e15).
  return Number.isFinite(s) && s < 9e15 ? Math.round(s * 1000) : undefined;
}

/** Label names over [from, to] ms (either end may be infinite) of the series matching `matchers`, from /api/v1/labels. */
export async function prometheusLabelNames(url: string, matchers: readonly LabelMatcher[], from: number, to: number, timeoutMs: number): Promise<string[]> {
  return labelApi(url, '/api/v1/labels', matchers, from, to, timeoutMs);
}

/** Values of label `name` over [from, to] ms of the series matching `matchers`, from /api/v1/label/NAME/values. */
export async function prometheusLabelValues(url: string, name: string, matchers: readonly LabelMatcher[], from: number, to: number, timeoutMs: number): Promise<string[]> {
  return labelApi(url, `/api/v1/label/${encodeURIComponent(name)}/values`, matchers, from, to, timeoutMs);
}

async function labelApi(url: string, path: string, matchers: readonly LabelMatcher[], from: number, to: number, timeoutMs: number): Promise<string[]> {
  const params = new URLSearchParams();
  if (Number.isFinite(from)) params.set('start', (from / 1000).toFixed(3));
  if (Number.isFinite(to)) params.set('end', (to / 1000).toFixed(3));
  if (matchers.length > 0) params.set('match[]', selector(matchers));
  const res = await fetch(new URL(`${path}?${params.toString()}`, url), { signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  if (!res.ok) throw new PrometheusApiError(`${path} answered ${res.status}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { status?: string; data?: unknown };
  if (body.status !== 'success' || !Array.isArray(body.data)) throw new PrometheusApiError(`${path} answered ${text.slice(0, 300)}`);
  return body.data as string[];
}

const OPS = ['=', '!=', '=~', '!~'] as const;

/** Matchers as a PromQL series selector: {name="value", ...} (values as Go-quoted strings, which PromQL reads). */
export function selector(matchers: readonly LabelMatcher[]): string {
  return `{${matchers.map((m) => `${m.name}${OPS[m.type]}${JSON.stringify(m.value)}`).join(',')}}`;
}
