/**
 * Reads an OTLP ExportMetricsServiceRequest from the OTLP/HTTP JSON
 * mapping (the OTLP specification, "JSON Protobuf Encoding"): field names
 * in lowerCamelCase (snake_case accepted too, as protobuf's JSON parsers
 * do), 64-bit integers as decimal strings or numbers, enums as integers,
 * trace and span ids as hex, bytes values as base64. A slower path than
 * proto-reader.ts; same shapes out.
 */
import { malformedRequest } from '../errors/errors.js';
import { goFloatString } from './any-value.js';
import type {
  Attribute, Buckets, Exemplar, ExpHistogramPoint, HistogramPoint, Metric, MetricData, MetricsRequest, NumberPoint, SummaryPoint,
} from './model.js';

type Obj = Record<string, unknown>;

const decoder = new TextDecoder('utf-8', { fatal: true });

function bad(detail: string): never {
  throw malformedRequest(0, `OTLP JSON: ${detail}`);
}

/** A field by its lowerCamelCase name or its proto name. */
function get(o: Obj, camel: string): unknown {
  if (camel in o) return o[camel];
  const snake = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return o[snake];
}

function obj(v: unknown, what: string): Obj {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) bad(`${what} is not an object`);
  return v as Obj;
}

function list(v: unknown, what: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) bad(`${what} is not an array`);
  return v;
}

function str(v: unknown, what: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') bad(`${what} is not a string`);
  return v;
}

/** A 64-bit integer given as a string or a number. */
function bigint(v: unknown, what: string): bigint {
  if (v === undefined || v === null) return 0n;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v);
  return bad(`${what} is not an integer`);
}

function int(v: unknown, what: string): number {
  return Number(bigint(v, what));
}

/** A double: a number, or "NaN", "Infinity", "-Infinity" as protobuf's JSON writes them. */
function double(v: unknown, what: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
  return bad(`${what} is not a number`);
}

const timeMs = (v: unknown, what: string): number => Number(bigint(v, what) / 1_000_000n);

/** AnyValue as JSON-able and as its string (pcommon's AsString). */
function anyValue(v: unknown): { json: unknown; text: string } {
  const o = obj(v, 'AnyValue');
  if ('stringValue' in o || 'string_value' in o) {
    const s = str(get(o, 'stringValue'), 'stringValue');
    return { json: s, text: s };
  }
  if ('boolValue' in o || 'bool_value' in o) {
    const b = get(o, 'boolValue') === true;
    return { json: b, text: String(b) };
  }
  if ('intValue' in o || 'int_value' in o) {
    const n = bigint(get(o, 'intValue'), 'intValue');
    return { json: Number(n), text: n.toString() };
  }
  if ('doubleValue' in o || 'double_value' in o) {
    const d = double(get(o, 'doubleValue'), 'doubleValue');
    return { json: d, text: goFloatString(d) };
  }
  if ('arrayValue' in o || 'array_value' in o) {
    const items = list(get(obj(get(o, 'arrayValue'), 'arrayValue'), 'values'), 'values').map((x) => anyValue(x).json);
    return { json: items, text: JSON.stringify(items) };
  }
  if ('kvlistValue' in o || 'kvlist_value' in o) {
    const m: Obj = {};
    for (const kv of list(get(obj(get(o, 'kvlistValue'), 'kvlistValue'), 'values'), 'values')) {
      const k = obj(kv, 'KeyValue');
      m[str(k['key'], 'key')] = anyValue(k['value']).json;
    }
    return { json: m, text: JSON.stringify(m) };
  }
  if ('bytesValue' in o || 'bytes_value' in o) {
    const s = str(get(o, 'bytesValue'), 'bytesValue');
    return { json: s, text: s };
  }
  return { json: '', text: '' };
}

function attributes(v: unknown): Attribute[] {
  return list(v, 'attributes').map((kv) => {
    const o = obj(kv, 'KeyValue');
    return { key: str(o['key'], 'key'), value: anyValue(o['value']).text };
  });
}

/** A trace or span id: hex in OTLP JSON; '' when absent or all zeros. */
function id(v: unknown, what: string): string {
  const s = str(v, what).toLowerCase();
  if (!/^[0-9a-f]*$/.test(s) || s.length % 2 !== 0) bad(`${what} is not hex`);
  return /^0*$/.test(s) ? '' : s;
}

function exemplars(v: unknown): Exemplar[] {
  return list(v, 'exemplars').map((x) => {
    const o = obj(x, 'Exemplar');
    const asInt = get(o, 'asInt');
    return {
      attributes: attributes(get(o, 'filteredAttributes')),
      timeMs: timeMs(get(o, 'timeUnixNano'), 'timeUnixNano'),
      value: asInt !== undefined ? int(asInt, 'asInt') : double(get(o, 'asDouble'), 'asDouble'),
      traceId: id(get(o, 'traceId'), 'traceId'),
      spanId: id(get(o, 'spanId'), 'spanId'),
    };
  });
}

function base(o: Obj): { attributes: Attribute[]; timeMs: number; flags: number; exemplars: Exemplar[] } {
  return {
    attributes: attributes(get(o, 'attributes')),
    timeMs: timeMs(get(o, 'timeUnixNano'), 'timeUnixNano'),
    flags: int(get(o, 'flags'), 'flags'),
    exemplars: exemplars(get(o, 'exemplars')),
  };
}

function numberPoint(v: unknown): NumberPoint {
  const o = obj(v, 'NumberDataPoint');
  const asInt = get(o, 'asInt');
  return { ...base(o), value: asInt !== undefined ? int(asInt, 'asInt') : double(get(o, 'asDouble'), 'asDouble') };
}

function optionalSum(o: Obj): number | undefined {
  const s = get(o, 'sum');
  return s === undefined || s === null ? undefined : double(s, 'sum');
}

function histogramPoint(v: unknown): HistogramPoint {
  const o = obj(v, 'HistogramDataPoint');
  return {
    ...base(o),
    count: int(get(o, 'count'), 'count'),
    sum: optionalSum(o),
    bucketCounts: list(get(o, 'bucketCounts'), 'bucketCounts').map((c) => int(c, 'bucketCounts')),
    bounds: list(get(o, 'explicitBounds'), 'explicitBounds').map((b) => double(b, 'explicitBounds')),
  };
}

function buckets(v: unknown): Buckets {
  const o = obj(v, 'Buckets');
  return { offset: int(get(o, 'offset'), 'offset'), counts: list(get(o, 'bucketCounts'), 'bucketCounts').map((c) => int(c, 'bucketCounts')) };
}

function expPoint(v: unknown): ExpHistogramPoint {
  const o = obj(v, 'ExponentialHistogramDataPoint');
  return {
    ...base(o),
    count: int(get(o, 'count'), 'count'),
    sum: optionalSum(o),
    scale: int(get(o, 'scale'), 'scale'),
    zeroCount: int(get(o, 'zeroCount'), 'zeroCount'),
    zeroThreshold: double(get(o, 'zeroThreshold'), 'zeroThreshold'),
    positive: buckets(get(o, 'positive')),
    negative: buckets(get(o, 'negative')),
  };
}

function summaryPoint(v: unknown): SummaryPoint {
  const o = obj(v, 'SummaryDataPoint');
  return {
    ...base(o),
    count: int(get(o, 'count'), 'count'),
    sum: double(get(o, 'sum'), 'sum'),
    quantiles: list(get(o, 'quantileValues'), 'quantileValues').map((q) => {
      const qo = obj(q, 'ValueAtQuantile');
      return { quantile: double(get(qo, 'quantile'), 'quantile'), value: double(get(qo, 'value'), 'value') };
    }),
  };
}

function metric(v: unknown): Metric {
  const o = obj(v, 'Metric');
  const points = <P>(d: Obj, f: (x: unknown) => P): P[] => list(get(d, 'dataPoints'), 'dataPoints').map(f);
  let data: MetricData = { kind: 'none' };
  const g = get(o, 'gauge');
  const s = get(o, 'sum');
  const h = get(o, 'histogram');
  const e = get(o, 'exponentialHistogram');
  const q = get(o, 'summary');
  if (g !== undefined) data = { kind: 'gauge', points: points(obj(g, 'gauge'), numberPoint) };
  else if (s !== undefined) {
    const so = obj(s, 'sum');
    data = { kind: 'sum', points: points(so, numberPoint), temporality: int(get(so, 'aggregationTemporality'), 'aggregationTemporality'), monotonic: get(so, 'isMonotonic') === true };
  } else if (h !== undefined) {
    const ho = obj(h, 'histogram');
    data = { kind: 'histogram', points: points(ho, histogramPoint), temporality: int(get(ho, 'aggregationTemporality'), 'aggregationTemporality') };
  } else if (e !== undefined) {
    const eo = obj(e, 'exponentialHistogram');
    data = { kind: 'exponential_histogram', points: points(eo, expPoint), temporality: int(get(eo, 'aggregationTemporality'), 'aggregationTemporality') };
  } else if (q !== undefined) data = { kind: 'summary', points: points(obj(q, 'summary'), summaryPoint) };
  return { name: str(get(o, 'name'), 'name'), description: str(get(o, 'description'), 'description'), unit: str(get(o, 'unit'), 'unit'), data };
}

/**
 * Decodes the JSON form of an ExportMetricsServiceRequest.
 *
 * @throws MalformedRequestError for bytes that are not UTF-8 JSON of that shape.
 */
export function readJsonMetricsRequest(bytes: Uint8Array): MetricsRequest {
  let root: unknown;
  try {
    root = JSON.parse(decoder.decode(bytes));
  } catch (err) {
    return bad((err as Error).message);
  }
  return list(get(obj(root, 'request'), 'resourceMetrics'), 'resourceMetrics').map((rmv) => {
    const rm = obj(rmv, 'ResourceMetrics');
    return {
      attributes: attributes(get(obj(get(rm, 'resource'), 'resource'), 'attributes')),
      scopes: list(get(rm, 'scopeMetrics'), 'scopeMetrics').map((smv) => {
        const sm = obj(smv, 'ScopeMetrics');
        const scope = obj(get(sm, 'scope'), 'scope');
        return {
          name: str(get(scope, 'name'), 'name'),
          version: str(get(scope, 'version'), 'version'),
          schemaUrl: str(get(sm, 'schemaUrl'), 'schemaUrl'),
          attributes: attributes(get(scope, 'attributes')),
          metrics: list(get(sm, 'metrics'), 'metrics').map(metric),
        };
      }),
    };
  });
}
