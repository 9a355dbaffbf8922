/**
 * Thanos' exemplars API (thanos.Exemplars/Exemplars) over the exemplar
 * store, independent of the transport: requests as decoded messages,
 * answers as messages. As Thanos Receive answers it (pkg/exemplars/tsdb.go):
 * matchers on external labels are decided against them first (no match:
 * an empty answer; nothing left to match: InvalidArgument), and every
 * series is answered with the external labels merged in (they win), the
 * tenant label included as stored.
 */
import type { ExemplarData, ExemplarsRequest } from '../gen/thanos/exemplars/rpc.js';
import type { Label } from '../gen/thanos/store/labels.js';
import { parseSelector } from '../index/selector.js';
import { compareLabels } from '../index/index.js';
import { invalidArgument } from '../errors/errors.js';
import type { ExternalLabels } from '../store/external-labels.js';
import { exemplarLabelsOf, type ExemplarStore } from '../exemplars/exemplar-store.js';
import { seriesMatcher } from '../index/series-matcher.js';


const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function toLabels(flat: readonly string[]): Label[] {
  const out: Label[] = [];
  for (let i = 0; i < flat.length; i += 2) out.push({ name: flat[i]!, value: flat[i + 1]! });
  return out;
}

/** Store API times (int64 ms) as numbers; beyond ±2^53 they are as good as infinite. */
function toMs(t: bigint): number {
  if (t >= 9007199254740991n) return Infinity;
  if (t <= -9007199254740991n) return -Infinity;
  return Number(t);
}

export class ExemplarsApi {
  constructor(private readonly store: () => ExemplarStore, private readonly externalLabels: ExternalLabels) {}

  /**
   * The exemplars `req` selects, one ExemplarData per series, sorted by the
   * labels answered. `query` must be a series selector.
   *
   * @throws StoreRequestError (InvalidArgument) for a query that is not a
   *   selector, or whose matchers are all on external labels
   */
  exemplars(req: ExemplarsRequest): ExemplarData[] {
    let matchers;
    try {
      matchers = parseSelector(req.query);
    } catch (err) {
      throw invalidArgument(`query ${JSON.stringify(req.query)}: ${(err as Error).message} (a series selector, such as rpc_seconds_bucket{job="api"})`);
    }
    const { matches, rest } = this.externalLabels.decide(matchers);
    if (!matches) return [];
    if (rest.length === 0) throw invalidArgument('no matchers specified (excluding external labels)');
    const found = this.store().select(toMs(req.start), toMs(req.end), seriesMatcher(rest), compareLabels);
    const answered = found.map((r) => ({ labels: this.externalLabels.apply(r.seriesLabels), exemplars: r.exemplars }));
    answered.sort((a, b) => compareLabels(a.labels, b.labels));
    return answered.map((r) => ({
      seriesLabels: { labels: toLabels(r.labels) },
      exemplars: r.exemplars.map((e) => {
        u32[0] = e.valueLo;
        u32[1] = e.valueHi;
        return { labels: { labels: toLabels(exemplarLabelsOf(e.labelsKey)) }, value: f64[0]!, ts: BigInt(e.ts) };
      }),
    }));
  }
}
