// The series cache (src/ingest/series-cache.ts, series-keys.ts,
// series-table.ts, assembly/series-keys.ts): known remote-write series go
// by ref, with every rule of the full reading kept.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { Label } from '../../src/gen/thanos/store/labels.js';
import type { Db } from '../../src/db/db.js';
import { MatchType } from '../../src/index/types.js';
import { CodecPool } from '../../src/pool/codec-pool.js';
import { parseWriteRequest, KEY_RECORD_WORDS } from '../../src/ingest/parse/parse-write.js';
import { RequestKeys } from '../../src/ingest/series-keys.js';
import { grownSeriesTable, insertRef, newSeriesTable, probeRef, tableBytes } from '../../src/ingest/series-table.js';
import { SeriesCache } from '../../src/ingest/series-cache.js';
import { Writer } from '../../src/ingest/writer.js';
import { wasmHistogramCodecs } from '../../src/chunkenc/histogram/impl.js';
import { bitsHex, decodeSelected, openSmallDb, tempDir } from '../support/db.js';
import { decodeBatch, decodeHistogramBatch, headWasm, histogram, parse, rawSample, series, thanosRequest } from './support.js';

const tmp = tempDir('strata-series-cache-');
after(() => tmp.remove());

const encoder = new TextEncoder();
/** A tenant label's canonical bytes, `name 0xFF value 0xFF`. */
const tenantKey = (name: string, value: string) => Uint8Array.from([...encoder.encode(name), 0xff, ...encoder.encode(value), 0xff]);

describe('series table', () => {
  test('finds what was inserted, misses what was not, keeps the first ref of a key', () => {
    const w = new Int32Array(newSeriesTable(16));
    assert.equal(probeRef(w, 1, 2, 3), 0);
    assert.equal(insertRef(w, 1, 2, 3, 7), true);
    // Same slot start (low word 1 + 16k), other keys: linear probing keeps them apart.
    assert.equal(insertRef(w, 17, 2, 3, 8), true);
    assert.equal(insertRef(w, 1, 2, 5, 9), true);
    assert.equal(insertRef(w, 1, 2, 3, 10), false);
    assert.equal(probeRef(w, 1, 2, 3), 7);
    assert.equal(probeRef(w, 17, 2, 3), 8);
    assert.equal(probeRef(w, 1, 2, 5), 9);
    assert.equal(probeRef(w, 1, 2, 4), 0);
    assert.equal(probeRef(w, -1 >>> 0, 0, 0), 0);
  });

  test('takes 16 bytes a slot past its 32-byte header (a million series: 2M slots, 32 MiB)', () => {
    assert.equal(newSeriesTable(1024).byteLength, 32 + 16 * 1024);
    assert.equal(tableBytes(1 << 21), 32 + (32 << 20));
  });

  test('a grown table keeps the seeds and every key; it cannot shrink', () => {
    const small = newSeriesTable(8);
    const w = new Int32Array(small);
    for (let i = 1; i <= 6; i++) insertRef(w, i * 8, i, -i, i + 100);
    const big = new Int32Array(grownSeriesTable(small, 32));
    assert.equal(big[0], 32);
    assert.deepEqual([...big.subarray(1, 5)], [...w.subarray(1, 5)]);
    for (let i = 1; i <= 6; i++) assert.equal(probeRef(big, i * 8, i, -i), i + 100);
    assert.equal(probeRef(big, 7 * 8, 7, -7), 0);
    assert.throws(() => grownSeriesTable(small, 4), /cannot shrink/);
  });

  test('a cache that fills its table grows it and forgets nothing, learning from writes begun before too', () => {
    const cache = new SeriesCache(16);
    const before = cache.begin();
    // Two writes of 20 new series each: series k (0..39) has key words (k, 1, 2, 3) and got the id k (ref k + 1).
    const write = (first: number) => {
      const keys = new Int32Array(20 * KEY_RECORD_WORDS);
      for (let e = 0; e < 20; e++) keys.set([e, first + e, 1, 2, 3], e * KEY_RECORD_WORDS);
      return { keys: keys.buffer, ids: Uint32Array.from({ length: 20 }, (_, e) => first + e + 1) };
    };
    const one = write(0);
    cache.learn(before, one.keys, one.ids);
    const grown = cache.begin();
    assert.notEqual(grown.table, before.table);
    const two = write(20);
    cache.learn(before, two.keys, two.ids);
    assert.equal(cache.size, 40);
    const w = new Int32Array(cache.begin().table);
    assert.ok(w[0]! >= 64);
    for (let i = 0; i < 40; i++) assert.equal(probeRef(w, i, 1, 2), i + 1);
    cache.end(before);
    cache.end(grown);
  });

  test('every table has its own random seeds; capacities are powers of two', () => {
    const a = new Int32Array(newSeriesTable(16));
    const b = new Int32Array(newSeriesTable(16));
    assert.notDeepEqual([...a.subarray(1, 5)], [...b.subarray(1, 5)]);
    assert.throws(() => newSeriesTable(12), /power of two/);
  });
});

/** A TimeSeries written field by field: labels, samples, then more labels when `late` is given. */
function fieldsSeries(labels: string[], samples: [bigint, bigint][], late: string[] = []): Uint8Array {
  const w = new BinaryWriter();
  const put = (ls: string[]) => {
    for (let i = 0; i < ls.length; i += 2) Label.encode({ name: ls[i]!, value: ls[i + 1]! }, w.tag(1, WireType.LengthDelimited).fork()).join();
  };
  put(labels);
  for (const [t, bits] of samples) rawSample(w, bits, t);
  put(late);
  return w.finish();
}

function request(encoded: Uint8Array[], tenant = ''): Uint8Array {
  const w = new BinaryWriter();
  for (const s of encoded) w.tag(1, WireType.LengthDelimited).bytes(s);
  if (tenant !== '') w.tag(2, WireType.LengthDelimited).string(tenant);
  return w.finish();
}

describe('request keys', () => {
  const table = new Int32Array(newSeriesTable(64));
  const keysOf = (bytes: Uint8Array, n: number, tenant = 'default-tenant') => {
    const k = RequestKeys.of(headWasm(), bytes, n, tenantKey('tenant_id', tenant), table);
    assert.ok(k, 'keyed');
    const out = Array.from({ length: n }, (_, i) => {
      const key = new Int32Array(4);
      k.copyKey(i, key, 0);
      return { keyed: k.keyed(i), key: [...key].join(','), labelsEnd: k.labelsEnd(i) };
    });
    k.free();
    return out;
  };

  test('keys series by their leading labels, histograms too; exemplars, labels after samples and no labels are not keyed', () => {
    const plain = fieldsSeries(['__name__', 'up', 'job', 'a'], [[1000n, 0n]]);
    const withExemplar = thanosRequest([series(['__name__', 'e'], [[1n, 1]], { exemplars: [{ labels: [], value: 1, timestamp: 1n }] })]);
    const withHistogram = thanosRequest([series(['__name__', 'h'], [], { histograms: [histogram(5n)] })]);
    const late = fieldsSeries(['__name__', 'up'], [[1000n, 0n]], ['job', 'a']);
    const none = fieldsSeries([], [[1000n, 0n]]);
    const bytes = request([plain, late, none]);
    const [p, l, n] = keysOf(bytes, 3);
    assert.equal(p!.keyed, true);
    assert.equal(l!.keyed, false);
    assert.equal(n!.keyed, false);
    assert.equal(keysOf(withExemplar, 1)[0]!.keyed, false);
    assert.equal(keysOf(withHistogram, 1)[0]!.keyed, true);
    // The labels end where the first sample's tag is.
    assert.equal(bytes[p!.labelsEnd], (2 << 3) | 2);
  });

  test('the same label bytes give the same key in any request, another tenant or other labels another key', () => {
    const a = fieldsSeries(['__name__', 'up', 'job', 'a'], [[1000n, 0n]]);
    const a2 = fieldsSeries(['__name__', 'up', 'job', 'a'], [[2000n, 5n], [3000n, 6n]]);
    const b = fieldsSeries(['__name__', 'up', 'job', 'b'], [[1000n, 0n]]);
    const [k1, k2] = keysOf(request([a, b]), 2);
    const [k3] = keysOf(request([a2]), 1);
    const [k4] = keysOf(request([a]), 1, 'other');
    assert.equal(k1!.key, k3!.key);
    assert.notEqual(k1!.key, k2!.key);
    assert.notEqual(k1!.key, k4!.key);
  });

  test('a malformed request is not keyed (the full reading names its fault)', () => {
    const bytes = request([fieldsSeries(['__name__', 'up'], [[1000n, 0n]])]).slice(0, -3);
    assert.equal(RequestKeys.of(headWasm(), bytes, 1, tenantKey('tenant_id', 'x'), table), undefined);
  });
});

describe('parsing with the cache', () => {
  test('series the table holds go by ref, with exactly the samples of the full reading; the others are listed to learn', () => {
    const sab = newSeriesTable(64);
    const bytes = thanosRequest([series(['__name__', 'up', 'job', 'a'], [[1000n, 1], [2000n, 2]]), series(['__name__', 'up', 'job', 'b'], [[1000n, 3]])], 'acme');
    const first = parseWriteRequest(bytes, { dialect: 'thanos' }, headWasm(), sab);
    assert.equal(first.refEntries, 0);
    const keys = new Int32Array(first.keys!);
    assert.equal(keys.length, 2 * KEY_RECORD_WORDS);
    assert.deepEqual([keys[0], keys[KEY_RECORD_WORDS]], [0, 1]);
    // Learn entry 0 as series 41 (ref 42).
    insertRef(new Int32Array(sab), keys[1]!, keys[2]!, keys[3]!, 42);
    const second = parseWriteRequest(bytes, { dialect: 'thanos' }, headWasm(), sab);
    assert.equal(second.refEntries, 1);
    assert.equal(new Int32Array(second.keys!).length, KEY_RECORD_WORDS);
    const [byRef, byLabels] = decodeBatch(second.batch);
    const plain = decodeBatch(parse(bytes).batch);
    assert.equal(byRef!.ref, 42);
    assert.equal(byRef!.labelBytes.length, 0);
    assert.deepEqual([byRef!.timestamps, byRef!.valueBits], [plain[0]!.timestamps, plain[0]!.valueBits]);
    assert.deepEqual(byLabels, plain[1]);
    assert.equal(second.samples, 3);
  });

  test('a series of histograms only is listed to learn by its histogram entry, then goes by ref in both batches with the full reading\'s bodies', () => {
    const sab = newSeriesTable(64);
    const h = histogram(5000n);
    const bytes = thanosRequest([
      series(['__name__', 'floats'], [[1000n, 1]]),
      series(['__name__', 'hist'], [], { histograms: [h, { ...h, timestamp: 6000n, sum: 2.5 }] }),
      series(['__name__', 'both'], [[1000n, 2]], { histograms: [{ ...h, timestamp: 7000n }] }),
    ], 'acme');
    const first = parseWriteRequest(bytes, { dialect: 'thanos' }, headWasm(), sab);
    const keys = new Int32Array(first.keys!);
    // Float entries 0 and 1 ('floats', 'both'); 'hist' is histogram entry 0, listed as ~0.
    assert.deepEqual([keys[0], keys[KEY_RECORD_WORDS], keys[2 * KEY_RECORD_WORDS]], [0, ~0, 1]);
    insertRef(new Int32Array(sab), keys[KEY_RECORD_WORDS + 1]!, keys[KEY_RECORD_WORDS + 2]!, keys[KEY_RECORD_WORDS + 3]!, 7);
    insertRef(new Int32Array(sab), keys[2 * KEY_RECORD_WORDS + 1]!, keys[2 * KEY_RECORD_WORDS + 2]!, keys[2 * KEY_RECORD_WORDS + 3]!, 9);
    const second = parseWriteRequest(bytes, { dialect: 'thanos' }, headWasm(), sab);
    assert.deepEqual([second.refEntries, second.histogramRefEntries, second.histogramSamples], [1, 2, 3]);
    const plain = decodeHistogramBatch(parse(bytes).histogramBatch!);
    const byRef = decodeHistogramBatch(second.histogramBatch!);
    assert.deepEqual(byRef.map((e) => [e.ref, e.labels.length]), [[7, 0], [9, 0]]);
    assert.deepEqual(byRef.map((e) => [e.t, e.bodies]), plain.map((e) => [e.t, e.bodies]));
    assert.equal(decodeBatch(second.batch).find((e) => e.ref === 9)?.timestamps.length, 1);
  });

  test('a refused histogram of a series found by ref is counted and named by its series, the others kept', () => {
    const sab = newSeriesTable(64);
    const h = histogram(5000n);
    const good = series(['__name__', 'hist', 'job', 'x'], [], { histograms: [h] });
    const first = parseWriteRequest(thanosRequest([good]), { dialect: 'thanos' }, headWasm(), sab);
    const k = new Int32Array(first.keys!);
    insertRef(new Int32Array(sab), k[1]!, k[2]!, k[3]!, 3);
    const bad = series(['__name__', 'hist', 'job', 'x'], [], { histograms: [{ ...h, timestamp: 6000n }, { ...h, schema: 99, timestamp: 7000n }] });
    const bytes = thanosRequest([bad]);
    const second = parseWriteRequest(bytes, { dialect: 'thanos' }, headWasm(), sab);
    const full = parse(bytes);
    assert.deepEqual([second.histogramRefEntries, second.histogramSamples, second.invalidHistograms], [1, 1, 1]);
    assert.equal(second.firstInvalidHistogram, full.firstInvalidHistogram);
    assert.match(second.firstInvalidHistogram!, /^series 0 \{__name__="hist", job="x"\}: histogram 1 at 7000: /);
  });
});

describe('remote write through the cache, engine and pool', () => {
  const pool = new CodecPool({ workers: 2 });
  let db: Db;
  let writer: Writer;
  before(async () => {
    db = await openSmallDb(`${tmp.dir}/e2e`);
    writer = new Writer(db, pool, { tenantLabel: 'tenant_id' });
  });
  after(async () => {
    await db.close();
    await pool.close();
  });

  const opts = { dialect: 'thanos' as const };
  const N = 300;
  const req = (t: bigint, tenant = 'acme', value = (i: number) => i) =>
    thanosRequest(Array.from({ length: N }, (_, i) => series(['__name__', 'cached', 'i', String(i)], [[t, value(i)]])), tenant);
  const selectAll = (tenant: string) =>
    decodeSelected(db.querier().select([{ type: MatchType.EQ, name: '__name__', value: 'cached' }, { type: MatchType.EQ, name: 'tenant_id', value: tenant }], 0, 1e12));

  test('the second write finds every series: nothing created, every sample stored', async () => {
    await writer.write(req(1000n), opts);
    assert.equal(writer.seriesCache.size, N);
    const created = db.counters.seriesCreated;
    const out = await writer.write(req(2000n), opts);
    assert.equal(out.samples, N);
    assert.equal(db.counters.seriesCreated, created);
    const got = selectAll('acme');
    assert.equal(got.length, N);
    for (const s of got) assert.deepEqual(s.t, [1000, 2000]);
  });

  test('a rejected sample of a series found by ref is named by its labels', async () => {
    const out = await writer.write(req(1500n), opts);
    assert.ok(out.error);
    assert.match(out.error.message, /out of order sample \(300, first \{__name__="cached", i="0", tenant_id="acme"\} at 1500\)/);
  });

  test('the same label bytes under another tenant are another series', async () => {
    await writer.write(req(1000n, 'other'), opts);
    await writer.write(req(2000n, 'other', (i) => -(i + 1)), opts);
    const got = selectAll('other');
    assert.equal(got.length, N);
    for (const s of got) {
      const i = Number(s.labels[s.labels.indexOf('i') + 1]);
      assert.deepEqual(s.v, [bitsHex(i), bitsHex(-(i + 1))]);
    }
    assert.equal(selectAll('acme').length, N);
  });

  test('a write of many new series is appended in steps: every sample stored, rejections named by the right series', async () => {
    const n = 1300;
    // Series 1200 and on (in the third step) also carry a sample older than their first: out of order.
    const big = thanosRequest(Array.from({ length: n }, (_, i) => series(['__name__', 'stepped', 'i', String(i)], i >= 1200 ? [[5000n, i], [4000n, i]] : [[5000n, i]])), 'steps');
    const created = db.counters.seriesCreated;
    const out = await writer.write(big, opts);
    assert.equal(out.samples, n);
    assert.equal(db.counters.seriesCreated - created, n);
    assert.match(out.error!.message, /^100 samples rejected: out of order sample \(100, first \{__name__="stepped", i="1200", tenant_id="steps"\} at 4000\)$/);
    const got = decodeSelected(db.querier().select([{ type: MatchType.EQ, name: '__name__', value: 'stepped' }], 0, 1e12));
    assert.equal(got.length, n);
    assert.ok(got.every((s) => s.t.join() === '5000'));
  });

  test('histogram series are learned from their first write and found by the second: nothing created, every histogram stored', async () => {
    const n = 450;
    const h = histogram(0n);
    const hreq = (t: bigint) => thanosRequest(Array.from({ length: n }, (_, i) => series(['__name__', 'hcached', 'i', String(i)], [], {
      histograms: [{ ...h, timestamp: t, sum: i, count: { $case: 'countInt' as const, value: 3n + t / 1000n } }],
    })), 'hist');
    const learned = writer.seriesCache.size;
    assert.equal((await writer.write(hreq(1000n), opts)).histograms, n);
    assert.equal(writer.seriesCache.size - learned, n);
    const created = db.counters.seriesCreated;
    const hits = writer.seriesCache.hits;
    const out = await writer.write(hreq(2000n), opts);
    assert.deepEqual([out.histograms, out.error], [n, undefined]);
    assert.equal(db.counters.seriesCreated, created);
    assert.equal(writer.seriesCache.hits - hits, n);
    // A rejected histogram of a series found by ref is named by its labels.
    const late = await writer.write(hreq(1500n), opts);
    assert.match(late.error!.message, /out of order sample \(450, first \{__name__="hcached", i="0", tenant_id="hist"\} at 1500\)/);
    // Each series' histogram times, from its chunks.
    const times = () => db.querier().select([{ type: MatchType.EQ, name: '__name__', value: 'hcached' }], 0, 1e12)
      .map((s) => s.chunks.flatMap((c) => [...wasmHistogramCodecs().histogram.decode(c.data).timestamps].map(Number)).join());
    assert.deepEqual(new Set(times()), new Set(['1000,2000']));
    assert.equal(times().length, n);
    // Dropped while a write that found them is in flight: created again from their kept labels.
    const ids = [...db.head.all()].filter((s) => db.head.labelsOf(s).includes('hcached')).map((s) => s.id);
    const before = { hits: writer.seriesCache.hits, created: db.counters.seriesCreated };
    const writing = writer.write(hreq(3000n), opts);
    db.head.drop(Uint32Array.from(ids));
    const again = await writing;
    assert.deepEqual([again.histograms, again.error], [n, undefined]);
    assert.deepEqual([writer.seriesCache.hits - before.hits, db.counters.seriesCreated - before.created], [n, n], 'sent by ref, created again');
    assert.deepEqual(new Set(times()), new Set(['3000']));
    assert.equal(times().length, n);
  });

  test('series dropped while a write that found them is in flight are created again from their kept labels', async () => {
    const ids = [...db.head.all()].filter((s) => db.head.labelsOf(s).includes('acme')).map((s) => s.id).sort((a, b) => a - b);
    assert.equal(ids.length, N);
    const writing = writer.write(req(3000n), opts);
    // The write is parsing in the pool, against the table that knows every series.
    db.head.drop(Uint32Array.from(ids));
    assert.equal(selectAll('acme').length, 0);
    const out = await writing;
    assert.equal(out.error, undefined);
    assert.equal(out.samples, N);
    const got = selectAll('acme');
    assert.equal(got.length, N);
    for (const s of got) assert.deepEqual(s.t, [3000]);
    // And the table learns them again under their new ids.
    await writer.write(req(4000n), opts);
    assert.equal(selectAll('acme').every((s) => s.t.join() === '3000,4000'), true);
  });
});
