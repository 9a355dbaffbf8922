// The WAL's HISTOGRAMS record and the histogram body it carries: round
// trips, exact bits, and refusal of damaged bytes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FloatHistogram, Histogram } from '../../src/chunkenc/histogram/types.js';
import { HistogramFields } from '../../src/chunkenc/histogram/fields.js';
import { decodeBody, fieldsOf, maxBodyBytes, MalformedBodyError, writeBody } from '../../src/record/histogram-body.js';
import { putUvarint, putVarint, uvarintAt, varintAt, varintEnd, varintOk } from '../../src/encoding/varint.js';
import { HistogramRecordWriter, readHistogramRecord } from '../../src/record/histogram-record.js';

const H: Histogram = {
  counterResetHint: 1, schema: -4, zeroThreshold: 2 ** -128, zeroCount: 2 ** 53 - 1, count: 2 ** 53 - 1, sum: -0,
  positiveSpans: [{ offset: -2147483648, length: 4294967295 }, { offset: 2147483647, length: 0 }],
  negativeSpans: [], positiveBuckets: [-(2 ** 53 - 1), 2 ** 53 - 1, 0, -1], negativeBuckets: [],
};
const F: FloatHistogram = {
  counterResetHint: 3, schema: 8, zeroThreshold: 1e-300, zeroCount: 0.25, count: Infinity, sum: NaN,
  positiveSpans: [{ offset: 0, length: 1 }], negativeSpans: [{ offset: 3, length: 2 }], positiveBuckets: [1.5], negativeBuckets: [-0, 5e-324],
};

function body(h: Histogram | FloatHistogram, float: boolean): Uint8Array {
  const f = new HistogramFields();
  fieldsOf(h, float, 0, f);
  const out = new Uint8Array(maxBodyBytes(f));
  const end = writeBody(f, out, new DataView(out.buffer), 0);
  return out.subarray(0, end);
}

test('varints: unsigned to 2^53 - 1 and zigzag to ±(2^53 - 1), exactly, both ways', () => {
  const b = new Uint8Array(16);
  for (const n of [0, 1, 127, 128, 2 ** 31, 2 ** 32 + 5, 2 ** 53 - 1]) {
    const end = putUvarint(b, 0, n);
    assert.equal(uvarintAt(b, 0, end), n);
    assert.equal(varintEnd, end);
  }
  for (const n of [0, -1, 1, -64, 63, -65, 64, -(2 ** 31), 2 ** 40 + 3, -(2 ** 53 - 1), 2 ** 53 - 1]) {
    const end = putVarint(b, 0, n);
    // Against the zigzag of BigInt arithmetic, byte for byte.
    const zz = n >= 0 ? BigInt(n) * 2n : -BigInt(n) * 2n - 1n;
    const want: number[] = [];
    for (let x = zz; ; x >>= 7n) {
      if (x < 128n) {
        want.push(Number(x));
        break;
      }
      want.push(Number(x & 127n) | 128);
    }
    assert.deepEqual([...b.subarray(0, end)], want, `zigzag(${n})`);
    assert.equal(varintAt(b, 0, end), n);
    assert.ok(varintOk);
  }
  assert.equal(uvarintAt(Uint8Array.of(0x80), 0, 1), -1, 'cut short');
});

test('histogram bodies: integer and float histograms come back field for field, extremes included', () => {
  assert.deepEqual(decodeBody(body(H, false), 0, body(H, false).length), H);
  const f = decodeBody(body(F, true), 0, body(F, true).length);
  assert.ok(Number.isNaN(f.sum));
  assert.deepEqual({ ...f, sum: 0 }, { ...F, sum: 0 });
  assert.ok(Object.is(f.negativeBuckets[0], -0), 'negative zero kept');
});

test('histogram bodies: damaged bytes are refused, never read past their end', () => {
  const b = body(H, false);
  for (let cut = 0; cut < b.length; cut++) assert.throws(() => decodeBody(b, 0, cut), MalformedBodyError, `cut at ${cut}`);
  const longer = new Uint8Array(b.length + 1);
  longer.set(b);
  assert.throws(() => decodeBody(longer, 0, longer.length), /1 bytes left over/);
  const flags = b.slice();
  flags[0] = 0x10;
  assert.throws(() => decodeBody(flags, 0, flags.length), /unknown flags/);
});

test('HISTOGRAMS record: series groups, time deltas and bodies come back in order', () => {
  const w = new HistogramRecordWriter();
  const a = body(H, false);
  const c = body(F, true);
  const times = [1_700_000_000_000, 1_700_000_000_015, 1_699_999_000_000, -(2 ** 52) + 1];
  w.group(7, times[0]!);
  w.sample(times[0]!, a, 0, a.length);
  w.sample(times[1]!, c, 0, c.length);
  w.group(3, times[2]!);
  w.sample(times[2]!, c, 0, c.length);
  w.group(300_000, times[3]!);
  w.sample(times[3]!, a, 0, a.length);
  assert.equal(w.samples, 4);
  const got: [number, number, number[]][] = [];
  assert.ok(readHistogramRecord(w.payload(), (id, t, p, at, end) => got.push([id, t, [...p.subarray(at, end)]])));
  assert.deepEqual(got, [[7, times[0], [...a]], [7, times[1], [...c]], [3, times[2], [...c]], [300_000, times[3], [...a]]]);
  w.reset();
  assert.ok(w.empty);
  assert.ok(readHistogramRecord(new Uint8Array(0), () => assert.fail('nothing to visit')));
});

test('HISTOGRAMS record: a payload cut anywhere is malformed', () => {
  const w = new HistogramRecordWriter();
  const a = body(H, false);
  w.group(1, 10);
  w.sample(10, a, 0, a.length);
  w.sample(20, a, 0, a.length);
  const p = w.payload().slice();
  for (let cut = 1; cut < p.length; cut++) assert.equal(readHistogramRecord(p.subarray(0, cut), () => {}), false, `cut at ${cut}`);
});

test('HISTOGRAMS record: frozen bytes (docs/format/wal.md); a change here is a format change', () => {
  const frozen = 'e803000000000000' // base time 1000
    + '0a' + '8280808000' // series 5 (zigzag 10), 2 samples (padded varint)
    + '00' + '1c' // time: base + 0; body of 28 bytes
    + '04' + '01' + '000000000000e03f' + '000000000000f83f' + '0a' + '03' // int, hint 2; schema -1; threshold 0.5; sum 1.5; count 10; zero count 3
    + '00' + '00' + '01' + '0102' + '02' + '0801' // no negative spans or buckets; one positive span (-1, 2); deltas 4, -1
    + '1e' + '30' // time: + 15; body of 48 bytes
    + '07' + '00' + '0000000000000000' + '00000000000000c0' + '0000000000000240' + '000000000000d03f' // float, hint 3; schema 0; 0; sum -2; count 2.25; zero 0.25
    + '01' + '0001' + '01' + '0000000000000040' + '00' + '00'; // negative span (0, 1), count 2; no positive spans or buckets
  const body = (h: Histogram | FloatHistogram, float: boolean): Uint8Array => {
    const f = new HistogramFields();
    fieldsOf(h, float, 0, f);
    const out = new Uint8Array(maxBodyBytes(f));
    return out.subarray(0, writeBody(f, out, new DataView(out.buffer), 0));
  };
  const a = body({ counterResetHint: 2, schema: -1, zeroThreshold: 0.5, zeroCount: 3, count: 10, sum: 1.5,
    positiveSpans: [{ offset: -1, length: 2 }], negativeSpans: [], positiveBuckets: [4, -1], negativeBuckets: [] }, false);
  const c = body({ counterResetHint: 3, schema: 0, zeroThreshold: 0, zeroCount: 0.25, count: 2.25, sum: -2,
    positiveSpans: [], negativeSpans: [{ offset: 0, length: 1 }], positiveBuckets: [], negativeBuckets: [2] }, true);
  const w = new HistogramRecordWriter();
  w.group(5, 1000);
  w.sample(1000, a, 0, a.length);
  w.sample(1015, c, 0, c.length);
  assert.equal(Buffer.from(w.payload()).toString('hex'), frozen);
});
