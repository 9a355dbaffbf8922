/**
 * Metric metadata as remote write carries it: a metric family's type, help
 * and unit. Remote write 1.0 sends it in WriteRequest.metadata (one entry
 * per family, every minute by default); 2.0 with every series.
 */

/** What one family is known by (Prometheus' metadata.Metadata, with its family name). */
export interface MetricMetadataEntry {
  /** The metric family name, e.g. `http_requests` for `http_requests_total`'s counter family as exposed. */
  family: string;
  /** One of METRIC_TYPES. */
  type: string;
  help: string;
  unit: string;
}

/**
 * Prometheus' type names by the wire enum's number (1.0's
 * MetricMetadata.MetricType and 2.0's Metadata.MetricType number them
 * alike); a number not listed is 'unknown'.
 */
export const METRIC_TYPES: readonly string[] = ['unknown', 'counter', 'gauge', 'histogram', 'gaugehistogram', 'summary', 'info', 'stateset'];

/** The type name of a wire enum number. */
export function metricTypeName(n: number): string {
  return METRIC_TYPES[n] ?? 'unknown';
}
