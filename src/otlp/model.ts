/**
 * The parts of an OTLP ExportMetricsServiceRequest (opentelemetry-proto's
 * collector/metrics/v1 and metrics/v1) that the translation reads, as
 * decoded from protobuf (proto-reader.ts) or the OTLP/HTTP JSON mapping
 * (json-reader.ts). Times are milliseconds (OTLP's nanoseconds divided,
 * rounded down, as Prometheus' convertTimeStamp does).
 */

/** An attribute, its value already as Prometheus takes it (pcommon's AsString). */
export interface Attribute {
  key: string;
  value: string;
}

/** OTLP's AggregationTemporality. */
export const TEMPORALITY = { unspecified: 0, delta: 1, cumulative: 2 } as const;

/** DataPointFlags.FLAG_NO_RECORDED_VALUE_MASK: the point marks the series gone. */
export const NO_RECORDED_VALUE = 1;

export interface Exemplar {
  attributes: Attribute[];
  timeMs: number;
  value: number;
  /** Hex, '' when absent or all zero bytes. */
  traceId: string;
  spanId: string;
}

interface PointBase {
  /** Empty, not yet read, while `attributesAt` is set. */
  attributes: Attribute[];
  /**
   * A protobuf point's attribute fields as sent, one run of bytes at
   * [attributesAt, attributesEnd) of the body: with the resource and the
   * metric they make its labels, so a series already known is found by
   * them (SeriesSink.known); read with readAttributes() (proto-reader.ts)
   * when needed. Number points only.
   */
  attributesAt?: number;
  attributesEnd?: number;
  timeMs: number;
  flags: number;
  exemplars: Exemplar[];
}

export interface NumberPoint extends PointBase {
  value: number;
}

export interface HistogramPoint extends PointBase {
  count: number;
  /** NaN-free sum, or undefined when the point has none. */
  sum: number | undefined;
  bucketCounts: number[];
  bounds: number[];
}

export interface Buckets {
  offset: number;
  counts: number[];
}

export interface ExpHistogramPoint extends PointBase {
  count: number;
  sum: number | undefined;
  scale: number;
  zeroCount: number;
  zeroThreshold: number;
  positive: Buckets;
  negative: Buckets;
}

export interface SummaryPoint extends PointBase {
  count: number;
  sum: number;
  quantiles: Array<{ quantile: number; value: number }>;
}

export type MetricData =
  | { kind: 'gauge'; points: NumberPoint[] }
  | { kind: 'sum'; points: NumberPoint[]; temporality: number; monotonic: boolean }
  | { kind: 'histogram'; points: HistogramPoint[]; temporality: number }
  | { kind: 'exponential_histogram'; points: ExpHistogramPoint[]; temporality: number }
  | { kind: 'summary'; points: SummaryPoint[] }
  | { kind: 'none' };

export interface Metric {
  name: string;
  description: string;
  unit: string;
  data: MetricData;
}

/** An instrumentation scope (with its ScopeMetrics' schema_url). */
export interface Scope {
  name: string;
  version: string;
  schemaUrl: string;
  attributes: Attribute[];
}

export interface ScopeMetrics extends Scope {
  metrics: Metric[];
}

export interface ResourceMetrics {
  attributes: Attribute[];
  scopes: ScopeMetrics[];
}

/** The request: its resource metrics in order. */
export type MetricsRequest = ResourceMetrics[];

/**
 * What a reader hands a request to, part by part in request order: a
 * resource's attributes, then for each of its scopes the scope and its
 * metrics one by one, then the resource's end. A metric is not used
 * after its call returns.
 */
export interface MetricsVisitor {
  resource(attributes: Attribute[]): void;
  scope(scope: Scope): void;
  metric(m: Metric): void;
  endResource(): void;
}

/** Walks a request read whole (json-reader.ts) as a visitor. */
export function visitRequest(request: MetricsRequest, v: MetricsVisitor): void {
  for (const rm of request) {
    v.resource(rm.attributes);
    for (const s of rm.scopes) {
      v.scope(s);
      for (const m of s.metrics) v.metric(m);
    }
    v.endResource();
  }
}

/**
 * OTLP nanoseconds (a fixed64 as two unsigned 32-bit halves) as
 * milliseconds, exactly: hi * 2^32 / 1e6 split so no step passes 2^53.
 */
export function nanosToMs(lo: number, hi: number): number {
  return hi * 4294 + Math.floor((hi * 967296 + lo) / 1e6);
}
