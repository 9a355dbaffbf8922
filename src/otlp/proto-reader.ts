/**
 * Reads an OTLP ExportMetricsServiceRequest from protobuf bytes
 * (opentelemetry-proto collector/metrics/v1, metrics/v1, common/v1,
 * resource/v1; field numbers as in proto/opentelemetry/) into model.ts'
 * shapes, handed to a MetricsVisitor metric by metric. Hand-written over the remote-write parser's WireReader, as that
 * parser is: bounds-checked, and a short or corrupt body throws
 * MalformedRequestError with its offset. Runs in the worker pool.
 */
import { Buffer } from 'node:buffer';
import { WIRE, WireReader, wrongWireType } from '../encoding/wire-reader.js';
import { malformedRequest } from '../errors/errors.js';
import { bytesString, goFloatString, hexString } from './any-value.js';
import {
  nanosToMs,
  type Attribute,
  type Buckets,
  type Exemplar,
  type ExpHistogramPoint,
  type HistogramPoint,
  type Metric,
  type MetricData,
  type MetricsVisitor,
  type NumberPoint,
  type Scope,
  type SummaryPoint,
} from './model.js';

const decoder = new TextDecoder('utf-8', { fatal: true });
/** Strings up to this long are checked for ASCII and made without the decoder. */
const ASCII_MAX = 64;
/** Node's native one-byte-per-char string maker; takes any Uint8Array. */
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice(this: Uint8Array, start: number, end: number): string }).latin1Slice;

// NumberDataPoint's tags as the fast path in numberPoint() reads them.
const START_TIME_TAG = (2 << 3) | WIRE.fixed64;
const TIME_TAG = (3 << 3) | WIRE.fixed64;
const DOUBLE_TAG = (4 << 3) | WIRE.fixed64;
const INT_TAG = (6 << 3) | WIRE.fixed64;
const ATTRIBUTE_TAG = (7 << 3) | WIRE.len;
const FLAGS_TAG = (8 << 3) | WIRE.varint;

/** A number point's attributes or exemplars while it has none: shared, never written. */
const NONE: never[] = Object.freeze([]) as unknown as never[];

/** One OTLP message being read: a cursor and where the message ends. */
class Fields {
  constructor(readonly r: WireReader, readonly end: number, readonly message: string) {}
  /** The next field number (its wire type in `wire`), or 0 at the end. */
  wire = 0;
  next(): number {
    if (this.r.pos >= this.end) return 0;
    const tag = this.r.tag(this.end);
    this.wire = tag & 7;
    return tag >>> 3;
  }
  private want(field: number, wire: number): void {
    if (this.wire !== wire) throw wrongWireType(this.r.tagAt, this.message, field, this.wire, wire);
  }
  sub(field: number, message: string): Fields {
    this.want(field, WIRE.len);
    const stop = this.r.len(this.end);
    return new Fields(this.r, stop, message);
  }
  string(field: number): string {
    this.want(field, WIRE.len);
    const r = this.r;
    const stop = r.len(this.end);
    const at = r.pos;
    r.pos = stop;
    // ASCII (keys and most values) needs no UTF-8 check nor decoder call.
    const buf = r.buf;
    if (stop - at <= ASCII_MAX) {
      let i = at;
      while (i < stop && buf[i]! < 0x80) i++;
      if (i === stop) return latin1Slice.call(buf, at, stop);
    }
    try {
      return decoder.decode(buf.subarray(at, stop));
    } catch {
      throw malformedRequest(at, `${this.message} field ${field} is not valid UTF-8`);
    }
  }
  bytes(field: number): Uint8Array {
    this.want(field, WIRE.len);
    const r = this.r;
    const stop = r.len(this.end);
    const b = r.buf.subarray(r.pos, stop);
    r.pos = stop;
    return b;
  }
  /** A fixed64 as two unsigned halves in `lo`, `hi`. */
  fixed64(field: number): void {
    this.want(field, WIRE.fixed64);
    const r = this.r;
    if (r.pos + 8 > this.end) throw malformedRequest(r.pos, `${this.message} field ${field} runs past the end of its message`);
    r.lo = r.view.getUint32(r.pos, true);
    r.hi = r.view.getUint32(r.pos + 4, true);
    r.pos += 8;
  }
  timeMs(field: number): number {
    this.fixed64(field);
    return nanosToMs(this.r.lo, this.r.hi);
  }
  /** fixed64 (unsigned) as a number: counts (exact below 2^53). */
  count(field: number): number {
    this.fixed64(field);
    return this.r.hi * 4294967296 + this.r.lo;
  }
  /** sfixed64 as a number. */
  sfixed64(field: number): number {
    this.fixed64(field);
    return (this.r.hi | 0) * 4294967296 + this.r.lo;
  }
  double(field: number): number {
    this.want(field, WIRE.fixed64);
    const r = this.r;
    if (r.pos + 8 > this.end) throw malformedRequest(r.pos, `${this.message} field ${field} runs past the end of its message`);
    const v = r.view.getFloat64(r.pos, true);
    r.pos += 8;
    return v;
  }
  varint(field: number): number {
    this.want(field, WIRE.varint);
    return this.r.int64Number(this.end);
  }
  sint32(field: number): number {
    this.want(field, WIRE.varint);
    const n = this.r.uint32(this.end, `${this.message} field ${field}`);
    return (n >>> 1) ^ -(n & 1);
  }
  skip(): void {
    this.r.skip(this.wire, this.end);
  }
  /** A repeated fixed64/double field, packed or not, into `out`. */
  packed64(field: number, out: number[], read: (view: DataView, at: number) => number): void {
    const r = this.r;
    if (this.wire === WIRE.fixed64) {
      if (r.pos + 8 > this.end) throw malformedRequest(r.pos, `${this.message} field ${field} runs past the end of its message`);
      out.push(read(r.view, r.pos));
      r.pos += 8;
      return;
    }
    this.want(field, WIRE.len);
    const stop = r.len(this.end);
    if ((stop - r.pos) % 8 !== 0) throw malformedRequest(r.pos, `${this.message} field ${field}: packed length not a multiple of 8`);
    for (let p = r.pos; p < stop; p += 8) out.push(read(r.view, p));
    r.pos = stop;
  }
  /** A repeated uint64 varint field, packed or not. */
  packedVarint(field: number, out: number[]): void {
    const r = this.r;
    if (this.wire === WIRE.varint) {
      out.push(r.int64Number(this.end));
      return;
    }
    this.want(field, WIRE.len);
    const stop = r.len(this.end);
    while (r.pos < stop) out.push(r.int64Number(stop));
  }
}

const u64 = (v: DataView, at: number): number => v.getUint32(at + 4, true) * 4294967296 + v.getUint32(at, true);
const f64 = (v: DataView, at: number): number => v.getFloat64(at, true);

/** AnyValue as a JSON-able value (for arrays and maps) and as its string. */
function anyValue(f: Fields, first: { json: unknown; text: string } = { json: '', text: '' }): { json: unknown; text: string } {
  let out = first;
  for (let field = f.next(); field !== 0; field = f.next()) {
    switch (field) {
      case 1: {
        const s = f.string(1);
        out = { json: s, text: s };
        break;
      }
      case 2: {
        const b = f.varint(2) !== 0;
        out = { json: b, text: String(b) };
        break;
      }
      case 3: {
        f.varint(3);
        const n = BigInt.asIntN(64, (BigInt(f.r.hi >>> 0) << 32n) | BigInt(f.r.lo >>> 0));
        out = { json: Number(n), text: n.toString() };
        break;
      }
      case 4: {
        const d = f.double(4);
        out = { json: d, text: goFloatString(d) };
        break;
      }
      case 5: {
        const a = f.sub(5, 'ArrayValue');
        const items: unknown[] = [];
        for (let g = a.next(); g !== 0; g = a.next()) {
          if (g === 1) items.push(anyValue(a.sub(1, 'AnyValue')).json);
          else a.skip();
        }
        out = { json: items, text: JSON.stringify(items) };
        break;
      }
      case 6: {
        const m = f.sub(6, 'KeyValueList');
        const obj: Record<string, unknown> = {};
        for (let g = m.next(); g !== 0; g = m.next()) {
          if (g === 1) {
            const kv = keyValue(m.sub(1, 'KeyValue'));
            obj[kv.key] = kv.json;
          } else m.skip();
        }
        out = { json: obj, text: JSON.stringify(obj) };
        break;
      }
      case 7: {
        const s = bytesString(f.bytes(7));
        out = { json: s, text: s };
        break;
      }
      default:
        f.skip();
    }
  }
  return out;
}

/** AnyValue's string_value field, as its first byte. */
const STRING_VALUE_TAG = (1 << 3) | WIRE.len;

function keyValue(f: Fields): { key: string; json: unknown; text: string } {
  let key = '';
  let value = { json: '' as unknown, text: '' };
  for (let field = f.next(); field !== 0; field = f.next()) {
    if (field === 1) key = f.string(1);
    else if (field === 2) {
      const v = f.sub(2, 'AnyValue');
      // Nearly every attribute is a string: read it without anyValue's loop when it is all the value holds.
      if (v.r.pos < v.end && v.r.buf[v.r.pos] === STRING_VALUE_TAG) {
        v.next();
        const s = v.string(1);
        value = v.r.pos === v.end ? { json: s, text: s } : anyValue(v, { json: s, text: s });
      } else value = anyValue(v);
    } else f.skip();
  }
  return { key, json: value.json, text: value.text };
}

function attribute(f: Fields, field: number, out: Attribute[]): void {
  const kv = keyValue(f.sub(field, 'KeyValue'));
  out.push({ key: kv.key, value: kv.text });
}

/** An id as hex, '' when empty or all zeros (pcommon's IsEmpty). */
function idHex(b: Uint8Array): string {
  return b.every((x) => x === 0) ? '' : hexString(b);
}

function exemplar(f: Fields): Exemplar {
  const e: Exemplar = { attributes: [], timeMs: 0, value: 0, traceId: '', spanId: '' };
  for (let field = f.next(); field !== 0; field = f.next()) {
    if (field === 7) attribute(f, 7, e.attributes);
    else if (field === 2) e.timeMs = f.timeMs(2);
    else if (field === 3) e.value = f.double(3);
    else if (field === 6) e.value = f.sfixed64(6);
    else if (field === 4) e.spanId = idHex(f.bytes(4));
    else if (field === 5) e.traceId = idHex(f.bytes(5));
    else f.skip();
  }
  return e;
}

/**
 * The attributes of a number point: its attribute fields at [from, to)
 * of `body` (NumberPoint.attributesAt, attributesEnd).
 *
 * @throws MalformedRequestError (an offset of the body) for a field that does not decode.
 */
export function readAttributes(body: Uint8Array, from: number, to: number): Attribute[] {
  const r = new WireReader(body);
  r.pos = from;
  const f = new Fields(r, to, 'NumberDataPoint');
  const out: Attribute[] = [];
  for (let field = f.next(); field !== 0; field = f.next()) {
    if (field === 7) attribute(f, 7, out);
    else f.skip();
  }
  return out;
}

/**
 * A NumberDataPoint. Its attributes, when they come as one run of fields
 * (as every encoder writes them), are kept as where that run is, read
 * only if the series is not already known (SeriesSink.known); their
 * framing is checked here.
 */
function numberPoint(f: Fields): NumberPoint {
  // One shape for every point; the lists are made only for a point that has some.
  const p: NumberPoint = { attributes: NONE, attributesAt: undefined, attributesEnd: undefined, timeMs: 0, flags: 0, exemplars: NONE, value: 0 };
  const r = f.r;
  let runFrom = -1;
  let runTo = -1;
  // Fast path for the layout the OpenTelemetry encoders write: times,
  // value, a run of attributes with one-byte lengths, small flags, read
  // by their tag bytes. Anything else goes on in the general loop below,
  // from where this one stopped (which also names any fault).
  const buf = r.buf;
  const view = r.view;
  const end = f.end;
  let pos = r.pos;
  while (pos < end) {
    const tag = buf[pos]!;
    if (tag === ATTRIBUTE_TAG && (runFrom < 0 || pos === runTo)) {
      const n = buf[pos + 1]!;
      if (n >= 0x80 || pos + 2 + n > end) break;
      if (runFrom < 0) runFrom = pos;
      pos += 2 + n;
      runTo = pos;
    } else if (tag === START_TIME_TAG || tag === TIME_TAG || tag === DOUBLE_TAG || tag === INT_TAG) {
      if (pos + 9 > end) break;
      if (tag === TIME_TAG) p.timeMs = nanosToMs(view.getUint32(pos + 1, true), view.getUint32(pos + 5, true));
      else if (tag === DOUBLE_TAG) p.value = view.getFloat64(pos + 1, true);
      else if (tag === INT_TAG) p.value = view.getInt32(pos + 5, true) * 4294967296 + view.getUint32(pos + 1, true);
      pos += 9;
    } else if (tag === FLAGS_TAG && pos + 1 < end && buf[pos + 1]! < 0x80) {
      p.flags = buf[pos + 1]!;
      pos += 2;
    } else break;
  }
  r.pos = pos;
  for (let field = f.next(); field !== 0; field = f.next()) {
    if (field === 7) {
      const at = r.tagAt;
      if (f.wire === WIRE.len && (runFrom < 0 || at === runTo) && runTo !== -2) {
        r.pos = r.len(f.end);
        if (runFrom < 0) runFrom = at;
        runTo = r.pos;
      } else {
        // Not one run: read them all now, the run's too.
        if (p.attributes === NONE) p.attributes = [];
        if (runFrom >= 0) p.attributes.push(...readAttributes(r.buf, runFrom, runTo));
        runFrom = -1;
        runTo = -2;
        attribute(f, 7, p.attributes);
      }
    } else if (field === 3) p.timeMs = f.timeMs(3);
    else if (field === 4) p.value = f.double(4);
    else if (field === 6) p.value = f.sfixed64(6);
    else if (field === 5) {
      if (p.exemplars === NONE) p.exemplars = [];
      p.exemplars.push(exemplar(f.sub(5, 'Exemplar')));
    } else if (field === 8) p.flags = f.varint(8);
    else f.skip();
  }
  if (runFrom >= 0) {
    p.attributesAt = runFrom;
    p.attributesEnd = runTo;
  }
  return p;
}

function histogramPoint(f: Fields): HistogramPoint {
  const p: HistogramPoint = { attributes: [], timeMs: 0, flags: 0, exemplars: [], count: 0, sum: undefined, bucketCounts: [], bounds: [] };
  for (let field = f.next(); field !== 0; field = f.next()) {
    if (field === 9) attribute(f, 9, p.attributes);
    else if (field === 3) p.timeMs = f.timeMs(3);
    else if (field === 4) p.count = f.count(4);
    else if (field === 5) p.sum = f.double(5);
    else if (field === 6) f.packed64(6, p.bucketCounts, u64);
    else if (field === 7) f.packed64(7, p.bounds, f64);
    else if (field === 8) p.exemplars.push(exemplar(f.sub(8, 'Exemplar')));
    else if (field === 10) p.flags = f.varint(10);
    else f.skip();
  }
  return p;
}

function buckets(f: Fields): Buckets {
  const b: Buckets = { offset: 0, counts: [] };
  for (let field = f.next(); field !== 0; field = f.next()) {
    if (field === 1) b.offset = f.sint32(1);
    else if (field === 2) f.packedVarint(2, b.counts);
    else f.skip();
  }
  return b;
}

function expHistogramPoint(f: Fields): ExpHistogramPoint {
  const p: ExpHistogramPoint = {
    attributes: [], timeMs: 0, flags: 0, exemplars: [], count: 0, sum: undefined, scale: 0, zeroCount: 0, zeroThreshold: 0,
    positive: { offset: 0, counts: [] }, negative: { offset: 0, counts: [] },
  };
  for (let field = f.next(); field !== 0; field = f.next()) {
    if (field === 1) attribute(f, 1, p.attributes);
    else if (field === 3) p.timeMs = f.timeMs(3);
    else if (field === 4) p.count = f.count(4);
    else if (field === 5) p.sum = f.double(5);
    else if (field === 6) p.scale = f.sint32(6);
    else if (field === 7) p.zeroCount = f.count(7);
    else if (field === 8) p.positive = buckets(f.sub(8, 'Buckets'));
    else if (field === 9) p.negative = buckets(f.sub(9, 'Buckets'));
    else if (field === 10) p.flags = f.varint(10);
    else if (field === 11) p.exemplars.push(exemplar(f.sub(11, 'Exemplar')));
    else if (field === 14) p.zeroThreshold = f.double(14);
    else f.skip();
  }
  return p;
}

function summaryPoint(f: Fields): SummaryPoint {
  const p: SummaryPoint = { attributes: [], timeMs: 0, flags: 0, exemplars: [], count: 0, sum: 0, quantiles: [] };
  for (let field = f.next(); field !== 0; field = f.next()) {
    if (field === 7) attribute(f, 7, p.attributes);
    else if (field === 3) p.timeMs = f.timeMs(3);
    else if (field === 4) p.count = f.count(4);
    else if (field === 5) p.sum = f.double(5);
    else if (field === 6) {
      const q = f.sub(6, 'ValueAtQuantile');
      const v = { quantile: 0, value: 0 };
      for (let g = q.next(); g !== 0; g = q.next()) {
        if (g === 1) v.quantile = q.double(1);
        else if (g === 2) v.value = q.double(2);
        else q.skip();
      }
      p.quantiles.push(v);
    } else if (field === 8) p.flags = f.varint(8);
    else f.skip();
  }
  return p;
}

/** Gauge, Sum, Histogram, ExponentialHistogram or Summary: points, temporality, monotonicity. */
function data<P>(f: Fields, point: (f: Fields) => P, message: string): { points: P[]; temporality: number; monotonic: boolean } {
  const out = { points: [] as P[], temporality: 0, monotonic: false };
  for (let field = f.next(); field !== 0; field = f.next()) {
    if (field === 1) out.points.push(point(f.sub(1, message)));
    else if (field === 2) out.temporality = f.varint(2);
    else if (field === 3) out.monotonic = f.varint(3) !== 0;
    else f.skip();
  }
  return out;
}

function metric(f: Fields): Metric {
  const m: Metric = { name: '', description: '', unit: '', data: { kind: 'none' } };
  for (let field = f.next(); field !== 0; field = f.next()) {
    let d: MetricData | undefined;
    if (field === 1) m.name = f.string(1);
    else if (field === 2) m.description = f.string(2);
    else if (field === 3) m.unit = f.string(3);
    else if (field === 5) d = { kind: 'gauge', points: data(f.sub(5, 'Gauge'), numberPoint, 'NumberDataPoint').points };
    else if (field === 7) {
      const s = data(f.sub(7, 'Sum'), numberPoint, 'NumberDataPoint');
      d = { kind: 'sum', points: s.points, temporality: s.temporality, monotonic: s.monotonic };
    } else if (field === 9) {
      const h = data(f.sub(9, 'Histogram'), histogramPoint, 'HistogramDataPoint');
      d = { kind: 'histogram', points: h.points, temporality: h.temporality };
    } else if (field === 10) {
      const h = data(f.sub(10, 'ExponentialHistogram'), expHistogramPoint, 'ExponentialHistogramDataPoint');
      d = { kind: 'exponential_histogram', points: h.points, temporality: h.temporality };
    } else if (field === 11) d = { kind: 'summary', points: data(f.sub(11, 'Summary'), summaryPoint, 'SummaryDataPoint').points };
    else f.skip();
    if (d !== undefined) m.data = d;
  }
  return m;
}

/**
 * A ScopeMetrics: its scope first (a first walk that skips the metrics,
 * as the fields may come in any order), then each metric as it is read.
 */
function scopeMetrics(f: Fields, v: MetricsVisitor): void {
  const s: Scope = { name: '', version: '', schemaUrl: '', attributes: [] };
  const from = f.r.pos;
  for (let field = f.next(); field !== 0; field = f.next()) {
    if (field === 1) {
      const scope = f.sub(1, 'InstrumentationScope');
      for (let g = scope.next(); g !== 0; g = scope.next()) {
        if (g === 1) s.name = scope.string(1);
        else if (g === 2) s.version = scope.string(2);
        else if (g === 3) attribute(scope, 3, s.attributes);
        else scope.skip();
      }
    } else if (field === 3) s.schemaUrl = f.string(3);
    else f.skip();
  }
  v.scope(s);
  f.r.pos = from;
  for (let field = f.next(); field !== 0; field = f.next()) {
    if (field === 2) v.metric(metric(f.sub(2, 'Metric')));
    else f.skip();
  }
}

/** A ResourceMetrics: its resource first (a first walk, as in scopeMetrics), then its scopes. */
function resourceMetrics(f: Fields, v: MetricsVisitor): void {
  const attributes: Attribute[] = [];
  const from = f.r.pos;
  for (let field = f.next(); field !== 0; field = f.next()) {
    if (field === 1) {
      const res = f.sub(1, 'Resource');
      for (let g = res.next(); g !== 0; g = res.next()) {
        if (g === 1) attribute(res, 1, attributes);
        else res.skip();
      }
    } else f.skip();
  }
  v.resource(attributes);
  f.r.pos = from;
  for (let field = f.next(); field !== 0; field = f.next()) {
    if (field === 2) scopeMetrics(f.sub(2, 'ScopeMetrics'), v);
    else f.skip();
  }
  v.endResource();
}

/**
 * Decodes an ExportMetricsServiceRequest into `v`, metric by metric: no
 * metric is kept once handed over, so a large request never lives whole
 * as objects.
 *
 * @throws MalformedRequestError naming the offset and what was wrong;
 *   `v` may have been given the parts before it.
 */
export function readMetricsRequest(bytes: Uint8Array, v: MetricsVisitor): void {
  const top = new Fields(new WireReader(bytes), bytes.length, 'ExportMetricsServiceRequest');
  for (let field = top.next(); field !== 0; field = top.next()) {
    if (field === 1) resourceMetrics(top.sub(1, 'ResourceMetrics'), v);
    else top.skip();
  }
}
