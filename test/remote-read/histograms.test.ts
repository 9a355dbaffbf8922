/**
 * Native histograms through Prometheus remote read (POST /api/v1/read),
 * the route's handler run in process over an engine whose block holds
 * histogram chunks, SAMPLES answers encoded in the worker pool:
 * - SAMPLES: TimeSeries.histograms (field 4) as Prometheus'
 *   ToQueryResult fills them (integer histograms with count_int and
 *   deltas, float ones with count_float and counts, reset hints,
 *   timestamps), floats of the same series in `samples`, only what the
 *   range holds;
 * - STREAMED_XOR_CHUNKS: chunks of prompb Chunk types HISTOGRAM (2) and
 *   FLOAT_HISTOGRAM (3) as stored.
 * Expected values come from the test's own decoding of the chunks written.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { uncompress } from 'snappy';
import { writeBlock } from '../../src/blocks/block-writer.js';
import type { BlockSeriesInput } from '../../src/blocks/types.js';
import type { FloatHistogram, Histogram } from '../../src/chunkenc/histogram/types.js';
import { Db } from '../../src/db/db.js';
import { ReadResponse, ReadRequest_ResponseType as RT } from '../../src/gen/prometheus/remote.js';
import type { Histogram as HistogramMessage } from '../../src/gen/prometheus/types.js';
import { Readiness } from '../../src/http/prometheus/readiness.js';
import { remoteReadRoute } from '../../src/http/prometheus/remote-read.js';
import type { Reply, RequestContext } from '../../src/http/route.js';
import { CodecPool } from '../../src/pool/codec-pool.js';
import { decodeFrames, readRequestBody, type ReadQuery } from '../http/prometheus/support/prom-wire.js';
import {
  FLOAT_HISTOGRAM, HISTOGRAM, XOR, chunkSamples, floatValues, histogramChunk, histogramSamples, samplesOf, STALE_BITS, xorChunk, type AnySample, type TestChunk,
} from '../support/histogram-series.js';

const T0 = 236_111 * 7_200_000;
const END = T0 + 7_200_000;
const STEP = 15_000;
const TENANT = ['tenant_id', 'default-tenant'];
const ALL = { start: -8.64e15, end: 8.64e15 };

function makeSeries(): BlockSeriesInput[] {
  const a = histogramSamples(150, T0, STEP, 11, { resetAt: 120 });
  a.h[120]!.counterResetHint = 1;
  const ints = [histogramChunk(HISTOGRAM, a.t.slice(0, 120), a.h.slice(0, 120)), histogramChunk(HISTOGRAM, a.t.slice(120), a.h.slice(120))];
  const b = histogramSamples(70, T0 + 5, STEP, 12, { float: true, staleLast: true, schema: 0 });
  const floats = [histogramChunk(FLOAT_HISTOGRAM, b.t, b.h)];
  const f = Array.from({ length: 30 }, (_, i) => T0 + i * STEP);
  const h = histogramSamples(50, T0 + 30 * STEP, STEP, 13);
  const g = Array.from({ length: 10 }, (_, i) => T0 + (80 + i) * STEP);
  const mixed = [xorChunk(f, floatValues(30, 14)), histogramChunk(HISTOGRAM, h.t, h.h), xorChunk(g, floatValues(10, 15))];
  return [
    { labels: ['__name__', 'rr_float', 'job', 'b', ...TENANT], chunks: floats },
    { labels: ['__name__', 'rr_int', 'job', 'a', ...TENANT], chunks: ints },
    { labels: ['__name__', 'rr_mixed', 'job', 'c', ...TENANT], chunks: mixed },
  ];
}

/** The prometheus.Histogram Prometheus' HistogramToHistogramProto / FloatHistogramToHistogramProto make of a sample (as ts-proto decodes it). */
function expectedMessage(s: AnySample): HistogramMessage {
  assert.notEqual(s.kind, 'float');
  if (s.kind === 'float') throw new Error('not a histogram');
  const float = s.kind === 'float-histogram';
  const h = s.h as Histogram & FloatHistogram;
  return {
    count: float ? { $case: 'countFloat', value: h.count } : { $case: 'countInt', value: BigInt(h.count) },
    sum: h.sum,
    schema: h.schema,
    zeroThreshold: h.zeroThreshold,
    zeroCount: float ? { $case: 'zeroCountFloat', value: h.zeroCount } : { $case: 'zeroCountInt', value: BigInt(h.zeroCount) },
    negativeSpans: [...h.negativeSpans],
    negativeDeltas: float ? [] : h.negativeBuckets.map(BigInt),
    negativeCounts: float ? [...h.negativeBuckets] : [],
    positiveSpans: [...h.positiveSpans],
    positiveDeltas: float ? [] : h.positiveBuckets.map(BigInt),
    positiveCounts: float ? [...h.positiveBuckets] : [],
    resetHint: h.counterResetHint,
    timestamp: BigInt(s.t),
    customValues: [],
  };
}

function unlabelled(labels: readonly string[]): Array<{ name: string; value: string }> {
  const out = [];
  for (let i = 0; i < labels.length; i += 2) if (labels[i] !== 'tenant_id') out.push({ name: labels[i]!, value: labels[i + 1]! });
  return out;
}

describe('native histograms over remote read', () => {
  const series = makeSeries();
  let dir = '';
  let db: Db;
  let pool: CodecPool;
  let read: (ctx: RequestContext) => Reply | Promise<Reply>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-hread-'));
    const data = join(dir, 'data');
    const meta = await writeBlock({ blocksDir: join(data, 'blocks'), minTime: T0, maxTime: END, symbols: series.flatMap((s) => s.labels), series });
    assert.ok(meta);
    db = await Db.open({ dataDir: data, retentionIntervalMs: 3_600_000 });
    pool = new CodecPool({ workers: 1 });
    const readiness = new Readiness();
    readiness.markReady(db);
    read = remoteReadRoute({ readiness, pool, tenantLabel: 'tenant_id', maxBodyBytes: 1 << 20, log: pino({ level: 'silent' }) }).handler;
  });

  after(async () => {
    await pool?.close();
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function post(queries: ReadQuery[], types: RT[]): Promise<Reply> {
    const body = readRequestBody(queries, types);
    return read({ method: 'POST', path: '/api/v1/read', params: [], query: '', suffix: '', headers: { 'thanos-tenant': '' }, body });
  }

  async function samplesAnswer(queries: ReadQuery[]) {
    const reply = await post(queries, [RT.SAMPLES]);
    assert.equal(reply.status, 200);
    assert.equal(reply.contentType, 'application/x-protobuf');
    return ReadResponse.decode(await uncompress(Buffer.from(reply.body as Uint8Array)) as Buffer);
  }

  test('SAMPLES answers histograms (field 4) decoded from the stored chunks, floats of the same series in samples', async () => {
    const res = await samplesAnswer([{ matchers: [[2, '__name__', 'rr_.*']], ...ALL }]);
    const ts = res.results[0]!.timeseries;
    assert.deepEqual(ts.map((s) => s.labels), series.map((s) => unlabelled(s.labels)), 'labels as written, without the tenant label');
    ts.forEach((s, i) => {
      const want = samplesOf(series[i]!.chunks as TestChunk[]);
      const floats = want.filter((x) => x.kind === 'float');
      const hists = want.filter((x) => x.kind !== 'float');
      assert.deepEqual(s.samples.map((x) => x.timestamp), floats.map((x) => BigInt(x.t)), `float samples of ${i}`);
      assert.equal(s.histograms.length, hists.length, `histogram count of ${i}`);
      s.histograms.forEach((m, k) => assert.deepEqual(m, expectedMessage(hists[k]!), `histogram ${k} of series ${i}`));
    });
    // Integer histograms carry count_int and deltas; float ones count_float and counts.
    assert.equal(ts[1]!.histograms[0]!.count?.$case, 'countInt');
    assert.ok(ts[1]!.histograms[0]!.positiveDeltas.length > 0);
    assert.equal(ts[0]!.histograms[0]!.count?.$case, 'countFloat');
    assert.ok(ts[0]!.histograms[0]!.positiveCounts.length > 0);
    // The reset hints Prometheus' iterator reports: the counter reset at the second chunk's start, none after.
    assert.equal(ts[1]!.histograms[120]!.resetHint, 1);
    assert.equal(ts[1]!.histograms[121]!.resetHint, 2);
    // The float series ends in a stale marker: its sum keeps the stale NaN's bits.
    const sum = new Float64Array(1);
    sum[0] = ts[0]!.histograms.at(-1)!.sum;
    assert.equal(new BigUint64Array(sum.buffer)[0], STALE_BITS);
  });

  test('SAMPLES answers only the histograms the query\'s range holds', async () => {
    const start = T0 + 100 * STEP;
    const end = T0 + 130 * STEP;
    const res = await samplesAnswer([{ matchers: [[0, '__name__', 'rr_int']], start, end }]);
    const hs = res.results[0]!.timeseries[0]!.histograms;
    assert.deepEqual(hs.map((h) => Number(h.timestamp)), Array.from({ length: 31 }, (_, i) => start + i * STEP));
  });

  test('STREAMED_XOR_CHUNKS sends histogram chunks as stored, types HISTOGRAM (2) and FLOAT_HISTOGRAM (3)', async () => {
    const reply = await post([{ matchers: [[2, '__name__', 'rr_.*']], ...ALL }], [RT.STREAMED_XOR_CHUNKS]);
    assert.equal(reply.status, 200);
    const parts: Buffer[] = [];
    await reply.stream!({ aborted: false, write: async (c) => void parts.push(Buffer.from(c)) });
    const frames = decodeFrames(Buffer.concat(parts));
    assert.equal(frames.length, 3);
    frames.forEach((f, i) => {
      const want = series[i]!.chunks as TestChunk[];
      assert.deepEqual(f.labels, unlabelled(series[i]!.labels).map((l) => [l.name, l.value]));
      assert.deepEqual(f.chunks.map((c) => c.type), want.map((c) => c.encoding));
      f.chunks.forEach((c, k) => {
        assert.deepEqual(Buffer.from(c.data), Buffer.from(want[k]!.data), `chunk ${k} of frame ${i}`);
        assert.deepEqual(chunkSamples(c.type, c.data).length, chunkSamples(want[k]!.encoding, want[k]!.data).length);
      });
    });
    assert.deepEqual(frames[2]!.chunks.map((c) => c.type), [XOR, HISTOGRAM, XOR]);
    assert.deepEqual(frames[0]!.chunks.map((c) => c.type), [FLOAT_HISTOGRAM]);
  });
});
