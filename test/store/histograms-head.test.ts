/**
 * Native histograms written through the head (db.appendHistograms, the
 * write path's entry point) and read back: after the head spans more than
 * 1.5 block ranges its oldest range is cut into a block, which must carry
 * the histogram chunks with their encodings; the Store API over gRPC then
 * answers blocks and head together, every series in time order whatever
 * its chunks' encodings, chunks that decode (the test's own decoder, the
 * codec's TypeScript oracle) to exactly the samples written.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BlockReader } from '../../src/blocks/block-reader.js';
import type { FloatHistogram, Histogram } from '../../src/chunkenc/histogram/types.js';
import { Db } from '../../src/db/db.js';
import { instantiateHeadWasm } from '../../src/wasm/head.js';
import { HistogramBatchBuilder } from '../../src/record/histogram-batch.js';
import { ExternalLabels } from '../../src/store/external-labels.js';
import { serveStoreApi, type RunningGrpcServer } from '../../src/grpc/server.js';
import { engineStoreApi } from '../../src/store/store-stack.js';
import { batchBuilder } from '../support/db.js';
import {
  FLOAT_HISTOGRAM, HISTOGRAM, XOR, comparable, floatValues, histogramChunk, histogramSamples, isStale, samplesOf, xorChunk, type AnySample, type TestChunk,
} from '../support/histogram-series.js';
import { onPath, runPromtool } from '../support/promtool-dump.js';
import { StoreClient, grpc, re, type Series } from './support/client.js';

const RANGE = 7_200_000;
/** On the 2 h grid. */
const T0 = 236_111 * RANGE;
const STEP = 30_000;
const TENANT = ['tenant_id', 'default-tenant'] as const;
const quiet = { info() {}, warn() {}, error() {} };

/** What was written, as the test's decoder reads it back from chunks of the same samples (one chunk a kind-run, hints aside). */
interface Written {
  labels: string[];
  samples: AnySample[];
}

function labelsOf(s: Series): string[] {
  return s.labels.flatMap((l) => [l.name, l.value]);
}

/** The oracle's reading of samples as written: encoded once, decoded once, so both sides go through the same normalisation (stale markers). */
function asRead(encoding: number, t: number[], h: Array<Histogram | FloatHistogram>): AnySample[] {
  const out: AnySample[] = [];
  for (let from = 0; from < t.length; from += 100) out.push(...samplesOf([histogramChunk(encoding, t.slice(from, from + 100), h.slice(from, from + 100))]));
  return out;
}

describe('native histograms written through the head, read over gRPC from the head and from the block cut from it', () => {
  let dir = '';
  let db: Db;
  let server: RunningGrpcServer;
  let client: StoreClient;
  const written: Written[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-hhead-'));
    db = await Db.open({ dataDir: join(dir, 'data'), retentionIntervalMs: 3_600_000 });
    const wasm = instantiateHeadWasm();
    // 4 h of samples every 30 s: the first 2 h range goes into a block.
    const n = (4 * RANGE) / 2 / STEP;
    const ints = histogramSamples(n, T0, STEP, 1, { resetAt: 300 });
    const floats = histogramSamples(n, T0 + 1_000, STEP, 2, { float: true, staleLast: true });
    // A series that changes kind over time: floats, integer histograms, float histograms, floats, integer histograms.
    const k = n / 5;
    assert.equal(k % 16, 0);
    const ft = Array.from({ length: n }, (_, i) => T0 + 2_000 + i * STEP);
    const fv = floatValues(n, 3);
    const mh = histogramSamples(n, T0 + 2_000, STEP, 4);
    const mf = histogramSamples(n, T0 + 2_000, STEP, 5, { float: true });
    const mixedLabels = ['__name__', 'h_mixed', 'job', 'c'];
    const kindAt = (i: number): 'f' | 'h' | 'fh' => (['f', 'h', 'fh', 'f', 'h'] as const)[Math.floor(i / k)]!;
    // Written in time order, a window at a time across the series (as
    // scrapes arrive): a window far ahead would make the earlier ones too old.
    const WINDOW = 16;
    for (let from = 0; from < n; from += WINDOW) {
      const to = Math.min(n, from + WINDOW);
      const hb = new HistogramBatchBuilder(wasm, TENANT);
      hb.add(['__name__', 'h_float', 'job', 'b'], floats.t.slice(from, to), floats.h.slice(from, to), true);
      hb.add(['__name__', 'h_int', 'job', 'a'], ints.t.slice(from, to), ints.h.slice(from, to));
      assert.equal(db.appendHistograms(hb.finish()).appended, 2 * (to - from));
      // The mixed series changes kind only at window boundaries (k is a multiple of WINDOW).
      const kind = kindAt(from);
      if (kind === 'f') {
        const b = batchBuilder(TENANT);
        b.add(mixedLabels, BigInt64Array.from(ft.slice(from, to), BigInt), fv.slice(from, to));
        assert.equal(db.append(b.finish()).appended, to - from);
      } else {
        const src = kind === 'h' ? mh : mf;
        const b = new HistogramBatchBuilder(wasm, TENANT);
        b.add(mixedLabels, src.t.slice(from, to), src.h.slice(from, to), kind === 'fh');
        assert.equal(db.appendHistograms(b.finish()).appended, to - from);
      }
    }
    const mixed: AnySample[] = [];
    for (let from = 0; from < n; from += k) {
      const to = from + k;
      const kind = kindAt(from);
      if (kind === 'f') mixed.push(...samplesOf([xorChunk(ft.slice(from, to), fv.slice(from, to))]));
      else {
        const src = kind === 'h' ? mh : mf;
        mixed.push(...asRead(kind === 'h' ? HISTOGRAM : FLOAT_HISTOGRAM, src.t.slice(from, to), src.h.slice(from, to)));
      }
    }
    await db.settle();
    written.push(
      { labels: ['__name__', 'h_float', 'job', 'b', ...TENANT], samples: asRead(FLOAT_HISTOGRAM, floats.t, floats.h) },
      { labels: ['__name__', 'h_int', 'job', 'a', ...TENANT], samples: asRead(HISTOGRAM, ints.t, ints.h) },
      { labels: [...mixedLabels, ...TENANT], samples: mixed },
    );
    server = await serveStoreApi(engineStoreApi(db, {
      externalLabels: new ExternalLabels([]), replicaLabels: new Set(), tenantLabel: 'tenant_id', seriesLimit: 0, samplesLimit: 0,
    }, wasm), { host: '127.0.0.1', port: 0, maxRecvBytes: 4 << 20, log: quiet });
    client = new StoreClient(`127.0.0.1:${server.port}`);
  });

  after(async () => {
    client?.close();
    await server?.close(0);
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the block cut from the head holds the histogram chunks with their encodings', (t) => {
    const blocksDir = join(dir, 'data', 'blocks');
    const ulids = readdirSync(blocksDir).filter((d) => /^[0-9A-Z]{26}$/.test(d));
    assert.equal(ulids.length, 1, 'one 2 h range was cut into a block');
    const block = BlockReader.open(join(blocksDir, ulids[0]!));
    assert.equal(block.minTime, T0);
    assert.equal(block.maxTime, T0 + RANGE);
    const encodings = new Set<number>();
    let samples = 0;
    const all = block.index.allPostings();
    for (let i = 0; i < all.length; i++) {
      const s = { labels: [] as string[], chunks: [] as number[] };
      block.index.series(all[i]!, s);
      for (let c = 0; c < s.chunks.length; c += 3) {
        const ch = block.chunks.chunk(s.chunks[c + 2]!);
        encodings.add(ch.encoding);
        samples += samplesOf([{ minT: 0, maxT: 0, encoding: ch.encoding, data: ch.data }]).length;
      }
    }
    assert.deepEqual([...encodings].sort(), [XOR, HISTOGRAM, FLOAT_HISTOGRAM]);
    assert.equal(block.meta.stats.numSamples, samples);
    const inBlock = written.reduce((m, w) => m + w.samples.filter((x) => x.t < T0 + RANGE).length, 0);
    assert.equal(samples, inBlock, 'every sample of the range, once');
    if (!onPath('promtool')) return t.skip('promtool not on PATH');
    assert.match(runPromtool(['tsdb', 'analyze', '--extended', blocksDir, ulids[0]!]), /^Series: 3$/m);
  });

  test('Series answers block and head chunks as stored, in time order, decoding to the samples written', async () => {
    const a = await client.series({ min_time: String(T0), max_time: String(T0 + 10 * RANGE), matchers: [re('__name__', 'h_.*')] });
    assert.equal(a.code, grpc.status.OK, a.details);
    const bySeries = new Map<string, TestChunk[]>();
    for (const f of a.frames) {
      const key = JSON.stringify(labelsOf(f.series!));
      const list = bySeries.get(key) ?? [];
      for (const ch of f.series!.chunks) list.push({ minT: Number(ch.min_time), maxT: Number(ch.max_time), encoding: ch.raw!.type + 1, data: ch.raw!.data });
      bySeries.set(key, list);
    }
    assert.deepEqual([...bySeries.keys()], written.map((w) => JSON.stringify(w.labels)));
    for (const w of written) {
      const chunks = bySeries.get(JSON.stringify(w.labels))!;
      chunks.forEach((c, k) => {
        if (k > 0) assert.ok(c.minT > chunks[k - 1]!.maxT, `${w.labels[1]}: chunk ${k} after chunk ${k - 1}`);
      });
      assert.ok(chunks.some((c) => c.minT < T0 + RANGE) && chunks.some((c) => c.minT >= T0 + RANGE), `${w.labels[1]}: from the block and from the head`);
      assert.deepEqual(samplesOf(chunks).map(comparable), w.samples.map(comparable), `samples of ${w.labels[1]}`);
    }
    const mixedTypes = bySeries.get(JSON.stringify(written[2]!.labels))!.map((c) => c.encoding);
    const changes = mixedTypes.filter((e, i) => i === 0 || e !== mixedTypes[i - 1]);
    assert.deepEqual(changes, [XOR, HISTOGRAM, FLOAT_HISTOGRAM, XOR, HISTOGRAM], 'the mixed series changes encoding in time order');
    const floats = samplesOf(bySeries.get(JSON.stringify(written[0]!.labels))!);
    assert.ok(isStale(floats.at(-1)!), 'the stale marker comes back bit for bit');
  });
});
