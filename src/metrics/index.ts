/**
 * Strata's own metrics (prom-client, names prefixed `strata_`) and the
 * GET /metrics route that exposes them.
 */
export { metricsRoute } from '../http/metrics-route.js';
export { StrataMetrics, type PoolStats, type PoolStatsSource, type StrataMetricsOptions, type TimeSummary } from './strata-metrics.js';
export { LATENCY_BUCKETS, RequestStats } from './request-stats.js';
