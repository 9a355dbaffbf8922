import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { MalformedRequestError } from '../../src/errors/errors.js';
import { bitsOf, decodeBatch, parse, requestOf, series, thanosRequest } from './support.js';

const b = (...bytes: number[]): Uint8Array => Uint8Array.from(bytes);
const cat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(Buffer.concat(parts));
/** A length-delimited field: a one-byte tag, the length, the bytes. */
const ld = (tag: number, body: Uint8Array): Uint8Array => cat(b(tag), new BinaryWriter().uint32(body.length).finish(), body);
const str = (s: string): Uint8Array => Buffer.from(s);
const label = (name: string, value: string): Uint8Array => ld(0x0a, cat(ld(0x0a, str(name)), ld(0x12, str(value))));
const sample = (value: number, ts: number): Uint8Array => {
  const w = new BinaryWriter();
  w.tag(1, WireType.Bit64).double(value).tag(2, WireType.Varint).int64(ts);
  return ld(0x12, w.finish());
};

/** Asserts a MalformedRequestError whose message matches `pattern`; returns it. */
function malformed(bytes: Uint8Array, pattern: RegExp, opts = {}): MalformedRequestError {
  let caught: unknown;
  try {
    parse(bytes, opts);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof MalformedRequestError, `expected MalformedRequestError, got ${String(caught)}`);
  assert.match(caught.message, pattern);
  return caught;
}

/** Unknown fields 20-23, one of each wire type: varint, fixed64, length-delimited, fixed32. */
function unknownFields(): Uint8Array {
  const w = new BinaryWriter();
  w.tag(20, WireType.Varint).uint64(2n ** 63n + 5n);
  w.tag(21, WireType.Bit64).fixed64(1n);
  w.tag(22, WireType.LengthDelimited).bytes(b(0xff, 0x00, 0x12));
  w.tag(23, WireType.Bit32).fixed32(7);
  return w.finish();
}

const clean = parse(thanosRequest([series(['a', '1', 'b', '2'], [[5n, 1.5], [6n, 2.5]])], 't'));

describe('wire format: what a valid message may look like', () => {
  test('skips unknown fields of every wire type in WriteRequest, TimeSeries, Label and Sample', () => {
    const u = unknownFields();
    const lbl = (n: string, v: string) => ld(0x0a, cat(u, ld(0x0a, str(n)), u, ld(0x12, str(v)), u));
    const smp = (v: number, t: number) => ld(0x12, cat(u, sample(v, t).subarray(2), u));
    const ts = cat(u, lbl('a', '1'), u, lbl('b', '2'), smp(1.5, 5), u, smp(2.5, 6), u);
    const bytes = cat(u, ld(0x0a, ts), u, ld(0x12, str('t')), u);
    const parsed = parse(bytes);
    assert.deepEqual(decodeBatch(parsed.batch), decodeBatch(clean.batch));
    assert.equal(parsed.series, 1);
  });

  test('reads fields in any order: samples before labels, labels between samples, timestamp before value', () => {
    const w = new BinaryWriter();
    w.tag(2, WireType.Varint).int64(5n).tag(1, WireType.Bit64).double(1.5);
    const tsFirst = ld(0x12, w.finish());
    const bytes = cat(ld(0x12, str('t')), ld(0x0a, cat(tsFirst, label('a', '1'), sample(2.5, 6), label('b', '2'))));
    assert.deepEqual(decodeBatch(parse(bytes).batch), decodeBatch(clean.batch));
  });

  test('takes the last value of a scalar given twice (sample value and timestamp, label name and value, tenant, replica)', () => {
    const w = new BinaryWriter();
    w.tag(1, WireType.Bit64).double(99).tag(2, WireType.Varint).int64(99n).tag(1, WireType.Bit64).double(1.5).tag(2, WireType.Varint).int64(5n);
    const twice = ld(0x12, w.finish());
    const lbl = ld(0x0a, cat(ld(0x0a, str('x')), ld(0x12, str('y')), ld(0x0a, str('a')), ld(0x12, str('1'))));
    const bytes = cat(ld(0x12, str('nope')), ld(0x0a, cat(lbl, label('b', '2'), twice, sample(2.5, 6))), ld(0x12, str('t')), b(0x18, 7, 0x18, 2));
    const parsed = parse(bytes);
    assert.deepEqual(decodeBatch(parsed.batch), decodeBatch(clean.batch));
    assert.equal(parsed.tenant, 't');
    assert.equal(parsed.replica, 2);
  });

  test('a Sample without fields is value 0 at time 0 (proto3 defaults)', () => {
    const [e] = decodeBatch(parse(cat(ld(0x0a, cat(label('a', '1'), b(0x12, 0))))).batch);
    assert.deepEqual(e!.timestamps, [0n]);
    assert.deepEqual(e!.valueBits, [0n]);
  });

  test('reads non-minimal varints (padded with 0x80 bytes) in tags, lengths and timestamps', () => {
    const v = (x: number) => b(0x80 | x, 0x80, 0x80, 0x00); // x, padded to four bytes
    const smp = cat(b(0x12), v(9 + 1 + 10), b(0x09), new Uint8Array(new Float64Array([1.5]).buffer), b(0x10, 0x85, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00));
    const lbl = cat(b(0x8a, 0x00), v(6), b(0x0a, 1, 0x61, 0x12, 1, 0x31));
    const [e] = decodeBatch(parse(cat(b(0x0a), v(lbl.length + smp.length), lbl, smp)).batch);
    assert.deepEqual(e!.labels, ['a', '1', 'tenant_id', 'default-tenant']);
    assert.deepEqual(e!.timestamps, [5n]);
    assert.deepEqual(e!.valueBits, [bitsOf(1.5)]);
  });

  test('reads field numbers that take several varint bytes and skips them', () => {
    const w = new BinaryWriter();
    w.tag(536870911, WireType.Varint).uint32(1); // the largest field number
    w.tag(1000, WireType.LengthDelimited).string('x');
    const parsed = parse(cat(w.finish(), thanosRequest([series(['a', '1'])])));
    assert.equal(parsed.samples, 1);
  });
});

describe('wire format: malformed requests', () => {
  const good = thanosRequest([series(['__name__', 'up', 'job', 'node'], [[1000n, 1], [2000n, 2]]), series(['a', '1'])], 'acme', 1n);

  test('the error is typed and says what and where', () => {
    const err = malformed(b(0x0a, 5, 0x0a), /^malformed write request at byte 1: length 5 runs past the end of its message \(1 bytes left\)$/);
    assert.equal(err.name, 'MalformedRequestError');
    assert.equal(err.kind, 'malformed-request');
    assert.equal(err.offset, 1);
  });

  test('every cut inside a field is malformed; cuts between top-level fields parse as shorter requests', () => {
    const boundaries = new Set<number>([0]);
    for (let at = 0; at < good.length;) {
      const len = good[at + 1]!; // one-byte lengths in this request, and a one-byte replica
      at += good[at] === 0x18 ? 2 : 2 + len;
      boundaries.add(at);
    }
    for (let cut = 0; cut < good.length; cut++) {
      const prefix = good.subarray(0, cut);
      if (boundaries.has(cut)) assert.doesNotThrow(() => parse(prefix), `cut at ${cut}`);
      else assert.throws(() => parse(prefix), MalformedRequestError, `cut at ${cut}`);
    }
  });

  test('refuses groups (wire types 3 and 4) at every level', () => {
    malformed(cat(good, b(0x4b, 0x4c)), /at byte \d+: groups \(wire types 3 and 4\) are not used by remote write/);
    malformed(cat(good, b(0x0b, 0x0c)), /at byte \d+: groups \(wire types 3 and 4\) are not used by remote write/);
    malformed(cat(ld(0x0a, cat(label('a', '1'), b(0x2b, 0x2c)))), /at byte 10: groups/);
    malformed(cat(ld(0x0a, ld(0x0a, b(0x1c)))), /at byte 4: groups/);
  });

  test('refuses wire types 6 and 7', () => {
    malformed(b(0x0e, 0x00), /at byte 0: invalid wire type 6/);
    malformed(b(0x4e, 0x00), /at byte 0: invalid wire type 6/);
    malformed(cat(ld(0x0a, ld(0x12, b(0x1f, 0x00)))), /at byte 4: invalid wire type 7/);
  });

  test('refuses field number 0', () => {
    malformed(b(0x02, 0x00), /at byte 0: field number 0/);
    malformed(b(0x80, 0x00, 0x00), /at byte 0: field number 0/);
  });

  test('refuses a known field with the wrong wire type, as the gogo parsers of Thanos and Prometheus do', () => {
    malformed(cat(ld(0x0a, cat(label('a', '1'), ld(0x12, b(0x08, 0x01))))), /Sample field 1 has wire type varint, expected fixed64/);
    malformed(cat(ld(0x0a, cat(label('a', '1'), ld(0x12, b(0x15, 0, 0, 0, 0))))), /Sample field 2 has wire type fixed32, expected varint/);
    malformed(cat(ld(0x0a, ld(0x0a, b(0x08, 0x01)))), /Label field 1 has wire type varint, expected length-delimited/);
    malformed(cat(ld(0x0a, b(0x18, 0x01))), /TimeSeries field 3 has wire type varint, expected length-delimited/);
    malformed(b(0x0d, 0, 0, 0, 0), /WriteRequest field 1 has wire type fixed32, expected length-delimited/);
    malformed(b(0x10, 0x01), /WriteRequest field 2 has wire type varint, expected length-delimited/);
    malformed(b(0x1a, 0x00), /WriteRequest field 3 has wire type length-delimited, expected varint/);
  });

  test('refuses a varint longer than ten bytes or past 64 bits', () => {
    const ts = (...v: number[]) => cat(ld(0x0a, cat(label('a', '1'), ld(0x12, cat(b(0x10), b(...v))))));
    malformed(ts(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02), /varint longer than 64 bits/);
    malformed(ts(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x00), /varint longer than 64 bits/);
    const [e] = decodeBatch(parse(ts(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)).batch);
    assert.deepEqual(e!.timestamps, [-1n]);
  });

  test('refuses a tag or length that does not fit in 32 bits', () => {
    malformed(b(0x80, 0x80, 0x80, 0x80, 0x80, 0x01), /tag does not fit in 32 bits/);
    malformed(b(0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01), /length does not fit in 32 bits/);
  });

  test('refuses a nested field that runs past its parent, even when the request has the bytes', () => {
    // The label claims 10 bytes, its series holds 4: the bytes after belong to the next field.
    const bytes = cat(b(0x0a, 4, 0x0a, 10, 0x0a, 1), label('a', '1'), label('b', '2'));
    malformed(bytes, /at byte 3: length 10 runs past the end of its message \(2 bytes left\)/);
  });

  test('refuses a double cut short, and a varint cut short, inside a sample', () => {
    malformed(cat(ld(0x0a, cat(label('a', '1'), ld(0x12, b(0x09, 1, 2, 3))))), /Sample value \(double\) runs past the end of its message/);
    malformed(cat(ld(0x0a, cat(label('a', '1'), ld(0x12, b(0x10, 0x80))))), /varint runs past the end of its message/);
    malformed(cat(ld(0x0a, cat(label('a', '1'), ld(0x12, b(0x19, 1, 2))))), /fixed64 value runs past the end/);
    malformed(cat(ld(0x0a, cat(label('a', '1'), ld(0x12, b(0x1d, 1, 2))))), /fixed32 value runs past the end/);
  });

  test('checks exemplars, histograms and metadata as the generated parsers read them', () => {
    const inSeries = (tag: number, body: Uint8Array) => cat(ld(0x0a, cat(label('a', '1'), ld(tag, body))));
    // Exemplar: a label whose value runs past the label, though not past the exemplar.
    malformed(inSeries(0x1a, cat(b(0x0a, 6, 0x0a, 1, 0x74, 0x12, 3), str('xyz'))), /at byte 18: length 3 runs past the end of its message \(1 bytes left\)/);
    malformed(inSeries(0x1a, b(0x12, 0x05)), /Exemplar field 2 has wire type length-delimited, expected fixed64/);
    malformed(inSeries(0x22, b(0x0b)), /groups/);
    malformed(inSeries(0x22, b(0x42, 2, 0x08, 0x80)), /at byte 15: varint runs past the end/); // inside a BucketSpan
    malformed(inSeries(0x22, b(0x52, 3, 0, 0, 0)), /Histogram field 10: packed doubles are not a multiple of 8 bytes/);
    malformed(inSeries(0x22, b(0x20, 0x80)), /varint runs past the end/);
    malformed(ld(0x1a, b(0x0e)), /invalid wire type 6/, { dialect: 'prometheus' });
    malformed(ld(0x1a, b(0x08, 0x01, 0x10, 0x01)), /MetricMetadata field 2 has wire type varint, expected length-delimited/, { dialect: 'prometheus' });
    // Repeated numbers, packed or not, are both fine.
    const ok = parse(cat(inSeries(0x22, b(0x4a, 2, 0x01, 0x02, 0x48, 0x03, 0x52, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0x51, 0, 0, 0, 0, 0, 0, 0, 0))));
    // Read whole (deltas -1, 1, -2), then refused by Prometheus' checks, not as malformed.
    assert.equal(ok.invalidHistograms, 1);
    assert.match(ok.firstInvalidHistogram!, /negative side: spans need 0 buckets, have 3 buckets/);
  });

  test('an unknown length-delimited field is skipped whole, whatever its bytes', () => {
    const parsed = parse(cat(b(0xa2, 0x01, 5, 0x0b, 0xff, 0xff, 0x0e, 0x0f), thanosRequest([series(['a', '1'])])));
    assert.equal(parsed.samples, 1);
  });

  test('a lone tag without its value is malformed', () => {
    malformed(b(0x0a), /varint runs past the end|length/);
    malformed(b(0x18), /varint runs past the end of its message \(0 bytes left\)/);
  });

  test('requestOf builds what ts-proto builds (the helpers agree)', () => {
    const viaHelper = requestOf([], 'x');
    assert.deepEqual([...viaHelper], [0x12, 1, 0x78]);
  });
});
