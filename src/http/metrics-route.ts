/** GET /metrics: the exposition of {@link StrataMetrics} in Prometheus' text format. */
import type { RouteSpec } from './route.js';
import type { StrataMetrics } from '../metrics/strata-metrics.js';

export function metricsRoute(metrics: StrataMetrics): RouteSpec {
  return {
    method: 'GET',
    path: '/metrics',
    body: { kind: 'none' },
    handler: async () => ({ status: 200, contentType: metrics.contentType, body: await metrics.text() }),
  };
}
