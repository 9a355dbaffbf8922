import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { Label } from '../../src/gen/thanos/store/labels.js';
import { decodeBatch, histogram, parse, requestOf, series, thanosRequest } from './support.js';

/** A request of three series with `bad` in the middle; checks the good two stay and returns the message. */
function refusedMiddle(bad: Uint8Array | ReturnType<typeof series>): string {
  const good1 = series(['__name__', 'ok', 'i', '1'], [[1n, 1]]);
  const good2 = series(['__name__', 'ok', 'i', '2'], [[2n, 2]]);
  const bytes = bad instanceof Uint8Array
    ? requestOf([thanosSeriesBytes(good1), bad, thanosSeriesBytes(good2)])
    : thanosRequest([good1, bad, good2]);
  const parsed = parse(bytes);
  assert.equal(parsed.series, 3);
  assert.equal(parsed.invalidSeries, 1);
  assert.equal(parsed.samples, 2, 'the refused series adds no samples');
  assert.deepEqual(decodeBatch(parsed.batch).map((e) => e.labels[3]), ['1', '2'], 'the valid series stay');
  return parsed.firstInvalid!;
}

function thanosSeriesBytes(s: ReturnType<typeof series>): Uint8Array {
  // The first field of a one-series request is that series: tag, length, bytes.
  const req = thanosRequest([s]);
  let at = 1;
  while (req[at]! & 0x80) at++;
  return req.subarray(at + 1);
}

/** A TimeSeries with labels given as raw name and value bytes, and one sample. */
function rawLabelSeries(pairs: [Uint8Array, Uint8Array][]): Uint8Array {
  const w = new BinaryWriter();
  for (const [name, value] of pairs) {
    w.tag(1, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).bytes(name);
    w.tag(2, WireType.LengthDelimited).bytes(value);
    w.join();
  }
  w.tag(2, WireType.LengthDelimited).fork().tag(1, WireType.Bit64).double(9).tag(2, WireType.Varint).int64(9n).join();
  return w.finish();
}
const b = (s: string): Uint8Array => Buffer.from(s);

describe('label set rules (as Thanos Receive checks them)', () => {
  test('refuses a series with an empty label name, keeps the rest', () => {
    assert.equal(refusedMiddle(series(['__name__', 'x', '', 'v'])), 'series 1 {__name__="x", ="v"}: empty label name (label 1)');
  });

  test('refuses a series with an empty label value', () => {
    assert.equal(refusedMiddle(series(['__name__', 'x', 'job', ''])), 'series 1 {__name__="x", job=""}: empty value for label "job"');
  });

  test('refuses a series with a duplicate label name', () => {
    assert.equal(refusedMiddle(series(['__name__', 'x', 'job', 'a', 'job', 'b'])),
      'series 1 {__name__="x", job="a", job="b"}: duplicate label name "job"');
  });

  test('refuses a series whose label names are not sorted', () => {
    assert.equal(refusedMiddle(series(['__name__', 'up', 'b', '1', 'a', '2'])),
      'series 1 {__name__="up", b="1", a="2"}: label names not sorted ("b" before "a")');
  });

  test('refuses a series without labels', () => {
    assert.equal(refusedMiddle(series([])), 'series 1 {}: no labels');
  });

  test('refuses a label name that is not UTF-8, naming the byte and its offset', () => {
    const bad = rawLabelSeries([[b('__name__'), b('x')], [Uint8Array.of(0x6a, 0xc3, 0x28), b('v')]]);
    const msg = refusedMiddle(bad);
    assert.match(msg, /^series 1 \{__name__="x", j\uFFFD\(="v"\}: label name "j\uFFFD\(" is not valid UTF-8 \(byte 0xc3 at offset \d+ of the request\)$/);
  });

  test('refuses a label value that is not UTF-8 (0xFF included, which would break the canonical form)', () => {
    const bad = rawLabelSeries([[b('__name__'), b('x')], [b('job'), Uint8Array.of(0x61, 0xff, 0x62)]]);
    assert.match(refusedMiddle(bad), /: value of label "job" is not valid UTF-8 \(byte 0xff at offset \d+ of the request\)$/);
  });

  test('refuses overlong forms and surrogates as Go does', () => {
    for (const bytes of [[0xc0, 0x80], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]]) {
      const bad = rawLabelSeries([[b('a'), Uint8Array.from(bytes)]]);
      assert.match(refusedMiddle(bad), /is not valid UTF-8/, `bytes ${bytes.map((x) => x.toString(16))}`);
    }
  });

  test('accepts multi-byte UTF-8 in names and values', () => {
    const parsed = parse(thanosRequest([series(['__name__', 'x', 'naïve', '日本語 😀'])]));
    assert.equal(parsed.invalidSeries, 0);
    assert.deepEqual(decodeBatch(parsed.batch)[0]!.labels.slice(0, 4), ['__name__', 'x', 'naïve', '日本語 😀']);
  });

  test('compares names as bytes, as Go compares strings (not as UTF-16 code units)', () => {
    // U+FF61 is EF BD A1 and U+1F600 is F0 9F 98 80: sorted as bytes, though
    // JavaScript's < puts the surrogate pair (D83D...) first.
    const parsed = parse(thanosRequest([series(['Z', '1', '_', '1', 'a', '1', '\uff61', '1', '😀', '1'])]));
    assert.equal(parsed.invalidSeries, 0, parsed.firstInvalid);
    const refused = parse(thanosRequest([series(['😀', '1', '\uff61', '1'])]));
    assert.equal(refused.firstInvalid, 'series 0 {😀="1", ｡="1"}: label names not sorted ("😀" before "｡")');
  });

  test('a name that is a prefix of the next is sorted before it', () => {
    assert.equal(parse(thanosRequest([series(['job', '1', 'job_name', '2'])])).invalidSeries, 0);
    assert.equal(parse(thanosRequest([series(['job_name', '2', 'job', '1'])])).invalidSeries, 1);
  });

  test('counts every refused series and reports the first', () => {
    const parsed = parse(thanosRequest([
      series(['a', '1']), series(['b', '']), series(['c', '1', 'c', '2']), series(['d', '1']), series(['', '1']),
    ]));
    assert.equal(parsed.invalidSeries, 3);
    assert.equal(parsed.firstInvalid, 'series 1 {b=""}: empty value for label "b"');
    assert.equal(parsed.samples, 2);
  });

  test('checks the written labels, a written tenant label included, before the tenant label is merged in', () => {
    const parsed = parse(thanosRequest([series(['a', '1', 'tenant_id', '']), series(['tenant_id', 'x', 'a', '1'])], 't'));
    assert.equal(parsed.invalidSeries, 2);
    assert.equal(parsed.firstInvalid, 'series 0 {a="1", tenant_id=""}: empty value for label "tenant_id"');
  });

  test('histograms and exemplars of a refused series are not counted (the series is reported instead)', () => {
    const ex = { labels: [], value: 1, timestamp: 1n };
    const parsed = parse(thanosRequest([series(['b', '1', 'a', '1'], [], { histograms: [histogram(1n)], exemplars: [ex] })]));
    assert.equal(parsed.invalidSeries, 1);
    assert.equal(parsed.histogramSamples, 0);
    assert.equal(parsed.exemplars, 0);
  });

  test('a series refused after its samples and labels were written leaves nothing of them behind', () => {
    const w = new BinaryWriter();
    w.tag(2, WireType.LengthDelimited).fork().tag(1, WireType.Bit64).double(7).tag(2, WireType.Varint).int64(7n).join();
    Label.encode({ name: 'b', value: '1' }, w.tag(1, WireType.LengthDelimited).fork()).join();
    Label.encode({ name: 'zz', value: '1' }, w.tag(1, WireType.LengthDelimited).fork()).join();
    Label.encode({ name: 'a', value: '1' }, w.tag(1, WireType.LengthDelimited).fork()).join();
    const parsed = parse(requestOf([w.finish(), rawLabelSeries([[b('ok'), b('1')]])], 't'));
    assert.equal(parsed.invalidSeries, 1);
    assert.equal(parsed.samples, 1);
    const entries = decodeBatch(parsed.batch);
    assert.deepEqual(entries.map((e) => [e.labels, e.timestamps]), [[['ok', '1', 'tenant_id', 't'], [9n]]]);
  });

  test('shortens the label set in a message when it is very long', () => {
    const labels: string[] = [];
    for (let i = 0; i < 100; i++) labels.push(`l${String(i).padStart(3, '0')}`, 'v'.repeat(50));
    labels.push('a', '');
    const msg = parse(thanosRequest([series(labels)])).firstInvalid!;
    assert.ok(msg.length < 600, `${msg.length} chars`);
    assert.match(msg, /^series 0 \{l000="v+", .*…\}: empty value for label "a"$/);
  });
});
