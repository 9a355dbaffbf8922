/**
 * Request counts and latency histograms kept in plain numbers and typed
 * arrays, read at scrape time. prom-client's labelled children hash and
 * validate their labels on every call (about a microsecond); HTTP answers
 * take a few microseconds in all, so the hot path here is two Map lookups
 * on strings the caller already holds and a short bucket scan.
 */
import type { MetricValue } from './sampled.js';

/** Latency buckets in seconds: from a fast GET (sub-millisecond) to a large remote read. */
export const LATENCY_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Cell {
  /** Answers by status code. */
  codes: Map<string | number, number>;
  /** Per bucket (not cumulative), the last one for +Inf. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

/**
 * Counts and latencies by one or two key labels (route and method, or the
 * gRPC method alone) and a status code.
 */
export class RequestStats {
  private readonly cells = new Map<string, Map<string, Cell>>();

  /**
   * @param keyLabels - names of the one or two key labels (the second key is ignored with one)
   * @param buckets - upper bounds in seconds, increasing
   */
  constructor(private readonly keyLabels: readonly [string] | readonly [string, string], readonly buckets: readonly number[] = LATENCY_BUCKETS) {}

  /** Counts one answer. `second` is '' with one key label. */
  observe(first: string, second: string, code: string | number, seconds: number): void {
    let inner = this.cells.get(first);
    if (inner === undefined) this.cells.set(first, (inner = new Map()));
    let cell = inner.get(second);
    if (cell === undefined) {
      cell = { codes: new Map(), buckets: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 };
      inner.set(second, cell);
    }
    cell.codes.set(code, (cell.codes.get(code) ?? 0) + 1);
    const b = this.buckets;
    let i = 0;
    while (i < b.length && seconds > b[i]!) i++;
    cell.buckets[i]!++;
    cell.sum += seconds;
    cell.count++;
  }

  private keys(first: string, second: string): Record<string, string> {
    return this.keyLabels.length === 1 ? { [this.keyLabels[0]]: first } : { [this.keyLabels[0]]: first, [this.keyLabels[1]]: second };
  }

  /** The counter's values: one per key and code. */
  counts(): MetricValue[] {
    const out: MetricValue[] = [];
    for (const [first, inner] of this.cells) {
      for (const [second, cell] of inner) {
        for (const [code, n] of cell.codes) out.push({ labels: { ...this.keys(first, second), code: String(code) }, value: n });
      }
    }
    return out;
  }

  /** The histogram's values under `name`: cumulative buckets, sum and count per key. */
  histogram(name: string): MetricValue[] {
    const out: MetricValue[] = [];
    for (const [first, inner] of this.cells) {
      for (const [second, cell] of inner) {
        const keys = this.keys(first, second);
        let cumulative = 0;
        for (let i = 0; i <= this.buckets.length; i++) {
          cumulative += cell.buckets[i]!;
          const le = i < this.buckets.length ? String(this.buckets[i]) : '+Inf';
          out.push({ metricName: `${name}_bucket`, labels: { ...keys, le }, value: cumulative });
        }
        out.push({ metricName: `${name}_sum`, labels: keys, value: cell.sum });
        out.push({ metricName: `${name}_count`, labels: keys, value: cell.count });
      }
    }
    return out;
  }
}
