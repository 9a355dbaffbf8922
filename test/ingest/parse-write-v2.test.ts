// Remote write 2.0 (io.prometheus.write.v2.Request) into the same append
// batch as 1.0. The requests are built from Prometheus' own .proto by
// @bufbuild/protobuf (test/support/rw2.ts), not by anything of Strata's.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { ExemplarBatchView } from '../../src/record/exemplar-batch.js';
import { MalformedRequestError } from '../../src/errors/errors.js';
import type { ParsedWrite } from '../../src/ingest/parse/parse-write.js';
import { METRIC_TYPE, rw2Bytes, rw2Histogram, Symbols, type Rw2Series } from '../support/rw2.js';
import { bitsOf, decodeBatch, decodeHistogramBatch, parse, prometheusRequest, series } from './support.js';

const v2 = (bytes: Uint8Array, tenant?: string): ParsedWrite => parse(bytes, { dialect: 'prometheus-v2', ...(tenant === undefined ? {} : { tenant }) });

function text(bytes: Uint8Array): string[] {
  const out: string[] = [];
  let from = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0xff) continue;
    out.push(Buffer.from(bytes.subarray(from, i)).toString('utf8'));
    from = i + 1;
  }
  return out;
}

/** The exemplars of a parse, in plain values. */
function exemplarsOf(parsed: ParsedWrite): Array<{ series: string[]; labels: string[]; ts: number; value: number }> {
  if (parsed.exemplarBatch === undefined) return [];
  const v = new ExemplarBatchView(parsed.exemplarBatch);
  return Array.from({ length: v.count }, (_, i) => ({ series: text(v.seriesLabels(i)), labels: text(v.exemplarLabels(i)), ts: v.ts(i), value: v.value(i) }));
}

/** A request of `series` made with one symbols table. */
function request(build: (s: Symbols) => Rw2Series[]): Uint8Array {
  const s = new Symbols();
  const timeseries = build(s);
  return rw2Bytes({ symbols: s.table, timeseries });
}

describe('parseWriteRequest, remote write 2.0: series into the append batch', () => {
  test('builds the batch 1.0 builds for the same series, byte for byte', () => {
    const input: Array<[string[], Array<[bigint, number]>]> = [
      [['__name__', 'up', 'instance', 'a:9100', 'job', 'node'], [[1000n, 1], [2000n, 0]]],
      [['__name__', 'node_load1', 'instance', 'b:9100'], [[1500n, 0.25]]],
      [['__name__', 'é', 'tenant_id', 'spoofed'], [[-7n, 0.5]]],
    ];
    const bytes = request((s) => input.map(([labels, samples]) => ({
      labelsRefs: s.refs(...labels),
      samples: samples.map(([timestamp, value]) => ({ value, timestamp })),
    })));
    const fromV2 = v2(bytes, 'acme');
    const fromV1 = parse(prometheusRequest(input.map(([labels, samples]) => series(labels, samples))), { dialect: 'prometheus', tenant: 'acme' });
    assert.deepEqual(new Uint8Array(fromV2.batch), new Uint8Array(fromV1.batch));
    assert.equal(fromV2.samples, 4);
    assert.equal(fromV2.series, 3);
    assert.equal(fromV2.tenant, 'acme');
    assert.equal(fromV2.replica, 0);
    assert.deepEqual(decodeBatch(fromV2.batch)[0]!.labels, ['__name__', 'up', 'instance', 'a:9100', 'job', 'node', 'tenant_id', 'acme']);
  });

  test('Prometheus\' own 2.0 fixture: start timestamps read and not stored, histograms refused, exemplars and the last metadata kept', () => {
    // The shape of storage/remote/codec_test.go's writeV2RequestFixture: one
    // series sent twice (gauge metadata, then counter), each with a sample,
    // an exemplar and native histograms.
    const s = new Symbols();
    const labels = s.refs('__name__', 'test_metric1', 'b', 'c', 'baz', 'qux', 'd', 'e', 'foo', 'bar');
    const timeseries: Rw2Series[] = [
      {
        labelsRefs: labels,
        metadata: { type: METRIC_TYPE.gauge, helpRef: s.ref('Test gauge for test purposes'), unitRef: s.ref('Maybe op/sec who knows (:') },
        samples: [{ value: 1, timestamp: 10n, startTimestamp: 1n }],
        exemplars: [{ labelsRefs: s.refs('f', 'g'), value: 1, timestamp: 10n }],
        histograms: [rw2Histogram(10n), rw2Histogram(20n)],
      },
      {
        labelsRefs: labels,
        metadata: { type: METRIC_TYPE.counter, helpRef: s.ref('Test counter for test purposes') },
        samples: [{ value: 2, timestamp: 20n }],
        exemplars: [{ labelsRefs: s.refs('h', 'i'), value: 2, timestamp: 20n }],
        histograms: [rw2Histogram(50n)],
      },
    ];
    const parsed = v2(rw2Bytes({ symbols: s.table, timeseries }));
    const entries = decodeBatch(parsed.batch);
    assert.deepEqual(entries.map((e) => e.timestamps), [[10n], [20n]]);
    assert.deepEqual(entries.map((e) => e.valueBits), [[bitsOf(1)], [bitsOf(2)]]);
    assert.equal(parsed.histogramSamples, 3);
    assert.equal(parsed.invalidHistograms, 0);
    assert.deepEqual(decodeHistogramBatch(parsed.histogramBatch!).map((e) => e.t), [[10, 20], [50]]);
    assert.equal(parsed.exemplars, 2);
    const series0 = ['__name__', 'test_metric1', 'b', 'c', 'baz', 'qux', 'd', 'e', 'foo', 'bar', 'tenant_id', 'default-tenant'];
    assert.deepEqual(exemplarsOf(parsed), [
      { series: series0, labels: ['f', 'g'], ts: 10, value: 1 },
      { series: series0, labels: ['h', 'i'], ts: 20, value: 2 },
    ]);
    assert.deepEqual(parsed.metadata, [{ family: 'test_metric1', type: 'counter', help: 'Test counter for test purposes', unit: '' }]);
    assert.equal(parsed.invalidSeries, 0);
  });

  test('a 1.0 WriteRequest read as 2.0 is an empty message (the specification\'s note on reserved fields 1 to 3)', () => {
    const parsed = v2(prometheusRequest([series(['__name__', 'up'], [[1n, 1]])]));
    assert.equal(parsed.series, 0);
    assert.equal(parsed.samples, 0);
    assert.equal(decodeBatch(parsed.batch).length, 0);
  });

  test('labels_refs may come unpacked, and fields in any order (symbols after the series)', () => {
    const w = new BinaryWriter();
    w.tag(5, WireType.LengthDelimited).fork();
    w.tag(2, WireType.LengthDelimited).fork().tag(1, WireType.Bit64).double(7).tag(2, WireType.Varint).int64(99n).join();
    for (const ref of [1, 2]) w.tag(1, WireType.Varint).uint32(ref);
    w.tag(6, WireType.Varint).int64(5n); // reserved 6: rc.3's created_timestamp, skipped
    w.join();
    for (const sym of ['', '__name__', 'late']) w.tag(4, WireType.LengthDelimited).string(sym);
    const parsed = v2(w.finish());
    assert.deepEqual(decodeBatch(parsed.batch).map((e) => [e.labels, e.timestamps]), [[['__name__', 'late', 'tenant_id', 'default-tenant'], [99n]]]);
  });

  test('the stale marker\'s bits survive', () => {
    const w = new BinaryWriter();
    for (const sym of ['', '__name__', 'gone']) w.tag(4, WireType.LengthDelimited).string(sym);
    w.tag(5, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).fork().uint32(1).uint32(2).join();
    w.tag(2, WireType.LengthDelimited).fork().tag(1, WireType.Bit64).fixed64(0x7ff0000000000002n).tag(2, WireType.Varint).int64(5n).join();
    w.join();
    assert.deepEqual(decodeBatch(v2(w.finish()).batch)[0]!.valueBits, [0x7ff0000000000002n]);
  });
});

describe('parseWriteRequest, remote write 2.0: what the specification refuses', () => {
  test('a symbols table not starting with the empty string is a malformed request', () => {
    const bytes = rw2Bytes({ symbols: ['__name__', 'up'], timeseries: [{ labelsRefs: [0, 1], samples: [{ value: 1, timestamp: 1n }] }] });
    assert.throws(() => v2(bytes), (e: unknown) => e instanceof MalformedRequestError && /symbols\[0\] must be the empty string/.test(e.message));
  });

  test('references outside the symbols table, or an odd number of them, refuse the series; the others are written', () => {
    const bytes = request((s) => [
      { labelsRefs: [...s.refs('__name__', 'ok')], samples: [{ value: 1, timestamp: 1n }] },
      { labelsRefs: [s.ref('__name__'), 99], samples: [{ value: 1, timestamp: 1n }] },
      { labelsRefs: [s.ref('__name__')], samples: [{ value: 1, timestamp: 1n }] },
    ]);
    const parsed = v2(bytes);
    assert.equal(parsed.invalidSeries, 2);
    assert.match(parsed.firstInvalid!, /^series 1 \(labels_refs \[1, 99\]\): labels_refs element 99 is outside the symbols table \(size 3\)$/);
    assert.deepEqual(decodeBatch(parsed.batch).map((e) => e.labels[1]), ['ok']);
  });

  test('label sets follow 1.0\'s rules: empty value, duplicate or unsorted names refuse the series', () => {
    for (const [labels, why] of [
      [['__name__', 'x', 'job', ''], /empty value for label "job"/],
      [['__name__', 'x', 'b', '1', 'a', '2'], /label names not sorted \("b" before "a"\)/],
      [['__name__', 'x', 'a', '1', 'a', '2'], /duplicate label name "a"/],
    ] as const) {
      const parsed = v2(request((s) => [{ labelsRefs: s.refs(...labels), samples: [{ value: 1, timestamp: 1n }] }]));
      assert.equal(parsed.invalidSeries, 1, labels.join());
      assert.match(parsed.firstInvalid!, why);
      assert.equal(parsed.samples, 0);
    }
    const none = v2(rw2Bytes({ symbols: [''], timeseries: [{ labelsRefs: [], samples: [{ value: 1, timestamp: 1n }] }] }));
    assert.equal(none.invalidSeries, 1);
    assert.match(none.firstInvalid!, /no labels/);
  });

  test('metadata references outside the symbols table refuse the series (as Prometheus)', () => {
    const parsed = v2(request((s) => [{ labelsRefs: s.refs('__name__', 'm'), metadata: { type: METRIC_TYPE.gauge, helpRef: 40 }, samples: [{ value: 1, timestamp: 1n }] }]));
    assert.equal(parsed.invalidSeries, 1);
    assert.match(parsed.firstInvalid!, /metadata help_ref 40 outside the symbols table \(size 3\)/);
    assert.equal(parsed.samples, 0);
    assert.equal(parsed.metadata, undefined);
  });

  test('a series with neither samples nor histograms is refused (emptySeries), its exemplars too', () => {
    const parsed = v2(request((s) => [
      { labelsRefs: s.refs('__name__', 'only_exemplars'), exemplars: [{ labelsRefs: s.refs('trace_id', 'a'), value: 1, timestamp: 1n }] },
      { labelsRefs: s.refs('__name__', 'fine'), samples: [{ value: 1, timestamp: 1n }] },
    ]));
    assert.equal(parsed.emptySeries, 1);
    assert.equal(parsed.firstEmpty, 'series 0 {__name__="only_exemplars"}: neither samples nor histograms');
    assert.equal(parsed.exemplarBatch, undefined);
    assert.equal(parsed.samples, 1);
  });

  test('an exemplar with invalid references is refused; its series and the other exemplars are written', () => {
    const parsed = v2(request((s) => [{
      labelsRefs: s.refs('__name__', 'm'),
      samples: [{ value: 1, timestamp: 5n }],
      exemplars: [
        { labelsRefs: [s.ref('trace_id'), 77], value: 1, timestamp: 5n },
        { labelsRefs: [s.ref('trace_id')], value: 1, timestamp: 5n },
        { labelsRefs: s.refs('trace_id', 'ok', 'span_id', ''), value: 2, timestamp: 6n },
      ],
    }]));
    assert.equal(parsed.invalidExemplars, 2);
    assert.match(parsed.firstInvalidExemplar!, /^series 0 \{__name__="m"\}: exemplar labels_refs element 77 is outside the symbols table/);
    assert.equal(parsed.samples, 1);
    assert.deepEqual(exemplarsOf(parsed).map((e) => [e.labels, e.value, e.ts]), [[['trace_id', 'ok'], 2, 6]], 'labels with an empty value are left out');
  });

  test('exemplar labels are sorted', () => {
    const parsed = v2(request((s) => [{
      labelsRefs: s.refs('__name__', 'm'),
      samples: [{ value: 1, timestamp: 5n }],
      exemplars: [{ labelsRefs: s.refs('trace_id', 't', 'span_id', 's', 'a', 'x'), value: 1, timestamp: 5n }],
    }]));
    assert.deepEqual(exemplarsOf(parsed)[0]!.labels, ['a', 'x', 'span_id', 's', 'trace_id', 't']);
  });

  test('metadata with nothing in it, or of a series without __name__, is not kept', () => {
    const parsed = v2(request((s) => [
      { labelsRefs: s.refs('__name__', 'a'), metadata: { type: METRIC_TYPE.unspecified }, samples: [{ value: 1, timestamp: 1n }] },
      { labelsRefs: s.refs('job', 'x'), metadata: { type: METRIC_TYPE.gauge }, samples: [{ value: 1, timestamp: 1n }] },
      { labelsRefs: s.refs('__name__', 'b'), metadata: { unitRef: s.ref('seconds') }, samples: [{ value: 1, timestamp: 1n }] },
    ]));
    assert.deepEqual(parsed.metadata, [{ family: 'b', type: 'unknown', help: '', unit: 'seconds' }]);
  });

  test('known fields with the wrong wire type are malformed, as the generated parsers read them', () => {
    const w = new BinaryWriter();
    w.tag(4, WireType.Varint).uint32(3);
    assert.throws(() => v2(w.finish()), /Request field 4 has wire type varint, expected length-delimited/);
    const t = new BinaryWriter();
    t.tag(5, WireType.LengthDelimited).fork().tag(2, WireType.Varint).uint32(1).join();
    assert.throws(() => v2(t.finish()), /TimeSeries field 2 has wire type varint, expected length-delimited/);
  });
});
