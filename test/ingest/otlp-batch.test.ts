// OTLP straight into the append batch (src/ingest/parse/otlp-batch.ts):
// a number point whose series the series cache knows goes by ref, keyed by
// the tenant, its resource's (and scope's) labels, the metric's name and
// its attribute bytes; everything else takes the full translation, whose
// labels the remote-write series parser checks. Then through the Writer
// and a real head: nothing is created twice, and what is stored is what
// the full translation would store.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ExportMetricsServiceRequest } from '../../src/gen/opentelemetry/proto/collector/metrics/v1/metrics_service.js';
import type { Db } from '../../src/db/db.js';
import { MatchType } from '../../src/index/types.js';
import { KEY_RECORD_WORDS } from '../../src/ingest/parse/batch-parse.js';
import { parseOtlpRequest } from '../../src/ingest/parse/otlp-batch.js';
import type { ParsedWrite } from '../../src/ingest/parse/parsed-write.js';
import { insertRef, newSeriesTable } from '../../src/ingest/series-table.js';
import { Writer } from '../../src/ingest/writer.js';
import { DEFAULT_OTLP_SETTINGS } from '../../src/otlp/settings.js';
import { CodecPool } from '../../src/pool/codec-pool.js';
import { bitsHex, decodeSelected, openSmallDb, tempDir } from '../support/db.js';
import { decodeBatch, headWasm } from './support.js';

const tmp = tempDir('strata-otlp-batch-');
after(() => tmp.remove());

const T_MS = 1_700_000_000_000;
const protobuf = { format: 'protobuf', gzip: false, maxDecodedBytes: 1 << 20, settings: DEFAULT_OTLP_SETTINGS } as const;
const str = (key: string, value: string) => ({ key, value: { value: { $case: 'stringValue', value } } });

interface Point {
  attrs: Array<[string, string]>;
  t: number;
  v: number;
  exemplar?: true;
}

/** One resource (service.name = `job`), one gauge `name` of these points. */
function request(job: string, name: string, points: Point[]): Uint8Array {
  const partial = { resourceMetrics: [{
    resource: { attributes: [str('service.name', job)] },
    scopeMetrics: [{ metrics: [{ name, data: { $case: 'gauge', value: { dataPoints: points.map((p) => ({
      attributes: p.attrs.map(([k, v]) => str(k, v)),
      timeUnixNano: BigInt(p.t) * 1_000_000n,
      value: { $case: 'asDouble', value: p.v },
      exemplars: p.exemplar ? [{ timeUnixNano: BigInt(p.t) * 1_000_000n, value: { $case: 'asDouble', value: p.v }, traceId: new Uint8Array(16).fill(1) }] : [],
    })) } } }] }],
  }] };
  // Cast: the generated DeepPartial/Exact types do not narrow the oneofs of a literal built apart from the call.
  return ExportMetricsServiceRequest.encode(ExportMetricsServiceRequest.fromPartial(partial as unknown as Parameters<typeof ExportMetricsServiceRequest.fromPartial>[0])).finish();
}

const points = (t: number, n = 3): Point[] => Array.from({ length: n }, (_, i) => ({ attrs: [['host', `h${i}`], ['cpu', String(i)]], t, v: i + 0.5 }));

/** Learns every key of `parsed` in `table`: entry e as ref 100 + e. */
function learnAll(table: SharedArrayBuffer, parsed: ParsedWrite): number {
  if (parsed.keys === undefined) return 0;
  const k = new Int32Array(parsed.keys);
  for (let at = 0; at < k.length; at += KEY_RECORD_WORDS) insertRef(new Int32Array(table), k[at + 1]!, k[at + 2]!, k[at + 3]!, 100 + k[at]!);
  return k.length / KEY_RECORD_WORDS;
}

const parse = (bytes: Uint8Array, table: SharedArrayBuffer, tenant = 'acme', body: typeof protobuf | { format: 'json' } & Omit<typeof protobuf, 'format'> = protobuf) =>
  parseOtlpRequest(bytes, body, { dialect: 'prometheus', tenant }, headWasm(), table);

describe('OTLP points by the series cache', () => {
  test('an empty tenant label name is refused, as parseWriteRequest refuses it', () => {
    assert.throws(() => parseOtlpRequest(request('api', 'load', points(T_MS)), protobuf, { dialect: 'prometheus', tenantLabel: '' }, headWasm()),
      (err: Error) => err instanceof RangeError && /tenantLabel must not be empty/.test(err.message));
  });

  test('a point sent again goes by ref with its own sample; a new one is listed to learn', () => {
    const table = newSeriesTable(64);
    const first = parse(request('api', 'load', points(T_MS)), table);
    assert.equal(first.refEntries, 0);
    assert.equal(learnAll(table, first), 3);
    const full = decodeBatch(first.batch);
    assert.deepEqual(full.map((e) => e.labels), [0, 1, 2].map((i) => ['__name__', 'load', 'cpu', String(i), 'host', `h${i}`, 'job', 'api', 'tenant_id', 'acme']));

    const next = points(T_MS + 15_000);
    next.push({ attrs: [['host', 'h9']], t: T_MS + 15_000, v: 9 });
    const second = parse(request('api', 'load', next), table);
    assert.equal(second.refEntries, 3);
    assert.equal(second.samples, 4);
    assert.equal(learnAll(table, second), 1);
    const entries = decodeBatch(second.batch);
    assert.deepEqual(entries.map((e) => e.ref), [100, 101, 102, 0]);
    assert.deepEqual(entries.map((e) => e.timestamps), [0, 1, 2, 3].map(() => [BigInt(T_MS + 15_000)]));
    // The same values as the full translation wrote the first time.
    assert.deepEqual(entries.slice(0, 3).map((e) => e.valueBits), full.map((e) => e.valueBits));
    assert.deepEqual(entries[3]!.labels, ['__name__', 'load', 'host', 'h9', 'job', 'api', 'tenant_id', 'acme']);
  });

  test('the same attribute bytes under another resource, metric or tenant are not found', () => {
    const table = newSeriesTable(64);
    learnAll(table, parse(request('api', 'load', points(T_MS)), table));
    assert.equal(parse(request('api', 'load', points(T_MS + 1)), table).refEntries, 3);
    assert.equal(parse(request('web', 'load', points(T_MS + 1)), table).refEntries, 0);
    assert.equal(parse(request('api', 'other', points(T_MS + 1)), table).refEntries, 0);
    assert.equal(parse(request('api', 'load', points(T_MS + 1)), table, 'someone-else').refEntries, 0);
  });

  test('points with exemplars, and JSON bodies, always take the full translation and are not keyed', () => {
    const table = newSeriesTable(64);
    const withExemplar: Point[] = [{ attrs: [['host', 'h0']], t: T_MS, v: 1, exemplar: true }];
    const a = parse(request('api', 'ex', withExemplar), table);
    assert.equal(a.keys, undefined);
    assert.equal(a.exemplars, 1);
    const json = new TextEncoder().encode(JSON.stringify({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'j', gauge: { dataPoints: [{ timeUnixNano: String(T_MS * 1e6), asDouble: 2 }] } }] }] }] }));
    const b = parse(json, table, 'acme', { ...protobuf, format: 'json' });
    assert.equal(b.keys, undefined);
    assert.equal(b.samples, 1);
  });

  test('a stale marker from a known series keeps Prometheus\' exact bits', () => {
    const table = newSeriesTable(64);
    learnAll(table, parse(request('api', 'gone', points(T_MS, 1)), table));
    const bytes = ExportMetricsServiceRequest.encode(ExportMetricsServiceRequest.fromPartial({ resourceMetrics: [{
      resource: { attributes: [str('service.name', 'api')] },
      scopeMetrics: [{ metrics: [{ name: 'gone', data: { $case: 'gauge', value: { dataPoints: [{
        attributes: [str('host', 'h0'), str('cpu', '0')], timeUnixNano: BigInt(T_MS + 1) * 1_000_000n, flags: 1,
      }] } } }] }],
    }] } as unknown as Parameters<typeof ExportMetricsServiceRequest.fromPartial>[0])).finish();
    const stale = parse(bytes, table);
    assert.equal(stale.refEntries, 1);
    assert.deepEqual(decodeBatch(stale.batch)[0]!.valueBits, [0x7ff0000000000002n]);
  });
});

describe('OTLP through the writer', () => {
  let db: Db;
  let writer: Writer;
  const pool = new CodecPool({ workers: 2 });

  before(async () => {
    db = await openSmallDb(`${tmp.dir}/e2e`);
    writer = new Writer(db, pool, { tenantLabel: 'tenant_id' });
  });
  after(async () => {
    await db.close();
    await pool.close();
  });

  const write = (bytes: Uint8Array, tenant = 'acme') => writer.write(bytes, { dialect: 'prometheus', tenant, otlp: protobuf });
  const select = (name: string, tenant = 'acme') =>
    decodeSelected(db.querier().select([{ type: MatchType.EQ, name: '__name__', value: name }, { type: MatchType.EQ, name: 'tenant_id', value: tenant }], 0, 1e15));

  test('the second export finds every series: nothing created, every sample stored', async () => {
    await write(request('api', 'load', points(T_MS, 50)));
    const created = db.counters.seriesCreated;
    const out = await write(request('api', 'load', points(T_MS + 15_000, 50).map((p) => ({ ...p, v: -p.v }))));
    assert.equal(out.samples, 50);
    assert.equal(db.counters.seriesCreated, created);
    assert.ok(writer.seriesCache.hits >= 50);
    const got = select('load');
    assert.equal(got.length, 50);
    for (const s of got) {
      const i = Number(s.labels[s.labels.indexOf('cpu') + 1]);
      assert.deepEqual(s.t, [T_MS, T_MS + 15_000]);
      assert.deepEqual(s.v, [bitsHex(i + 0.5), bitsHex(-(i + 0.5))]);
    }
  });

  test('the same attributes under another resource or tenant are other series', async () => {
    await write(request('web', 'load', points(T_MS, 50)));
    await write(request('api', 'load', points(T_MS, 50)), 'other');
    assert.equal(select('load').length, 100);
    assert.equal(select('load', 'other').length, 50);
    const jobs = new Set(select('load').map((s) => s.labels[s.labels.indexOf('job') + 1]));
    assert.deepEqual([...jobs].sort(), ['api', 'web']);
  });
});
