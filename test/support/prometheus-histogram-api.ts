/**
 * Renders a native histogram sample as Prometheus 2.42's query API does
 * (web/api/v1/api.go marshalHistogram over FloatHistogram.AllBucketIterator,
 * util/jsonutil MarshalValue), so that decoded chunks can be compared with
 * what a real Prometheus answered.
 *
 * The API shows count, sum and each non-empty bucket as [boundary rule,
 * lower, upper, count]: negative buckets from the most negative up, then
 * the zero bucket [-threshold, threshold] (rule 3) if its count is not 0,
 * then the positive buckets. Rules: 0 = (lower, upper], 1 = [lower, upper),
 * 3 = [lower, upper]. A negative bucket's upper bound is raised to
 * -threshold and a positive bucket's lower bound to threshold where they
 * reach into the zero bucket.
 *
 * @example
 * renderApiHistogram(decoded.histograms[0]) // { count: '17', sum: '3.5', buckets: [[0, '1', '2', '3']] }
 */
import type { FloatHistogram, Histogram, Span } from '../../src/chunkenc/histogram/types.js';
import { getBound } from './prometheus-bucket-bounds.js';

export interface ApiHistogram {
  count: string;
  sum: string;
  buckets: Array<[number, string, string, string]>;
}

/**
 * Go's strconv.AppendFloat(v, 'f' or 'e', -1, 64) as jsonutil.MarshalValue
 * chooses: 'e' for 0 < |v| < 1e-6 and |v| >= 1e21, else 'f'; both with the
 * shortest digits that read back exactly. JavaScript switches to exponents at
 * the same magnitudes with the same digits; Go writes at least two exponent
 * digits ("1e-07") and "NaN", "+Inf", "-Inf", "-0".
 */
export function formatGoFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Object.is(v, -0)) return '-0';
  return String(v).replace(/e([+-])(\d)$/, 'e$10$2');
}

/** [bucket index, absolute count] of one side, in ascending index order. */
function bucketsOf(spans: readonly Span[], counts: readonly number[], deltas: boolean): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let idx = 0;
  let k = 0;
  let abs = 0;
  for (let s = 0; s < spans.length; s++) {
    idx += spans[s]!.offset;
    for (let j = 0; j < spans[s]!.length; j++) {
      const c = counts[k++];
      if (c === undefined) throw new Error(`spans cover more buckets than the ${counts.length} given`);
      abs = deltas ? abs + c : c;
      out.push([idx, abs]);
      idx++;
    }
  }
  if (k !== counts.length) throw new Error(`${counts.length} bucket counts for spans of ${k} buckets`);
  return out;
}

/**
 * The API's rendering of an integer (`deltas`: bucket counts are deltas) or
 * float histogram. Stale markers are not rendered by the API at all.
 */
export function renderApiHistogram(h: Histogram | FloatHistogram, deltas: boolean): ApiHistogram {
  const zt = h.zeroThreshold;
  const buckets: ApiHistogram['buckets'] = [];
  const neg = bucketsOf(h.negativeSpans, h.negativeBuckets, deltas);
  for (let i = neg.length - 1; i >= 0; i--) {
    const [idx, count] = neg[i]!;
    if (count === 0) continue;
    const lower = -getBound(idx, h.schema);
    let upper = -getBound(idx - 1, h.schema);
    const r = rule(lower, upper);
    if (upper > -zt) upper = -zt;
    buckets.push([r, formatGoFloat(lower), formatGoFloat(upper), formatGoFloat(count)]);
  }
  if (h.zeroCount > 0) {
    buckets.push([3, formatGoFloat(-zt), formatGoFloat(zt), formatGoFloat(h.zeroCount)]);
  }
  for (const [idx, count] of bucketsOf(h.positiveSpans, h.positiveBuckets, deltas)) {
    if (count === 0) continue;
    let lower = getBound(idx - 1, h.schema);
    const upper = getBound(idx, h.schema);
    const r = rule(lower, upper);
    if (lower < zt) lower = zt;
    buckets.push([r, formatGoFloat(lower), formatGoFloat(upper), formatGoFloat(count)]);
  }
  return { count: formatGoFloat(h.count), sum: formatGoFloat(h.sum), buckets };
}

/**
 * The boundary rule of a bucket from the inclusiveness its iterator's At()
 * decides (lower inclusive if below 0, upper inclusive if above 0), before
 * the zero threshold moves a bound.
 */
function rule(lower: number, upper: number): number {
  const lowerIn = lower < 0;
  const upperIn = upper > 0;
  if (lowerIn) return upperIn ? 3 : 1;
  return upperIn ? 0 : 2;
}
