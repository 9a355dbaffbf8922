/**
 * What the OTLP translation gives: Prometheus series, one sample or native
 * histogram each, with metadata, handed to a SeriesSink one by one
 * (src/ingest/parse/otlp-batch.ts writes them into the append batch,
 * through time-series.ts and the remote-write series parser), and what was
 * refused.
 */
import type { NumberPoint } from './model.js';

/** A sample value; `stale` writes Prometheus' stale marker's exact bits instead. */
export interface OutSample {
  timeMs: number;
  value: number;
  stale: boolean;
}

export interface OutExemplar {
  /** name, value, name, value ..., sorted by name. */
  labels: string[];
  value: number;
  timeMs: number;
}

/** A native histogram in remote write 1.0's Histogram message, integer counts. */
export interface OutHistogram {
  timeMs: number;
  count: number;
  sum: number;
  stale: boolean;
  schema: number;
  zeroThreshold: number;
  zeroCount: number;
  /** Spans (offset, length pairs) and deltas of the positive and negative buckets. */
  positiveSpans: number[];
  positiveDeltas: number[];
  negativeSpans: number[];
  negativeDeltas: number[];
  /** 0 unknown, 1 yes, 2 no, 3 gauge (remote write's ResetHint). */
  resetHint: number;
}

export interface OutSeries {
  /** name, value, name, value ..., sorted by name, __name__ included. */
  labels: string[];
  /** Where this series' point was in the last SeriesSink.lookup(), plus one. */
  ticket?: number;
  sample?: OutSample;
  histogram?: OutHistogram;
  exemplars: OutExemplar[];
}

/** Remote write 1.0's MetricMetadata.MetricType numbers. */
export const METRIC_TYPE = { unknown: 0, counter: 1, gauge: 2, histogram: 3, summary: 5 } as const;

export interface OutMetadata {
  type: number;
  family: string;
  help: string;
  unit: string;
}

/** Where translated series and metadata go, in the order translated. */
export interface SeriesSink {
  series(s: OutSeries): void;
  metadata(m: OutMetadata): void;
  /**
   * Looks up the series of a metric's number points whose attributes are
   * still bytes of the protobuf body (NumberPoint.attributesAt) and that
   * have no exemplars: their labels are made from `context` (the resource's
   * and scope's labels and the settings that shape labels), `family` (the
   * metric's name) and those bytes. Answers a ref per point, 0 where the
   * sink does not know the series: that point's series then goes to
   * series() with OutSeries.ticket = its index + 1, so the sink may know it
   * next time; a known one goes to knownSample(), in point order.
   */
  lookup?(context: string, family: string, points: readonly NumberPoint[]): Uint32Array;
  /** The sample of a point whose series lookup() knew as `ref` (`stale`: Prometheus' stale marker instead of `value`). */
  knownSample?(ref: number, timeMs: number, value: number, stale: boolean): void;
}

/** What was refused of a request. */
export interface Refusals {
  /** Data points refused (delta temporality, names that cannot be built, ...). */
  rejected: number;
  /** Why, one line each, the first few. */
  errors: string[];
}

/** A whole translation, collected (translateMetrics). */
export interface Translated extends Refusals {
  series: OutSeries[];
  metadata: OutMetadata[];
}
