/**
 * OTLP metrics as Prometheus series, as Prometheus 3's OTLP receiver
 * translates them (storage/remote/otlptranslator/prometheusremotewrite in
 * prometheus/prometheus: metrics_to_prw.go, helper.go,
 * number_data_points.go, histograms.go); docs/format/otlp.md lists the
 * rules. Delta temporality is refused (Prometheus' default, without
 * otlp-deltatocumulative), counted in `rejected` and stored not at all.
 */
import { MalformedRequestError } from '../errors/errors.js';
import { goFloatFixed } from './any-value.js';
import { NameMemo } from './name-memo.js';
import { readAttributes } from './proto-reader.js';
import { nativeHistogram } from './exp-histogram.js';
import type { Attribute, Exemplar, Metric, MetricsRequest, MetricsVisitor, Scope } from './model.js';
import { NO_RECORDED_VALUE, TEMPORALITY, visitRequest } from './model.js';
import { labelName, metricName, unitName, type NamerType } from './names.js';
import type { OtlpSettings } from './settings.js';
import { METRIC_TYPE, type OutExemplar, type OutMetadata, type OutSeries, type Refusals, type SeriesSink, type Translated } from './translated.js';

const SERVICE_NAME = 'service.name';
const SERVICE_NAMESPACE = 'service.namespace';
const SERVICE_INSTANCE_ID = 'service.instance.id';
/** Prometheus' maxExemplarRunes: exemplar attributes are kept only while labels stay this short. */
const MAX_EXEMPLAR_RUNES = 128;
/** target_info is repeated every lookback delta / 2 (Prometheus' default lookback: 5 minutes). */
const TARGET_INFO_INTERVAL_MS = 150_000;
/** Attributes never taken as labels (Prometheus' reservedLabelNames): the name comes from the metric. */
const RESERVED = ['__name__'];
/** Errors named in a partial_success message at most. */
const MAX_ERRORS = 8;

/** A label set being built: name -> value, as Prometheus' labels.Builder. */
type Builder = Map<string, string>;
/** A built label set: name, value, name, value ..., sorted by name, no empty value. */
type Base = string[];

/** Attribute keys as sanitized label names (underscore escaping). */
const sanitized = new NameMemo(4096);
/** A metric's Prometheus family and metadata unit, and what they were made from. */
interface Family {
  strategy: string;
  type: NamerType;
  unit: string;
  family: string;
  metadataUnit: string;
}
/** Families by OTLP name (the rest checked on the entry): made once per thread, not per metric. */
const families = new Map<string, Family>();
const FAMILIES_MAX = 4096;
/** What a point without exemplars has: one shared empty list (only read). */
const NO_EXEMPLARS: OutExemplar[] = [];

/** What one resource's series all share. */
interface ResourceContext {
  job: string;
  instance: string;
  promoted: Builder;
  scope: Builder | undefined;
  /** All of the above (and the settings that shape labels) as one string: what, with the family and a point's attributes, makes its labels (SeriesSink.known). */
  key: string;
}

function contextKey(ctx: ResourceContext, utf8: boolean): string {
  return JSON.stringify([utf8, ctx.job, ctx.instance, [...ctx.promoted], ctx.scope === undefined ? 0 : [...ctx.scope]]);
}

/** The resource being translated. */
interface ResourceState {
  attributes: Attribute[];
  /** What its series share; undefined when the resource was refused (its points are counted). */
  ctx: ResourceContext | undefined;
  /** The current scope was refused (its points are counted). */
  scopeRefused: boolean;
  earliest: number;
  latest: number;
}

/**
 * A translation, fed part by part (a MetricsVisitor): each series goes
 * to the sink as soon as it is made.
 */
export class Translation implements MetricsVisitor {
  readonly refusals: Refusals = { rejected: 0, errors: [] };
  private readonly utf8: boolean;
  private res: ResourceState | undefined;
  /** Points of the metric being translated that are done (written or refused on their own). */
  private translated = 0;

  /**
   * @param body - the protobuf body being read, where number points'
   *   attributes are (NumberPoint.attributesAt); absent for the JSON mapping
   */
  constructor(private readonly settings: OtlpSettings, private readonly sink: SeriesSink, private readonly body?: Uint8Array) {
    this.utf8 = !settings.translationStrategy.startsWith('UnderscoreEscaping');
  }

  private fail(points: number, message: string): void {
    this.refusals.rejected += points;
    if (this.refusals.errors.length < MAX_ERRORS) this.refusals.errors.push(message);
  }

  private label(key: string): string {
    const known = this.utf8 ? undefined : sanitized.get(key);
    if (known !== undefined) return known;
    const n = labelName(key, this.utf8);
    if (n instanceof Error) throw n;
    if (!this.utf8) sanitized.set(key, n);
    return n;
  }

  resource(attributes: Attribute[]): void {
    let name: string | undefined;
    let ns: string | undefined;
    let instance = '';
    for (const a of attributes) {
      if (a.key === SERVICE_NAME) name = a.value;
      else if (a.key === SERVICE_NAMESPACE) ns = a.value;
      else if (a.key === SERVICE_INSTANCE_ID) instance = a.value;
    }
    const ctx: ResourceContext = {
      job: name === undefined ? '' : ns === undefined ? name : `${ns}/${name}`,
      instance,
      promoted: new Map(),
      scope: undefined,
      key: '',
    };
    const res: ResourceState = { attributes, ctx, scopeRefused: false, earliest: Infinity, latest: -Infinity };
    this.res = res;
    const s = this.settings;
    try {
      for (const a of attributes) {
        const listed = (s.promoteAllResourceAttributes ? s.ignoreResourceAttributes : s.promoteResourceAttributes).includes(a.key);
        if (listed !== s.promoteAllResourceAttributes) ctx.promoted.set(this.label(a.key), a.value);
      }
      ctx.key = contextKey(ctx, this.utf8);
    } catch (err) {
      res.ctx = undefined;
      this.fail(0, (err as Error).message);
    }
  }

  scope(scope: Scope): void {
    const res = this.res!;
    res.scopeRefused = false;
    if (res.ctx === undefined || !this.settings.promoteScopeMetadata) return;
    try {
      res.ctx.scope = this.scopeLabels(scope);
      res.ctx.key = contextKey(res.ctx, this.utf8);
    } catch (err) {
      res.scopeRefused = true;
      this.fail(0, (err as Error).message);
    }
  }

  metric(m: Metric): void {
    const res = this.res!;
    const points = m.data.kind === 'none' ? [] : m.data.points;
    if (res.ctx === undefined || res.scopeRefused) {
      this.refusals.rejected += points.length;
      return;
    }
    for (const p of points) {
      if (p.timeMs < res.earliest) res.earliest = p.timeMs;
      if (p.timeMs > res.latest) res.latest = p.timeMs;
    }
    try {
      this.translate(m, res.ctx);
    } catch (err) {
      // A point's attributes are read late (readAttributes): a body that does not decode is still 400.
      if (err instanceof MalformedRequestError) throw err;
      // As Prometheus: the metric's points before the one that failed are kept; it and those after are refused.
      this.fail(points.length - this.translated, (err as Error).message);
    }
  }

  endResource(): void {
    const res = this.res!;
    this.res = undefined;
    if (res.ctx !== undefined && res.earliest !== Infinity) this.targetInfo(res.attributes, res.ctx, res.earliest, res.latest);
  }

  private scopeLabels(scope: Scope): Builder {
    const b: Builder = new Map();
    for (const a of scope.attributes) b.set(this.label(a.key), a.value);
    b.set('otel_scope_name', scope.name);
    b.set('otel_scope_version', scope.version);
    b.set('otel_scope_schema_url', scope.schemaUrl);
    return b;
  }

  /** createAttributes: point attributes (colliding names joined with ';'), promoted, job, instance, scope. */
  private attributes(attrs: Attribute[], ctx: ResourceContext, ignore: readonly string[] = RESERVED): Base {
    const kept = attrs.some((a) => ignore.includes(a.key)) ? attrs.filter((a) => !ignore.includes(a.key)) : attrs.slice();
    const sorted = kept.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const b: Builder = new Map();
    for (const a of sorted) {
      if (this.utf8) {
        b.set(a.key, a.value);
        continue;
      }
      const k = this.label(a.key);
      const had = b.get(k);
      b.set(k, had !== undefined && had !== '' ? `${had};${a.value}` : a.value);
    }
    for (const [k, v] of ctx.promoted) if ((b.get(k) ?? '') === '') b.set(k, v);
    if (ctx.job !== '') b.set('job', ctx.job);
    if (ctx.instance !== '') b.set('instance', ctx.instance);
    if (ctx.scope !== undefined) for (const [k, v] of ctx.scope) b.set(k, v);
    return built(b);
  }

  private translate(m: Metric, ctx: ResourceContext): void {
    this.translated = 0;
    const d = m.data;
    if (d.kind === 'none' || d.points.length === 0) return;
    if ('temporality' in d && d.temporality !== TEMPORALITY.cumulative) {
      this.fail(d.points.length, `invalid temporality and type combination for metric ${JSON.stringify(m.name)}`);
      return;
    }
    const type: NamerType = d.kind === 'sum' ? (d.monotonic ? 'monotonic_counter' : 'non_monotonic_counter') : d.kind;
    const strategy = this.settings.translationStrategy;
    let f = families.get(m.name);
    if (f === undefined || f.strategy !== strategy || f.type !== type || f.unit !== m.unit) {
      const made = metricName(m.name, m.unit, type, strategy);
      if (made instanceof Error) throw made;
      f = { strategy, type, unit: m.unit, family: made, metadataUnit: unitName(m.unit) };
      if (families.size >= FAMILIES_MAX) families.clear();
      families.set(m.name, f);
    }
    const family = f.family;
    const promType =
      d.kind === 'gauge' ? METRIC_TYPE.gauge
      : d.kind === 'sum' ? (d.monotonic ? METRIC_TYPE.counter : METRIC_TYPE.gauge)
      : d.kind === 'summary' ? METRIC_TYPE.summary
      : METRIC_TYPE.histogram;
    this.sink.metadata({ type: promType, family, help: m.description, unit: f.metadataUnit });
    const series = this.sink;
    switch (d.kind) {
      case 'gauge':
      case 'sum': {
        const refs = this.body !== undefined && series.lookup !== undefined ? series.lookup(ctx.key, family, d.points) : undefined;
        for (let i = 0; i < d.points.length; i++) {
          const p = d.points[i]!;
          const ref = refs === undefined ? 0 : refs[i]!;
          if (ref !== 0) {
            series.knownSample!(ref, p.timeMs, p.value, stale(p.flags));
            this.translated++;
            continue;
          }
          const attrs = p.attributesAt === undefined ? p.attributes : readAttributes(this.body!, p.attributesAt, p.attributesEnd!);
          const sample = { timeMs: p.timeMs, value: p.value, stale: stale(p.flags) };
          const out: OutSeries = { labels: named(family, this.attributes(attrs, ctx)), sample, exemplars: exemplars(p.exemplars) };
          if (refs !== undefined) out.ticket = i + 1;
          series.series(out);
          this.translated++;
        }
        return;
      }
      case 'summary':
        for (const p of d.points) {
          const base = this.attributes(p.attributes, ctx);
          const s = stale(p.flags);
          series.series(one(`${family}_sum`, base, p.timeMs, p.sum, s));
          series.series(one(`${family}_count`, base, p.timeMs, p.count, s));
          for (const q of p.quantiles) series.series(one(family, base, p.timeMs, q.value, s, 'quantile', goFloatFixed(q.quantile)));
          this.translated++;
        }
        return;
      case 'histogram':
        for (const p of d.points) {
          const base = this.attributes(p.attributes, ctx);
          const s = stale(p.flags);
          if (p.sum !== undefined) series.series(one(`${family}_sum`, base, p.timeMs, p.sum, s));
          series.series(one(`${family}_count`, base, p.timeMs, p.count, s));
          const ex = exemplars(p.exemplars);
          let next = 0;
          let cumulative = 0;
          for (let i = 0; i < p.bounds.length && i < p.bucketCounts.length; i++) {
            const bound = p.bounds[i]!;
            cumulative += p.bucketCounts[i]!;
            const bucket = one(`${family}_bucket`, base, p.timeMs, cumulative, s, 'le', goFloatFixed(bound));
            // As Prometheus: exemplars in the order given, each to this bucket while its value is within the bound.
            while (next < ex.length && ex[next]!.value <= bound) bucket.exemplars.push(ex[next++]!);
            series.series(bucket);
          }
          const inf = one(`${family}_bucket`, base, p.timeMs, p.count, s, 'le', '+Inf');
          inf.exemplars.push(...ex.slice(next));
          series.series(inf);
          this.translated++;
        }
        return;
      case 'exponential_histogram':
        for (const p of d.points) {
          const h = nativeHistogram(p, false);
          this.translated++;
          if (h instanceof Error) {
            this.fail(1, h.message);
            continue;
          }
          const base = this.attributes(p.attributes, ctx);
          series.series({ labels: named(family, base), histogram: h, exemplars: exemplars(p.exemplars) });
        }
        return;
    }
  }

  /** addResourceTargetInfo: the non-identifying resource attributes as target_info = 1. */
  private targetInfo(attrs: Attribute[], ctx: ResourceContext, earliest: number, latest: number): void {
    const identifying = [SERVICE_NAMESPACE, SERVICE_NAME, SERVICE_INSTANCE_ID];
    if (attrs.filter((a) => !identifying.includes(a.key)).length === 0) return;
    const keep = this.settings.keepIdentifyingResourceAttributes;
    let base: Base;
    try {
      base = this.attributes(attrs, { ...ctx, promoted: new Map(), scope: undefined }, keep ? [] : identifying);
    } catch (err) {
      this.fail(0, (err as Error).message);
      return;
    }
    if (!hasLabel(base, 'job') && !hasLabel(base, 'instance')) return;
    this.sink.metadata({ type: METRIC_TYPE.gauge, family: 'target_info', help: 'Target metadata', unit: '' });
    const times = new Set<number>();
    for (let t = earliest; t < latest; t += TARGET_INFO_INTERVAL_MS) times.add(t);
    times.add(latest);
    for (const t of times) this.sink.series(one('target_info', base, t, 1, false));
  }
}

const stale = (flags: number): boolean => (flags & NO_RECORDED_VALUE) !== 0;

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A builder's labels, sorted, without the empty ones (Prometheus' labels.Builder drops them). */
function built(b: Builder): Base {
  const names = [...b.keys()].sort(byName);
  const flat: Base = [];
  for (const n of names) {
    const v = b.get(n)!;
    if (v !== '') flat.push(n, v);
  }
  return flat;
}

function hasLabel(base: Base, name: string): boolean {
  for (let i = 0; i < base.length; i += 2) if (base[i] === name) return true;
  return false;
}

/**
 * The labels of `base` with __name__ and the extra pair set (over any of
 * the same name), sorted by name, flat: one merge, as every series of a
 * point shares its sorted base.
 */
function named(name: string, base: Base, extraName?: string, extraValue?: string): string[] {
  const adds = ['__name__', name];
  if (extraName !== undefined && extraName !== '__name__' && extraValue !== '') {
    if (byName(extraName, '__name__') < 0) adds.unshift(extraName, extraValue!);
    else adds.push(extraName, extraValue!);
  }
  const flat: string[] = [];
  let j = 0;
  for (let i = 0; i < base.length; i += 2) {
    const n = base[i]!;
    if (n === '__name__' || n === extraName) continue;
    while (j < adds.length && adds[j]! < n) {
      flat.push(adds[j]!, adds[j + 1]!);
      j += 2;
    }
    flat.push(n, base[i + 1]!);
  }
  for (; j < adds.length; j += 2) flat.push(adds[j]!, adds[j + 1]!);
  return flat;
}

function one(name: string, base: Base, timeMs: number, value: number, isStale: boolean, extraName?: string, extraValue?: string): OutSeries {
  return { labels: named(name, base, extraName, extraValue), sample: { timeMs, value, stale: isStale }, exemplars: [] };
}

/** getPromExemplars: trace_id, span_id and the filtered attributes (while short), in the order given. */
function exemplars(list: Exemplar[]): OutExemplar[] {
  if (list.length === 0) return NO_EXEMPLARS;
  const out = list.map((e) => {
    const m = new Map<string, string>();
    let runes = 0;
    if (e.traceId !== '') {
      m.set('trace_id', e.traceId);
      runes += 8 + e.traceId.length;
    }
    if (e.spanId !== '') {
      m.set('span_id', e.spanId);
      runes += 7 + e.spanId.length;
    }
    for (const a of e.attributes) runes += [...a.key].length + [...a.value].length;
    if (runes <= MAX_EXEMPLAR_RUNES) for (const a of e.attributes) m.set(a.key, a.value);
    const labels: string[] = [];
    for (const k of [...m.keys()].sort()) labels.push(k, m.get(k)!);
    return { labels, value: e.value, timeMs: e.timeMs };
  });
  return out;
}

/** Translates a request read whole, collecting what comes out. */
export function translateMetrics(request: MetricsRequest, settings: OtlpSettings): Translated {
  const series: OutSeries[] = [];
  const metadata: OutMetadata[] = [];
  const t = new Translation(settings, { series: (s) => series.push(s), metadata: (m) => metadata.push(m) });
  visitRequest(request, t);
  return { series, metadata, ...t.refusals };
}
