/**
 * Metrics whose values are read when scraped (the engine's running totals,
 * the pool's state, request stats), registered on a prom-client registry
 * as collectors: prom-client formats them like its own.
 */
import type { Registry } from 'prom-client';

/** One line of a metric family: labels, value, and a suffixed name for histogram and summary parts. */
export interface MetricValue {
  labels?: Record<string, string | number>;
  value: number;
  metricName?: string;
}

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary';

/**
 * Registers family `name` on `registry`; `read` gives its values at every
 * scrape (none: the family is listed without values).
 */
export function registerSampled(registry: Registry, name: string, help: string, type: MetricType, read: () => MetricValue[]): void {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: () => ({ name, help, type, aggregator: 'sum', values: read() }),
    reset: () => {},
  };
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
}
