/**
 * Native histograms through the Store API over gRPC: a data directory
 * holding a block of histogram chunks (encodings 2 and 3, and a series
 * that changes encoding over time) opened by the engine and served by the
 * gRPC server; a Thanos-like client (test/store/support/client.ts) gets
 * chunks of thanos.Chunk types HISTOGRAM (1) and FLOAT_HISTOGRAM (2) as
 * stored, which decode, with the test's own decoder (the codec's
 * TypeScript oracle), to exactly what was written. The samples limit
 * counts histogram samples.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { writeBlock } from '../../src/blocks/block-writer.js';
import type { BlockSeriesInput } from '../../src/blocks/types.js';
import { Db } from '../../src/db/db.js';
import { instantiateHeadWasm } from '../../src/wasm/head.js';
import { ExternalLabels } from '../../src/store/external-labels.js';
import { serveStoreApi, type RunningGrpcServer } from '../../src/grpc/server.js';
import { engineStoreApi, type StoreApiConfig } from '../../src/store/store-stack.js';
import {
  FLOAT_HISTOGRAM, HISTOGRAM, comparable, floatValues, histogramChunk, histogramSamples, samplesOf, xorChunk, type TestChunk,
} from '../support/histogram-series.js';
import { StoreClient, grpc, re, type Series } from './support/client.js';

const T0 = 236_111 * 7_200_000;
const END = T0 + 7_200_000;
const STEP = 15_000;
const TENANT = ['tenant_id', 'default-tenant'];

/** Series as written: labels sorted (the tenant label stored with each, as the engine stores it). */
function makeSeries(): BlockSeriesInput[] {
  const a = histogramSamples(260, T0, STEP, 1, { resetAt: 200 });
  a.h[200]!.counterResetHint = 1;
  const ints: TestChunk[] = [
    histogramChunk(HISTOGRAM, a.t.slice(0, 120), a.h.slice(0, 120)),
    histogramChunk(HISTOGRAM, a.t.slice(120, 200), a.h.slice(120, 200)),
    histogramChunk(HISTOGRAM, a.t.slice(200), a.h.slice(200)),
  ];
  const b = histogramSamples(100, T0 + 3, STEP, 2, { float: true, staleLast: true });
  const floats = [histogramChunk(FLOAT_HISTOGRAM, b.t, b.h)];
  const f = Array.from({ length: 40 }, (_, i) => T0 + i * STEP);
  const h = histogramSamples(60, T0 + 40 * STEP, STEP, 3);
  const fh = histogramSamples(30, T0 + 100 * STEP, STEP, 4, { float: true });
  const g = Array.from({ length: 25 }, (_, i) => T0 + (130 + i) * STEP);
  const mixed = [
    xorChunk(f, floatValues(40, 5)),
    histogramChunk(HISTOGRAM, h.t, h.h),
    histogramChunk(FLOAT_HISTOGRAM, fh.t, fh.h),
    xorChunk(g, floatValues(25, 6)),
  ];
  return [
    { labels: ['__name__', 'h_float', 'job', 'b', ...TENANT], chunks: floats },
    { labels: ['__name__', 'h_int', 'job', 'a', ...TENANT], chunks: ints },
    { labels: ['__name__', 'h_mixed', 'job', 'c', ...TENANT], chunks: mixed },
  ];
}

function config(samplesLimit = 0): StoreApiConfig {
  return { externalLabels: new ExternalLabels([]), replicaLabels: new Set(), tenantLabel: 'tenant_id', seriesLimit: 0, samplesLimit };
}

const quiet = { info() {}, warn() {}, error() {} };

function labelsOf(s: Series): string[] {
  return s.labels.flatMap((l) => [l.name, l.value]);
}

describe('native histograms over the Store API (gRPC)', () => {
  const series = makeSeries();
  const total = series.reduce((n, s) => n + samplesOf(s.chunks as TestChunk[]).length, 0);
  let dir = '';
  let db: Db;
  const servers: RunningGrpcServer[] = [];
  const clients: StoreClient[] = [];

  async function client(samplesLimit = 0): Promise<StoreClient> {
    const server = await serveStoreApi(engineStoreApi(db, config(samplesLimit), instantiateHeadWasm()), { host: '127.0.0.1', port: 0, maxRecvBytes: 4 << 20, log: quiet });
    servers.push(server);
    const c = new StoreClient(`127.0.0.1:${server.port}`);
    clients.push(c);
    return c;
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-hgrpc-'));
    const data = join(dir, 'data');
    const meta = await writeBlock({ blocksDir: join(data, 'blocks'), minTime: T0, maxTime: END, symbols: series.flatMap((s) => s.labels), series });
    assert.ok(meta);
    db = await Db.open({ dataDir: data, retentionIntervalMs: 3_600_000 });
  });

  after(async () => {
    for (const c of clients) c.close();
    for (const s of servers) await s.close(0);
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('Series answers histogram chunks as stored, typed HISTOGRAM (1) and FLOAT_HISTOGRAM (2), decoding to what was written', async () => {
    const c = await client();
    const a = await c.series({ min_time: String(T0), max_time: String(END), matchers: [re('__name__', 'h_.*')] });
    assert.equal(a.code, grpc.status.OK, a.details);
    const got = a.frames.map((f) => f.series!);
    assert.deepEqual(got.map(labelsOf), series.map((s) => s.labels));
    got.forEach((s, i) => {
      const want = series[i]!.chunks as TestChunk[];
      const chunks: TestChunk[] = s.chunks.map((ch) => ({ minT: Number(ch.min_time), maxT: Number(ch.max_time), encoding: ch.raw!.type + 1, data: ch.raw!.data }));
      assert.deepEqual(chunks.map((ch) => ch.encoding), want.map((ch) => ch.encoding), `chunk types of ${labelsOf(s)}`);
      chunks.forEach((ch, k) => {
        assert.deepEqual(Buffer.from(ch.data), Buffer.from(want[k]!.data), `chunk ${k} of ${labelsOf(s)} is the stored bytes`);
        assert.equal(ch.minT, want[k]!.minT);
        assert.equal(ch.maxT, want[k]!.maxT);
      });
      assert.deepEqual(samplesOf(chunks).map(comparable), samplesOf(want).map(comparable), `samples of ${labelsOf(s)}`);
    });
    const types = got[2]!.chunks.map((ch) => ch.raw!.type);
    assert.deepEqual(types, [0, 1, 2, 0], 'a series changing encoding over time: its chunks in time order, each with its type');
  });

  test('a time range picks histogram chunks by their times, as stored', async () => {
    const c = await client();
    const from = T0 + 130 * STEP;
    const to = T0 + 150 * STEP;
    const a = await c.series({ min_time: String(from), max_time: String(to), matchers: [re('__name__', 'h_int')] });
    assert.equal(a.code, grpc.status.OK, a.details);
    const chunks = a.frames[0]!.series!.chunks;
    assert.equal(chunks.length, 1, 'only the chunk holding [from, to]');
    assert.equal(chunks[0]!.raw!.type, 1);
    assert.deepEqual(Buffer.from(chunks[0]!.raw!.data), Buffer.from(series[1]!.chunks[1]!.data));
  });

  test('label names and values see histogram series', async () => {
    const c = await client();
    const v = await c.labelValues({ label: '__name__', start: String(T0), end: String(END) });
    assert.equal(v.code, grpc.status.OK, v.details);
    assert.deepEqual(v.response!.values, ['h_float', 'h_int', 'h_mixed']);
    const n = await c.labelNames({ start: String(T0), end: String(END), matchers: [re('__name__', 'h_float')] });
    assert.deepEqual(n.response!.names, ['__name__', 'job', 'tenant_id']);
  });

  test('the samples limit counts histogram samples (their chunks\' 2-byte headers)', async () => {
    const exact = await client(total);
    const ok = await exact.series({ min_time: String(T0), max_time: String(END), matchers: [re('__name__', 'h_.*')] });
    assert.equal(ok.code, grpc.status.OK, `exactly ${total} samples are within a limit of ${total}: ${ok.details}`);
    const under = await client(total - 1);
    const refused = await under.series({ min_time: String(T0), max_time: String(END), matchers: [re('__name__', 'h_.*')] });
    assert.equal(refused.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.match(refused.details, new RegExp(`selects ${total} samples`));
    const histogramsOnly = series[0]!.chunks.length === 1 ? samplesOf(series[0]!.chunks as TestChunk[]).length : 0;
    const justFloats = await client(histogramsOnly - 1);
    const one = await justFloats.series({ min_time: String(T0), max_time: String(END), matchers: [re('__name__', 'h_float')] });
    assert.equal(one.code, grpc.status.RESOURCE_EXHAUSTED, 'a float histogram series alone is counted');
  });
});

