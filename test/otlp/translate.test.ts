// The OTLP translation's parts against Prometheus' rules: metric names as
// github.com/prometheus/otlptranslator's metric_namer_test.go expects them,
// label names as its LabelNamer builds them under Prometheus' defaults,
// and exponential histogram buckets as prometheusremotewrite's
// convertBucketsLayout lays them out.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { goFloatFixed, goFloatString } from '../../src/otlp/any-value.js';
import { nativeHistogram } from '../../src/otlp/exp-histogram.js';
import { nanosToMs, type ExpHistogramPoint } from '../../src/otlp/model.js';
import { labelName, metricName, unitName } from '../../src/otlp/names.js';
import { DEFAULT_OTLP_SETTINGS } from '../../src/otlp/settings.js';
import { translateMetrics } from '../../src/otlp/translate.js';

describe('metric names', () => {
  const cases: Array<[string, string, Parameters<typeof metricName>[2], Parameters<typeof metricName>[3], string]> = [
    ['metric@with#special$chars', '', 'gauge', 'UnderscoreEscapingWithoutSuffixes', 'metric_with_special_chars'],
    ['2xx_count', '', 'gauge', 'UnderscoreEscapingWithoutSuffixes', '_2xx_count'],
    ['requests', '', 'monotonic_counter', 'UnderscoreEscapingWithSuffixes', 'requests_total'],
    ['cpu_usage', '1', 'gauge', 'UnderscoreEscapingWithSuffixes', 'cpu_usage_ratio'],
    ['items', '1', 'monotonic_counter', 'UnderscoreEscapingWithSuffixes', 'items_total'],
    ['response_time', 'ms', 'gauge', 'UnderscoreEscapingWithSuffixes', 'response_time_milliseconds'],
    ['memory_usage', 'By', 'gauge', 'UnderscoreEscapingWithSuffixes', 'memory_usage_bytes'],
    ['requests', '1/s', 'gauge', 'UnderscoreEscapingWithSuffixes', 'requests_per_second'],
    ['throughput', 'By/s', 'gauge', 'UnderscoreEscapingWithSuffixes', 'throughput_bytes_per_second'],
    ['system.io', 'By', 'monotonic_counter', 'UnderscoreEscapingWithSuffixes', 'system_io_bytes_total'],
    ['requests_total', '', 'monotonic_counter', 'UnderscoreEscapingWithSuffixes', 'requests_total'],
    ['disk.usage', '{disk}', 'gauge', 'UnderscoreEscapingWithSuffixes', 'disk_usage'],
    ['queue.depth', 'By', 'non_monotonic_counter', 'UnderscoreEscapingWithSuffixes', 'queue_depth_bytes'],
    ['http.requests', '', 'monotonic_counter', 'NoUTF8EscapingWithSuffixes', 'http.requests_total'],
    ['http.duration', 'ms', 'histogram', 'NoUTF8EscapingWithSuffixes', 'http.duration_milliseconds'],
    ['http.requests', '', 'monotonic_counter', 'NoTranslation', 'http.requests'],
  ];
  for (const [name, unit, type, strategy, want] of cases) {
    test(`${strategy}: ${name} [${unit}] ${type} is ${want}`, () => {
      assert.equal(metricName(name, unit, type, strategy), want);
    });
  }

  test('a name that escapes to underscores only, or to nothing, is refused', () => {
    assert.ok(metricName('@#$', '', 'gauge', 'UnderscoreEscapingWithoutSuffixes') instanceof Error);
    assert.ok(metricName('', '', 'gauge', 'UnderscoreEscapingWithSuffixes') instanceof Error);
  });

  test('units as metadata carries them', () => {
    assert.equal(unitName('ms'), 'milliseconds');
    assert.equal(unitName('By/s'), 'bytes_per_second');
    assert.equal(unitName('{request}'), '');
    assert.equal(unitName('1'), '');
  });
});

describe('label names (underscore sanitization, multiple underscores kept: Prometheus defaults)', () => {
  const cases: Array<[string, string]> = [
    ['http.method', 'http_method'],
    ['_private', 'key_private'],
    ['2xx', 'key_2xx'],
    ['__reserved__', '__reserved__'],
    ['a..b', 'a__b'],
    ['ümlaut', 'key_mlaut'],
  ];
  for (const [key, want] of cases) test(`${key} is ${want}`, () => assert.equal(labelName(key, false), want));
  test('an empty key or one of underscores only is refused', () => {
    assert.ok(labelName('', false) instanceof Error);
    assert.ok(labelName('...', false) instanceof Error);
  });
});

describe('values as Go formats them', () => {
  test('le and quantile labels: FormatFloat(v, f, -1)', () => {
    assert.deepEqual([0.1, 1, 1e21, 1e-7, 2.5e-5, -3].map(goFloatFixed), ['0.1', '1', '1000000000000000000000', '0.0000001', '0.000025', '-3']);
  });
  test('double attributes: FormatFloat(v, g, -1)', () => {
    assert.deepEqual([0.5, 1e6, 123456, 1e-5, Infinity].map(goFloatString), ['0.5', '1e+06', '123456', '1e-05', '+Inf']);
  });
  test('nanoseconds to milliseconds, exactly, past 2^53', () => {
    const ns = 1_795_910_170_123_999_999n;
    const lo = Number(ns & 0xffffffffn);
    const hi = Number(ns >> 32n);
    assert.equal(nanosToMs(lo, hi), 1_795_910_170_123);
  });
});

function expPoint(scale: number, offset: number, counts: number[]): ExpHistogramPoint {
  const count = counts.reduce((a, b) => a + b, 0);
  return { attributes: [], timeMs: 1000, flags: 0, exemplars: [], count, sum: 10, scale, zeroCount: 0, zeroThreshold: 0, positive: { offset, counts }, negative: { offset: 0, counts: [] } };
}

describe('exponential histograms as native histograms', () => {
  test('OTLP bucket i of offset o is Prometheus bucket o+i+1; deltas between neighbours', () => {
    const h = nativeHistogram(expPoint(0, -1, [1, 2, 4]), false);
    assert.ok(!(h instanceof Error));
    assert.deepEqual([h.schema, h.positiveSpans, h.positiveDeltas, h.count], [0, [0, 3], [1, 1, 2], 7]);
  });
  test('more than two empty buckets start a new span', () => {
    const h = nativeHistogram(expPoint(3, 0, [1, 0, 0, 0, 1]), false);
    assert.ok(!(h instanceof Error));
    assert.deepEqual([h.positiveSpans, h.positiveDeltas], [[1, 1, 3, 1], [1, 0]]);
  });
  test('a scale above 8 is merged down to schema 8; below -4 refused', () => {
    const h = nativeHistogram(expPoint(9, 0, [1, 1, 1, 1]), false);
    assert.ok(!(h instanceof Error));
    // OTLP indexes 0..3 at scale 9 are 0, 0, 1, 1 at scale 8 (index >> 1), Prometheus buckets 1 and 2: counts 2, 2.
    assert.deepEqual([h.schema, h.positiveSpans, h.positiveDeltas], [8, [1, 2], [2, 0]]);
    assert.ok(nativeHistogram(expPoint(-5, 0, [1]), false) instanceof Error);
  });
});

describe('translation', () => {
  const resource = [{ key: 'service.name', value: 'api' }, { key: 'host.name', value: 'h1' }];
  test('promoted resource attributes, colliding attribute names joined with ;, exemplars kept', () => {
    const t = translateMetrics([{
      attributes: resource,
      scopes: [{ name: 's', version: '1', schemaUrl: '', attributes: [], metrics: [{
        name: 'hits', description: 'd', unit: '', data: { kind: 'sum', temporality: 2, monotonic: true, points: [{
          attributes: [{ key: 'a.b', value: 'x' }, { key: 'a_b', value: 'y' }], timeMs: 5, flags: 0, value: 2,
          exemplars: [{ attributes: [{ key: 'user', value: 'u' }], timeMs: 4, value: 1, traceId: 'ab', spanId: 'cd' }],
        }] },
      }] }],
    }], { ...DEFAULT_OTLP_SETTINGS, promoteResourceAttributes: ['host.name'] });
    assert.equal(t.rejected, 0);
    assert.deepEqual(t.series[0]!.labels, ['__name__', 'hits_total', 'a_b', 'x;y', 'host_name', 'h1', 'job', 'api']);
    assert.deepEqual(t.series[0]!.exemplars, [{ labels: ['span_id', 'cd', 'trace_id', 'ab', 'user', 'u'], value: 1, timeMs: 4 }]);
    assert.deepEqual(t.series[1]!.labels, ['__name__', 'target_info', 'host_name', 'h1', 'job', 'api']);
    assert.deepEqual(t.metadata[0], { type: 1, family: 'hits_total', help: 'd', unit: '' });
  });

  test('a point whose labels cannot be made: the metric\'s points before it are kept, it and the rest refused (as Prometheus\' converter)', () => {
    const point = (key: string, value: number) => ({ attributes: [{ key, value: 'v' }], timeMs: value, flags: 0, value, exemplars: [] });
    const t = translateMetrics([{
      attributes: [{ key: 'service.name', value: 'api' }],
      scopes: [{ name: 's', version: '1', schemaUrl: '', attributes: [], metrics: [{
        name: 'load', description: '', unit: '', data: { kind: 'gauge', points: [point('a', 1), point('', 2), point('b', 3)] },
      }] }],
    }], DEFAULT_OTLP_SETTINGS);
    assert.equal(t.rejected, 2);
    assert.match(t.errors[0]!, /label name is empty/);
    assert.deepEqual(t.series.filter((x) => x.labels[1] === 'load').map((x) => x.labels), [['__name__', 'load', 'a', 'v', 'job', 'api']]);
  });
});
