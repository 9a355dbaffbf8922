// The protobuf path of the OTLP translation (proto-reader.ts read metric
// by metric, number points' attributes read from the body only when
// their series is not known), checked on the series it makes: a point
// sent again, a point whose attributes are not one run of fields, and
// bodies that do not decode. Expected labels are written from Prometheus'
// rules. test/ingest/otlp-batch.test.ts checks the known series' path.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ExportMetricsServiceRequest } from '../../src/gen/opentelemetry/proto/collector/metrics/v1/metrics_service.js';
import { MalformedRequestError } from '../../src/errors/errors.js';
import { translateOtlpBody } from '../../src/otlp/otlp-body.js';
import type { OutSeries } from '../../src/otlp/translated.js';
import { DEFAULT_OTLP_SETTINGS } from '../../src/otlp/settings.js';

const T_MS = 1_700_000_000_000;
const body = { format: 'protobuf', gzip: false, maxDecodedBytes: 1 << 20, settings: DEFAULT_OTLP_SETTINGS } as const;

const str = (key: string, value: string) => ({ key, value: { value: { $case: 'stringValue', value } } });

/** A request of one resource (service.name = `job`) with one gauge `name` of points with these attributes. */
function request(job: string, name: string, points: Array<Array<ReturnType<typeof str>>>): Uint8Array {
  const partial = { resourceMetrics: [{
    resource: { attributes: [str('service.name', job)] },
    scopeMetrics: [{ metrics: [{ name, data: { $case: 'gauge', value: { dataPoints: points.map((attributes, i) => ({
      attributes, timeUnixNano: BigInt(T_MS + i) * 1_000_000n, value: { $case: 'asDouble', value: i + 0.5 },
    })) } } }] }],
  }] };
  // Cast: the generated DeepPartial/Exact types do not narrow the oneofs of a literal built apart from the call.
  return ExportMetricsServiceRequest.encode(ExportMetricsServiceRequest.fromPartial(partial as unknown as Parameters<typeof ExportMetricsServiceRequest.fromPartial>[0])).finish();
}

/** The series translated from `bytes` (no series known): labels as name=value, and the samples. */
function written(bytes: Uint8Array): Array<{ labels: string; samples: Array<[number, number]> }> {
  const series: OutSeries[] = [];
  translateOtlpBody(bytes, body, { series: (s) => series.push(s), metadata: () => {} });
  return series.map((ts) => {
    const labels: string[] = [];
    for (let i = 0; i < ts.labels.length; i += 2) labels.push(`${ts.labels[i]}=${ts.labels[i + 1]}`);
    return { labels: labels.join(','), samples: ts.sample === undefined ? [] : [[ts.sample.timeMs, ts.sample.value] as [number, number]] };
  });
}

describe('OTLP protobuf translation', () => {
  test('a point sent again is translated to the same labels', () => {
    const bytes = request('api', 'queue.depth', [[str('b.x', '1'), str('a', '2')], [str('a', '3')]]);
    const expected = [
      { labels: '__name__=queue_depth,a=2,b_x=1,job=api', samples: [[T_MS, 0.5]] },
      { labels: '__name__=queue_depth,a=3,job=api', samples: [[T_MS + 1, 1.5]] },
    ];
    assert.deepEqual(written(bytes), expected);
    assert.deepEqual(written(bytes), expected);
  });

  test('the same attribute bytes under another resource or metric take that resource\'s job and that name', () => {
    const attrs = [[str('k', 'v')]];
    assert.deepEqual(written(request('one', 'm', attrs)).map((s) => s.labels), ['__name__=m,job=one,k=v']);
    assert.deepEqual(written(request('two', 'm', attrs)).map((s) => s.labels), ['__name__=m,job=two,k=v']);
    assert.deepEqual(written(request('one', 'n', attrs)).map((s) => s.labels), ['__name__=n,job=one,k=v']);
  });

  test('attributes that are not one run of fields (a field between them) are all kept', () => {
    const bytes = request('api', 'split', [[str('z', '1'), str('a', '2')]]);
    // Move the point's time field (fixed64, field 3: tag 0x19) between its two attribute fields (field 7: tag 0x3a).
    const time = bytes.indexOf(0x19);
    const firstAttr = bytes.indexOf(0x3a);
    assert.ok(firstAttr > 0 && time > firstAttr, 'attributes come before the time, as the generated encoder writes them');
    const attrLen = 2 + bytes[firstAttr + 1]!;
    const moved = Uint8Array.from([
      ...bytes.subarray(0, firstAttr + attrLen),
      ...bytes.subarray(time, time + 9),
      ...bytes.subarray(firstAttr + attrLen, time),
      ...bytes.subarray(time + 9),
    ]);
    assert.equal(moved.length, bytes.length);
    assert.deepEqual(written(moved), [{ labels: '__name__=split,a=2,job=api,z=1', samples: [[T_MS, 0.5]] }]);
  });

  test('integer values, start times, flags and long attributes are read as the general reader reads them', () => {
    const long = 'x'.repeat(300);
    const bytes = ExportMetricsServiceRequest.encode(ExportMetricsServiceRequest.fromPartial({ resourceMetrics: [{
      resource: { attributes: [str('service.name', 'api')] },
      scopeMetrics: [{ metrics: [{ name: 'ints', data: { $case: 'gauge', value: { dataPoints: [
        { attributes: [str('a', '1')], startTimeUnixNano: BigInt(T_MS - 5) * 1_000_000n, timeUnixNano: BigInt(T_MS) * 1_000_000n + 999_999n, value: { $case: 'asInt', value: -(2n ** 40n) - 3n } },
        { attributes: [str('a', '2'), str('long', long)], timeUnixNano: BigInt(T_MS + 1) * 1_000_000n, value: { $case: 'asInt', value: 7n } },
        { attributes: [str('a', '3')], timeUnixNano: BigInt(T_MS + 2) * 1_000_000n, flags: 1 },
      ] } } }] }],
    }] } as unknown as Parameters<typeof ExportMetricsServiceRequest.fromPartial>[0])).finish();
    const series: OutSeries[] = [];
    translateOtlpBody(bytes, body, { series: (x) => series.push(x), metadata: () => {} });
    assert.deepEqual(series.map((x) => [x.labels.join(','), x.sample]), [
      ['__name__,ints,a,1,job,api', { timeMs: T_MS, value: -(2 ** 40) - 3, stale: false }],
      [`__name__,ints,a,2,job,api,long,${long}`, { timeMs: T_MS + 1, value: 7, stale: false }],
      ['__name__,ints,a,3,job,api', { timeMs: T_MS + 2, value: 0, stale: true }],
    ]);
  });

  test('an attribute key that is not UTF-8 is a malformed body (400) at its offset, not a refused point', () => {
    const bytes = request('api', 'bad', [[str('kk', 'v')]]);
    const key = Buffer.from(bytes).indexOf('kk');
    const bad = Uint8Array.from(bytes);
    bad[key] = 0xff;
    // The offset is the key's in the body (attributes are read from the body where they are).
    assert.throws(() => written(bad), (err) => err instanceof MalformedRequestError && /not valid UTF-8/.test(err.message) && err.offset === key);
  });
});
