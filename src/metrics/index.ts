/**
 * Strata's own metrics (prom-client, names prefixed `strata_`); the
 * GET /metrics route that exposes them is src/http/metrics-route.ts.
 */
export { StrataMetrics, type PoolStats, type PoolStatsSource, type StrataMetricsOptions, type TimeSummary, type WalReplaySource } from './strata-metrics.js';
export { LATENCY_BUCKETS, RequestStats } from './request-stats.js';
