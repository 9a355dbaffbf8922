/**
 * OTLP metrics as Prometheus series, as Prometheus 3's OTLP receiver
 * translates them (storage/remote/otlptranslator/prometheusremotewrite in
 * prometheus/prometheus: metrics_to_prw.go, helper.go,
 * number_data_points.go, histograms.go); docs/format/otlp.md lists the
 * rules. Delta temporality is refused (Prometheus' default, without
 * otlp-deltatocumulative), counted in `rejected` and stored not at all.
 */
import { goFloatFixed } from './any-value.js';
import { nativeHistogram } from './exp-histogram.js';
import type { Attribute, Exemplar, Metric, MetricsRequest, ResourceMetrics, ScopeMetrics } from './model.js';
import { NO_RECORDED_VALUE, TEMPORALITY } from './model.js';
import { labelName, metricName, unitName, type NamerType } from './names.js';
import type { OtlpSettings } from './settings.js';
import { METRIC_TYPE, type OutExemplar, type OutSeries, type Translated } from './translated.js';

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

/** What one resource's series all share. */
interface ResourceContext {
  job: string;
  instance: string;
  promoted: Builder;
  scope: Builder | undefined;
}

class Translation {
  readonly out: Translated = { series: [], metadata: [], rejected: 0, errors: [] };
  private readonly utf8: boolean;

  constructor(private readonly settings: OtlpSettings) {
    this.utf8 = !settings.translationStrategy.startsWith('UnderscoreEscaping');
  }

  fail(points: number, message: string): void {
    this.out.rejected += points;
    if (this.out.errors.length < MAX_ERRORS) this.out.errors.push(message);
  }

  private label(key: string): string {
    const n = labelName(key, this.utf8);
    if (n instanceof Error) throw n;
    return n;
  }

  resource(rm: ResourceMetrics): void {
    const attrs = new Map(rm.attributes.map((a) => [a.key, a.value]));
    const name = attrs.get(SERVICE_NAME);
    const ns = attrs.get(SERVICE_NAMESPACE);
    const ctx: ResourceContext = {
      job: name === undefined ? '' : ns === undefined ? name : `${ns}/${name}`,
      instance: attrs.get(SERVICE_INSTANCE_ID) ?? '',
      promoted: new Map(),
      scope: undefined,
    };
    const s = this.settings;
    try {
      for (const a of rm.attributes) {
        const listed = (s.promoteAllResourceAttributes ? s.ignoreResourceAttributes : s.promoteResourceAttributes).includes(a.key);
        if (listed !== s.promoteAllResourceAttributes) ctx.promoted.set(this.label(a.key), a.value);
      }
    } catch (err) {
      this.fail(countPoints(rm), (err as Error).message);
      return;
    }
    let earliest = Infinity;
    let latest = -Infinity;
    for (const scope of rm.scopes) {
      ctx.scope = s.promoteScopeMetadata ? this.scopeLabels(scope) : undefined;
      for (const m of scope.metrics) {
        for (const p of m.data.kind === 'none' ? [] : m.data.points) {
          earliest = Math.min(earliest, p.timeMs);
          latest = Math.max(latest, p.timeMs);
        }
        try {
          this.metric(m, ctx);
        } catch (err) {
          this.fail(m.data.kind === 'none' ? 0 : m.data.points.length, (err as Error).message);
        }
      }
    }
    if (earliest !== Infinity) this.targetInfo(rm.attributes, ctx, earliest, latest);
  }

  private scopeLabels(scope: ScopeMetrics): Builder {
    const b: Builder = new Map();
    for (const a of scope.attributes) b.set(this.label(a.key), a.value);
    b.set('otel_scope_name', scope.name);
    b.set('otel_scope_version', scope.version);
    b.set('otel_scope_schema_url', scope.schemaUrl);
    return b;
  }

  /** createAttributes: point attributes (colliding names joined with ';'), promoted, job, instance, scope. */
  private attributes(attrs: Attribute[], ctx: ResourceContext, ignore: readonly string[] = RESERVED): Builder {
    const sorted = attrs.filter((a) => !ignore.includes(a.key)).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
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
    return b;
  }

  private metric(m: Metric, ctx: ResourceContext): void {
    const d = m.data;
    if (d.kind === 'none' || d.points.length === 0) return;
    if ('temporality' in d && d.temporality !== TEMPORALITY.cumulative) {
      this.fail(d.points.length, `invalid temporality and type combination for metric ${JSON.stringify(m.name)}`);
      return;
    }
    const type: NamerType = d.kind === 'sum' ? (d.monotonic ? 'monotonic_counter' : 'non_monotonic_counter') : d.kind;
    const family = metricName(m.name, m.unit, type, this.settings.translationStrategy);
    if (family instanceof Error) throw family;
    const promType =
      d.kind === 'gauge' ? METRIC_TYPE.gauge
      : d.kind === 'sum' ? (d.monotonic ? METRIC_TYPE.counter : METRIC_TYPE.gauge)
      : d.kind === 'summary' ? METRIC_TYPE.summary
      : METRIC_TYPE.histogram;
    this.out.metadata.push({ type: promType, family, help: m.description, unit: unitName(m.unit) });
    const series = this.out.series;
    switch (d.kind) {
      case 'gauge':
      case 'sum':
        for (const p of d.points) {
          const base = this.attributes(p.attributes, ctx);
          series.push({ labels: named(family, base), sample: { timeMs: p.timeMs, value: p.value, stale: stale(p.flags) }, exemplars: exemplars(p.exemplars) });
        }
        return;
      case 'summary':
        for (const p of d.points) {
          const base = this.attributes(p.attributes, ctx);
          const s = stale(p.flags);
          series.push(one(`${family}_sum`, base, p.timeMs, p.sum, s));
          series.push(one(`${family}_count`, base, p.timeMs, p.count, s));
          for (const q of p.quantiles) series.push(one(family, base, p.timeMs, q.value, s, 'quantile', goFloatFixed(q.quantile)));
        }
        return;
      case 'histogram':
        for (const p of d.points) {
          const base = this.attributes(p.attributes, ctx);
          const s = stale(p.flags);
          if (p.sum !== undefined) series.push(one(`${family}_sum`, base, p.timeMs, p.sum, s));
          series.push(one(`${family}_count`, base, p.timeMs, p.count, s));
          const ex = exemplars(p.exemplars);
          let next = 0;
          let cumulative = 0;
          for (let i = 0; i < p.bounds.length && i < p.bucketCounts.length; i++) {
            const bound = p.bounds[i]!;
            cumulative += p.bucketCounts[i]!;
            const bucket = one(`${family}_bucket`, base, p.timeMs, cumulative, s, 'le', goFloatFixed(bound));
            // As Prometheus: exemplars in the order given, each to this bucket while its value is within the bound.
            while (next < ex.length && ex[next]!.value <= bound) bucket.exemplars.push(ex[next++]!);
            series.push(bucket);
          }
          const inf = one(`${family}_bucket`, base, p.timeMs, p.count, s, 'le', '+Inf');
          inf.exemplars.push(...ex.slice(next));
          series.push(inf);
        }
        return;
      case 'exponential_histogram':
        for (const p of d.points) {
          const h = nativeHistogram(p, false);
          if (h instanceof Error) {
            this.fail(1, h.message);
            continue;
          }
          const base = this.attributes(p.attributes, ctx);
          series.push({ labels: named(family, base), histogram: h, exemplars: exemplars(p.exemplars) });
        }
        return;
    }
  }

  /** addResourceTargetInfo: the non-identifying resource attributes as target_info = 1. */
  private targetInfo(attrs: Attribute[], ctx: ResourceContext, earliest: number, latest: number): void {
    const identifying = [SERVICE_NAMESPACE, SERVICE_NAME, SERVICE_INSTANCE_ID];
    if (attrs.filter((a) => !identifying.includes(a.key)).length === 0) return;
    const keep = this.settings.keepIdentifyingResourceAttributes;
    let base: Builder;
    try {
      base = this.attributes(attrs, { ...ctx, promoted: new Map(), scope: undefined }, keep ? [] : identifying);
    } catch (err) {
      this.fail(0, (err as Error).message);
      return;
    }
    if (!base.has('job') && !base.has('instance')) return;
    this.out.metadata.push({ type: METRIC_TYPE.gauge, family: 'target_info', help: 'Target metadata', unit: '' });
    const times = new Set<number>();
    for (let t = earliest; t < latest; t += TARGET_INFO_INTERVAL_MS) times.add(t);
    times.add(latest);
    for (const t of times) this.out.series.push(one('target_info', base, t, 1, false));
  }
}

const stale = (flags: number): boolean => (flags & NO_RECORDED_VALUE) !== 0;

/** The labels of `base` with __name__ and the extra pair, sorted by name, flat. */
function named(name: string, base: Builder, extraName?: string, extraValue?: string): string[] {
  const all = new Map(base);
  if (extraName !== undefined) all.set(extraName, extraValue!);
  all.set('__name__', name);
  const names = [...all.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const flat: string[] = [];
  for (const n of names) {
    const v = all.get(n)!;
    // An empty value is no label (Prometheus' labels.Builder drops it).
    if (v !== '') flat.push(n, v);
  }
  return flat;
}

function one(name: string, base: Builder, timeMs: number, value: number, isStale: boolean, extraName?: string, extraValue?: string): OutSeries {
  return { labels: named(name, base, extraName, extraValue), sample: { timeMs, value, stale: isStale }, exemplars: [] };
}

/** getPromExemplars: trace_id, span_id and the filtered attributes (while short), in the order given. */
function exemplars(list: Exemplar[]): OutExemplar[] {
  if (list.length === 0) return [];
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

function countPoints(rm: ResourceMetrics): number {
  let n = 0;
  for (const s of rm.scopes) for (const m of s.metrics) n += m.data.kind === 'none' ? 0 : m.data.points.length;
  return n;
}

/** Translates a request; refusals are counted, never thrown. */
export function translateMetrics(request: MetricsRequest, settings: OtlpSettings): Translated {
  const t = new Translation(settings);
  for (const rm of request) t.resource(rm);
  return t.out;
}
