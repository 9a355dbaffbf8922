import {
  HEADER_GAUGE, HEADER_NOT_RESET, HEADER_RESET, HEADER_UNKNOWN, type CounterResetHeader,
} from './codec.js';
import {
  RESET_GAUGE, RESET_NO, RESET_UNKNOWN, RESET_YES, type CounterResetHint, type Histogram,
} from './types.js';

/**
 * counterResetHint of Prometheus 2.42 (histogram_meta.go): the hint its
 * iterator reports for the `numRead`-th sample (1-based) of a chunk.
 */
export function counterResetHint(header: CounterResetHeader, numRead: number): CounterResetHint {
  if (header === HEADER_GAUGE) return RESET_GAUGE;
  if (numRead > 1) return RESET_NO;
  if (header === HEADER_RESET) return RESET_YES;
  return RESET_UNKNOWN;
}

/** The header `encode` writes when none is given: what the first sample's hint says. */
export function headerFromHint(hint: CounterResetHint | undefined): CounterResetHeader {
  switch (hint) {
    case RESET_YES: return HEADER_RESET;
    case RESET_NO: return HEADER_NOT_RESET;
    case RESET_GAUGE: return HEADER_GAUGE;
    default: return HEADER_UNKNOWN;
  }
}

/** A stale marker as Prometheus' iterators return it: Histogram{Sum: StaleNaN}. */
export function staleHistogram(sum: number): Histogram {
  return {
    counterResetHint: RESET_UNKNOWN, schema: 0, zeroThreshold: 0, zeroCount: 0, count: 0, sum,
    positiveSpans: [], negativeSpans: [], positiveBuckets: [], negativeBuckets: [],
  };
}
