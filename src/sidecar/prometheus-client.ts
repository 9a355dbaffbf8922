import { parse as parseYaml } from 'yaml';
import { parseModelDuration } from '../config/duration.js';

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

async function getJson(url: string, path: string): Promise<unknown> {
  const res = await fetch(new URL(path, url), { signal: AbortSignal.timeout(TIMEOUT_MS) });
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
export async function prometheusStatus(url: string): Promise<PrometheusStatus> {
  const config = (await getJson(url, '/api/v1/status/config')) as { yaml?: unknown };
  if (typeof config.yaml !== 'string') throw new PrometheusApiError('/api/v1/status/config has no "yaml"');
  const parsed = parseYaml(config.yaml) as { global?: { external_labels?: Record<string, unknown> } } | null;
  const ext = parsed?.global?.external_labels ?? {};
  const externalLabels = Object.entries(ext)
    .map(([k, v]) => [k, String(v)] as [string, string])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const flags = (await getJson(url, '/api/v1/status/flags')) as Record<string, string>;
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
