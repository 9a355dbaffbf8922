/**
 * A catalogue of series for a load: label sets and value models, numbered
 * 0..count-1, grouped by target (a host, a pod: what one scrape job
 * scrapes). Profiles (node-exporter.ts, kube.ts, profile-file.ts) describe
 * the families one target exposes; {@link buildCatalogue} fills as many
 * targets as the series count needs (the last one cut short).
 *
 * The models live in typed arrays, one slot per series, so that stepping
 * 100k series a scrape builds no objects.
 */

/** How a series' value moves from one scrape to the next. */
export const Model = {
  /** state += integer increment around `step` (never negative). */
  Counter: 0,
  /** state += float increment around `step`. */
  FloatCounter: 1,
  /** state += integer step in [-step, step], kept in [lo, hi]. */
  Gauge: 2,
  /** state += float step in [-step, step], kept in [lo, hi]. */
  FloatGauge: 3,
  /** state never changes. */
  Constant: 4,
  /** the scrape time in seconds (node_time_seconds). */
  Clock: 5,
} as const;
export type Model = (typeof Model)[keyof typeof Model];

/** One family: its name, its per-series labels on one target, and how values move. */
export interface Family {
  name: string;
  /** The label sets of the family's series on one target (the target's own labels are added). */
  labelSets: Array<Array<[string, string]>>;
  model: Model;
  /** value = state * scale. */
  scale: number;
  /** Typical increment (counters) or largest step (gauges), in state units. */
  step: number;
  /** Start value and bounds, in state units. */
  lo: number;
  hi: number;
}

/** A family with its fields in order (the profiles' shorthand). */
export function family(name: string, labelSets: Array<Array<[string, string]>>, model: Model, scale: number, step: number, lo: number, hi = lo): Family {
  return { name, labelSets, model, scale, step, lo, hi };
}

/** A catalogue of label sets and value models; series are numbered 0..count-1. */
export interface Catalogue {
  readonly count: number;
  /** Targets (hosts, pods); series i belongs to target hostOf[i]. */
  readonly hosts: number;
  /**
   * Sorted label pairs of series i (as flat name, value, name, value, ...)
   * in `generation` of its target (0: the first; churn replaces a target
   * by its next generation, which has other label values and so other series).
   */
  labels(i: number, generation?: number): string[];
  /** The target series i belongs to. */
  readonly hostOf: Uint32Array;
  readonly model: Uint8Array;
  readonly scale: Float64Array;
  readonly step: Float64Array;
  readonly lo: Float64Array;
  readonly hi: Float64Array;
}

/**
 * Builds a catalogue of `count` series from the families one target
 * exposes; `targetLabels(t, generation)` gives target t's own labels (such
 * as instance and job), which are added to every series of the target.
 */
export function buildCatalogue(families: Family[], count: number, targetLabels: (target: number, generation: number) => Array<[string, string]>): Catalogue {
  const perTarget: Array<{ name: string; extra: Array<[string, string]>; family: Family }> = [];
  for (const fam of families) for (const extra of fam.labelSets) perTarget.push({ name: fam.name, extra, family: fam });
  if (perTarget.length === 0) throw new Error('a profile needs at least one series per target');
  const hosts = Math.ceil(count / perTarget.length);
  const hostOf = new Uint32Array(count);
  const model = new Uint8Array(count);
  const scale = new Float64Array(count);
  const step = new Float64Array(count);
  const lo = new Float64Array(count);
  const hi = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const s = perTarget[i % perTarget.length]!;
    hostOf[i] = Math.floor(i / perTarget.length);
    model[i] = s.family.model;
    scale[i] = s.family.scale;
    step[i] = s.family.step;
    lo[i] = s.family.lo;
    hi[i] = s.family.hi;
  }
  return {
    count,
    hosts,
    hostOf,
    model,
    scale,
    step,
    lo,
    hi,
    labels(i: number, generation = 0): string[] {
      const s = perTarget[i % perTarget.length]!;
      const pairs: Array<[string, string]> = [['__name__', s.name], ...targetLabels(Math.floor(i / perTarget.length), generation), ...s.extra];
      // Remote write wants labels sorted by name (byte order).
      pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      return pairs.flat();
    },
  };
}

/** Series one target exposes under `families`. */
export function seriesPerTarget(families: Family[]): number {
  let n = 0;
  for (const f of families) n += f.labelSets.length;
  return n;
}
