import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import xxhash from 'xxhash-wasm';
import { ExemplarBatchView } from '../../src/record/exemplar-batch.js';
import { WriteRequest as PrometheusWriteRequest } from '../../src/gen/prometheus/remote.js';
import { MetricMetadata_MetricType } from '../../src/gen/prometheus/types.js';
import { MalformedRequestError } from '../../src/errors/errors.js';
import { batchBuilder } from '../support/db.js';
import {
  batchBytes,
  bitsOf, decodeBatch, decodeHistogramBatch, histogram, parse, prometheusRequest, rawSeries, requestOf, series, thanosRequest,
} from './support.js';
import { writeRequestTenant } from '../../src/ingest/parse/parse-write.js';

const STALE = 0x7ff0000000000002n;

describe('parseWriteRequest: series into an append batch', () => {
  test('writes each valid series as one entry: labels with the tenant label, timestamps, value bits', () => {
    const bytes = thanosRequest([
      series(['__name__', 'up', 'instance', 'a:9100', 'job', 'node'], [[1000n, 1], [2000n, 0]]),
      series(['__name__', 'node_load1', 'instance', 'b:9100'], [[1500n, 0.25]]),
    ], 'acme');
    const parsed = parse(bytes);
    const entries = decodeBatch(parsed.batch);
    assert.equal(entries.length, 2);
    assert.deepEqual(entries[0]!.labels, ['__name__', 'up', 'instance', 'a:9100', 'job', 'node', 'tenant_id', 'acme']);
    assert.deepEqual(entries[0]!.timestamps, [1000n, 2000n]);
    assert.deepEqual(entries[0]!.valueBits, [bitsOf(1), bitsOf(0)]);
    assert.deepEqual(entries[1]!.labels, ['__name__', 'node_load1', 'instance', 'b:9100', 'tenant_id', 'acme']);
    assert.deepEqual(entries[1]!.timestamps, [1500n]);
    assert.deepEqual(entries[1]!.valueBits, [bitsOf(0.25)]);
    assert.equal(entries[0]!.ref, 0, 'series are known by their labels, not by id');
    assert.equal(parsed.series, 2);
    assert.equal(parsed.samples, 3);
    assert.equal(parsed.invalidSeries, 0);
    assert.equal(parsed.firstInvalid, undefined);
    assert.equal(parsed.tenant, 'acme');
  });

  test('builds, byte for byte, the batch AppendBatchBuilder builds with the tenant label', () => {
    const input: [string[], [bigint, number][]][] = [
      [['__name__', 'up', 'job', 'a', 'zone', 'z'], [[1000n, 1], [2000n, 2]]],
      [['__name__', 'x', 'tenant_id', 'spoofed'], [[-7n, 0.5]]],
    ];
    const b = batchBuilder(['tenant_id', 'acme']);
    for (const [labels, samples] of input) {
      const written = labels.slice();
      const at = written.indexOf('tenant_id');
      if (at >= 0) written.splice(at, 2);
      b.add(written, BigInt64Array.from(samples, ([t]) => t), Float64Array.from(samples, ([, v]) => v));
    }
    const parsed = parse(thanosRequest(input.map(([labels, samples]) => series(labels, samples)), 'acme'));
    assert.deepEqual(batchBytes(parsed.batch), new Uint8Array(b.finish()));
  });

  test('writes the label bytes in canonical form, name 0xFF value 0xFF', () => {
    const [e] = decodeBatch(parse(thanosRequest([series(['a', 'xy'])], 't')).batch);
    assert.deepEqual([...e!.labelBytes], [0x61, 0xff, 0x78, 0x79, 0xff, ...Buffer.from('tenant_id'), 0xff, 0x74, 0xff]);
  });

  test('keeps timestamps exactly: negative, zero, ±2^62 and the int64 extremes', () => {
    const times = [-1n, -1000n, 0n, 1n, 1_700_000_000_000n, 2n ** 62n, -(2n ** 62n), 2n ** 63n - 1n, -(2n ** 63n), 2n ** 31n, -(2n ** 31n), 2n ** 32n];
    const [e] = decodeBatch(parse(thanosRequest([series(['a', '1'], times.map((t) => [t, 1]))])).batch);
    assert.deepEqual(e!.timestamps, times);
  });

  test('keeps value bits exactly: the stale marker, other NaN payloads, -0 and infinities', () => {
    const bits = [STALE, 0x7ff8000000000001n, 0xfff0000000000001n, 0x7ff8000000000000n, 0x8000000000000000n,
      bitsOf(Infinity), bitsOf(-Infinity), bitsOf(Number.MIN_VALUE), bitsOf(-123.456), 0n];
    const bytes = requestOf([rawSeries(['a', '1'], bits.map((b, i) => [BigInt(i), b]))]);
    const [e] = decodeBatch(parse(bytes).batch);
    assert.deepEqual(e!.valueBits, bits);
  });

  test("fills each entry's hash with the xxHash64 (seed 0) of its label bytes", async () => {
    const { h64Raw } = await xxhash();
    const bytes = thanosRequest([series(['__name__', 'up', 'job', 'a']), series(['__name__', 'up', 'job', 'b']), series(['x', 'é'])]);
    const entries = decodeBatch(parse(bytes).batch);
    assert.equal(entries.length, 3);
    for (const e of entries) assert.equal(e.hash, h64Raw(e.labelBytes, 0n));
  });

  test('counts series and samples; a series with no float samples gets no entry', () => {
    const parsed = parse(thanosRequest([series(['a', '1'], []), series(['a', '2'], [[1n, 1], [2n, 2]])]));
    assert.equal(parsed.series, 2);
    assert.equal(parsed.samples, 2);
    assert.deepEqual(decodeBatch(parsed.batch).map((e) => e.labels[1]), ['2']);
  });

  test('an empty request is an empty batch', () => {
    const parsed = parse(new Uint8Array(0));
    assert.deepEqual(decodeBatch(parsed.batch), []);
    assert.equal(parsed.series, 0);
    assert.equal(parsed.tenant, 'default-tenant');
  });

  test('keeps the same series given twice as two entries (the head merges them)', () => {
    const parsed = parse(thanosRequest([series(['a', '1'], [[1n, 1]]), series(['a', '1'], [[2n, 2]])]));
    const entries = decodeBatch(parsed.batch);
    assert.equal(entries.length, 2);
    assert.equal(entries[0]!.hash, entries[1]!.hash);
  });

  test('reads many series with long and multi-byte labels (lengths past one byte, scratch growth)', () => {
    const long = 'v'.repeat(300);
    const input = Array.from({ length: 3000 }, (_, i) =>
      series(['__name__', `m${i % 7}`, 'long', `${long}${i}`, 'ünï', 'çødé ✓ 😀'], [[BigInt(i), i], [BigInt(i) + 1n, -i - 0.5]]));
    const parsed = parse(thanosRequest(input, 'tenant-ü'));
    const entries = decodeBatch(parsed.batch);
    assert.equal(entries.length, 3000);
    assert.equal(parsed.samples, 6000);
    entries.forEach((e, i) => {
      assert.deepEqual(e.labels, ['__name__', `m${i % 7}`, 'long', `${long}${i}`, 'tenant_id', 'tenant-ü', 'ünï', 'çødé ✓ 😀']);
      assert.deepEqual(e.timestamps, [BigInt(i), BigInt(i) + 1n]);
      assert.deepEqual(e.valueBits, [bitsOf(i), bitsOf(-i - 0.5)]);
    });
  });

  test('a request parsed after a malformed one is not affected by it', () => {
    const good = thanosRequest([series(['a', '1'], [[5n, 5]])]);
    const bad = thanosRequest([series(['b', '2'], [[6n, 6], [7n, 7]]), series(['c', '3'])]);
    assert.throws(() => parse(bad.subarray(0, bad.length - 3)), MalformedRequestError);
    const entries = decodeBatch(parse(good).batch);
    assert.equal(entries.length, 1);
    assert.deepEqual(entries[0]!.labels, ['a', '1', 'tenant_id', 'default-tenant']);
    assert.deepEqual(entries[0]!.timestamps, [5n]);
  });

  test('returns a batch of its own each time (not a view of reused scratch)', () => {
    const a = parse(thanosRequest([series(['a', '1'])]));
    const b = parse(thanosRequest([series(['b', '2'])]));
    assert.notEqual(a.batch, b.batch);
    assert.deepEqual(decodeBatch(a.batch)[0]!.labels.slice(0, 2), ['a', '1']);
  });
});

describe('parseWriteRequest: tenants', () => {
  const one = [series(['a', '1'])];
  const tenantLabelOf = (bytes: Uint8Array, opts = {}) => decodeBatch(parse(bytes, opts).batch)[0]!.labels;

  test('takes the tenant from the thanos tenant field', () => {
    const parsed = parse(thanosRequest(one, 'team-a'));
    assert.equal(parsed.tenant, 'team-a');
    assert.deepEqual(decodeBatch(parsed.batch)[0]!.labels, ['a', '1', 'tenant_id', 'team-a']);
  });

  test('uses default-tenant when the tenant field is empty or absent', () => {
    assert.equal(parse(thanosRequest(one, '')).tenant, 'default-tenant');
    assert.deepEqual(tenantLabelOf(thanosRequest(one)), ['a', '1', 'tenant_id', 'default-tenant']);
  });

  test('the tenant option (THANOS-TENANT header) wins over the field; an empty one counts as absent', () => {
    assert.equal(parse(thanosRequest(one, 'field'), { tenant: 'header' }).tenant, 'header');
    assert.equal(parse(thanosRequest(one, 'field'), { tenant: '' }).tenant, 'field');
    assert.equal(parse(thanosRequest(one), { tenant: '' }).tenant, 'default-tenant');
  });

  test('defaultTenant (--receive.default-tenant-id) stands in for default-tenant where no tenant is named', () => {
    assert.equal(parse(thanosRequest(one), { defaultTenant: 'team-z' }).tenant, 'team-z');
    assert.deepEqual(tenantLabelOf(thanosRequest(one, ''), { defaultTenant: 'team-z' }), ['a', '1', 'tenant_id', 'team-z']);
    assert.equal(parse(thanosRequest(one, 'field'), { defaultTenant: 'team-z' }).tenant, 'field');
    assert.equal(parse(prometheusRequest(one), { dialect: 'prometheus', defaultTenant: 'team-z' }).tenant, 'team-z');
    assert.equal(writeRequestTenant(thanosRequest(one), 'team-z'), 'team-z');
  });

  test('the prometheus dialect has no tenant field: the option or default-tenant', () => {
    const bytes = prometheusRequest(one);
    assert.equal(parse(bytes, { dialect: 'prometheus' }).tenant, 'default-tenant');
    assert.equal(parse(bytes, { dialect: 'prometheus', tenant: 'h' }).tenant, 'h');
  });

  test('reads a tenant field that comes before the series', () => {
    const tenantFirst = Buffer.concat([Buffer.from([0x12, 2, 0x74, 0x31]), thanosRequest(one)]);
    assert.deepEqual(tenantLabelOf(tenantFirst), ['a', '1', 'tenant_id', 't1']);
  });

  test('merges the tenant label in name order: first, between, last', () => {
    const bytes = thanosRequest([series(['__name__', 'up', 'zone', 'z']), series(['a', '1']), series(['zz', '1'])], 't');
    assert.deepEqual(decodeBatch(parse(bytes).batch).map((e) => e.labels), [
      ['__name__', 'up', 'tenant_id', 't', 'zone', 'z'],
      ['a', '1', 'tenant_id', 't'],
      ['tenant_id', 't', 'zz', '1'],
    ]);
  });

  test('names the tenant label by the tenantLabel option, in byte order', () => {
    const bytes = thanosRequest([series(['__name__', 'up', 'job', 'j'])], 't');
    assert.deepEqual(tenantLabelOf(bytes, { tenantLabel: 'A' }), ['A', 't', '__name__', 'up', 'job', 'j']);
    assert.deepEqual(tenantLabelOf(bytes, { tenantLabel: '__tenant__' }), ['__name__', 'up', '__tenant__', 't', 'job', 'j']);
  });

  test('the tenant label wins over a written label of the same name', () => {
    const bytes = thanosRequest([series(['a', '1', 'tenant_id', 'spoofed', 'z', '2'])], 'real');
    assert.deepEqual(tenantLabelOf(bytes), ['a', '1', 'tenant_id', 'real', 'z', '2']);
  });

  test('refuses an empty tenantLabel option as a programming error', () => {
    assert.throws(() => parse(thanosRequest(one), { tenantLabel: '' }), RangeError);
  });

  test('a tenant field that is not UTF-8 is malformed', () => {
    const bytes = Buffer.concat([thanosRequest(one), Buffer.from([0x12, 2, 0xc3, 0x28])]);
    assert.throws(() => parse(bytes), (err: unknown) => err instanceof MalformedRequestError && /tenant is not valid UTF-8/.test(err.message));
  });
});

describe('parseWriteRequest: replica, histograms, exemplars, metadata', () => {
  test('reports the replica (thanos field 3), 0 when absent', () => {
    assert.equal(parse(thanosRequest([series(['a', '1'])], '', 3n)).replica, 3);
    assert.equal(parse(thanosRequest([series(['a', '1'])])).replica, 0);
  });

  test('takes native histogram samples into the histogram batch beside the float samples of the same series', () => {
    const bytes = thanosRequest([
      series(['a', '1']),
      series(['__name__', 'rpc_seconds', 'job', 'api'], [[1n, 2]], { histograms: [histogram(1n), histogram(2n)] }),
      series(['__name__', 'other'], [], { histograms: [histogram(3n)] }),
    ]);
    const parsed = parse(bytes);
    assert.equal(parsed.histogramSamples, 3);
    assert.equal(parsed.invalidHistograms, 0);
    assert.equal(parsed.samples, 2);
    assert.deepEqual(decodeBatch(parsed.batch).map((e) => e.labels[1]), ['1', 'rpc_seconds']);
    assert.deepEqual(decodeHistogramBatch(parsed.histogramBatch!).map((e) => [e.labels[1], e.t]), [['rpc_seconds', [1, 2]], ['other', [3]]]);
  });

  test('takes exemplars into the exemplar batch, those of a series without samples too (Prometheus sends them apart)', () => {
    const ex = { labels: [{ name: 'trace_id', value: 'abc' }, { name: 'span', value: 's' }, { name: 'empty', value: '' }], value: 1, timestamp: 5n };
    const parsed = parse(thanosRequest([series(['a', '1'], [[5n, 1]], { exemplars: [ex, { ...ex, timestamp: 6n }] }), series(['b', '1'], [], { exemplars: [ex] })], 'acme'));
    assert.equal(parsed.exemplars, 3);
    assert.equal(parsed.samples, 1);
    assert.equal(decodeBatch(parsed.batch).length, 1);
    const v = new ExemplarBatchView(parsed.exemplarBatch!);
    assert.equal(v.count, 3);
    const text = (b: Uint8Array): string => Buffer.from(b).toString('latin1').split('\xff').slice(0, -1).join(' ');
    assert.deepEqual(Array.from({ length: 3 }, (_, i) => [text(v.seriesLabels(i)), text(v.exemplarLabels(i)), v.ts(i), v.value(i)]), [
      ['a 1 tenant_id acme', 'span s trace_id abc', 5, 1],
      ['a 1 tenant_id acme', 'span s trace_id abc', 6, 1],
      ['b 1 tenant_id acme', 'span s trace_id abc', 5, 1],
    ], 'sorted, empty values left out, the series as its batch entry has it');
    assert.equal(parse(thanosRequest([series(['a', '1'])])).exemplarBatch, undefined);
  });

  test('exemplars of a refused series are not taken', () => {
    const ex = { labels: [{ name: 'trace_id', value: 'abc' }], value: 1, timestamp: 5n };
    const parsed = parse(thanosRequest([series(['b', '1', 'a', '2'], [[5n, 1]], { exemplars: [ex] })]));
    assert.equal(parsed.invalidSeries, 1);
    assert.equal(parsed.exemplars, 0);
    assert.equal(parsed.exemplarBatch, undefined);
  });

  test('reads metric metadata of the prometheus dialect, leaving out entries without a family name', () => {
    const bytes = PrometheusWriteRequest.encode({
      timeseries: [],
      metadata: [
        { type: MetricMetadata_MetricType.COUNTER, metricFamilyName: 'http_requests', help: 'Requests.', unit: '' },
        { type: MetricMetadata_MetricType.GAUGE, metricFamilyName: '', help: 'nameless', unit: '' },
        { type: 99 as MetricMetadata_MetricType, metricFamilyName: 'odd', help: '', unit: 'bytes' },
      ],
    }).finish();
    assert.deepEqual(parse(bytes, { dialect: 'prometheus' }).metadata, [
      { family: 'http_requests', type: 'counter', help: 'Requests.', unit: '' },
      { family: 'odd', type: 'unknown', help: '', unit: 'bytes' },
    ]);
  });

  test('reads the prometheus dialect (the same series bytes), metadata beside them', () => {
    const input = [series(['__name__', 'up'], [[1n, 1]]), series(['__name__', 'down'], [[2n, 0]])];
    const thanos = parse(thanosRequest(input));
    const withMetadata = Buffer.concat([prometheusRequest(input), Buffer.from([0x1a, 4, 0x08, 0x01, 0x12, 0x00])]);
    const prometheus = parse(withMetadata, { dialect: 'prometheus' });
    assert.deepEqual(decodeBatch(prometheus.batch), decodeBatch(thanos.batch));
    assert.equal(prometheus.replica, 0);
  });

  test('the prometheus dialect skips fields 2 (reserved) and has no replica', () => {
    const bytes = Buffer.concat([prometheusRequest([series(['a', '1'])]), Buffer.from([0x12, 1, 0x41, 0x18, 0x05])]);
    assert.throws(() => parse(bytes, { dialect: 'prometheus' }), /WriteRequest field 3 has wire type varint, expected length-delimited/);
    const ok = Buffer.concat([prometheusRequest([series(['a', '1'])]), Buffer.from([0x12, 1, 0x41])]);
    assert.equal(parse(ok, { dialect: 'prometheus' }).samples, 1);
  });
});
