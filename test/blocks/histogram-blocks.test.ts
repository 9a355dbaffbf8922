/**
 * Blocks holding native histogram chunks (Prometheus encodings 2 and 3)
 * beside XOR chunks: written with their encoding byte, read back as
 * stored through the block reader and the query path's block reader,
 * compacted without being decoded where nothing overlaps and merged where
 * blocks overlap, and read by Prometheus 2.42's own `promtool tsdb
 * analyze` and `dump` (which prints float samples only).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { BlockReader } from '../../src/blocks/block-reader.js';
import { writeBlock } from '../../src/blocks/block-writer.js';
import { mergeBlockSeries } from '../../src/blocks/compactor.js';
import type { BlockMeta, BlockSeriesInput } from '../../src/blocks/types.js';
import { ByteArena } from '../../src/query/byte-arena.js';
import { BlockSeriesReader } from '../../src/query/block-series.js';
import {
  FLOAT_HISTOGRAM, HISTOGRAM, XOR, comparable, floatValues, histogramChunk, histogramSamples, isStale, samplesOf, xorChunk, type AnySample, type TestChunk,
} from '../support/histogram-series.js';
import { onPath, parseDumpLine, runPromtool } from '../support/promtool-dump.js';
import { freePort } from '../e2e/support/prometheus.js';

const HAS_PROMTOOL = onPath('promtool');
const HAS_PROMETHEUS = onPath('prometheus');
/** 2023-11-14T22:00:00Z, on the 2 h grid. */
const T0 = 236_111 * 7_200_000;
const END = T0 + 7_200_000;
const STEP = 15_000;

const temps: string[] = [];
after(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'strata-hblocks-'));
  temps.push(d);
  return d;
}

/**
 * Three series, sorted by labels: one whose chunks change encoding over
 * time (floats, integer histograms, a counter reset, float histograms,
 * floats again), one of integer histograms ending in a stale marker, one
 * of float histograms.
 */
function makeSeries(): BlockSeriesInput[] {
  let t = T0;
  const at = (n: number): number => {
    const from = t;
    t += n * STEP;
    return from;
  };
  const mixed: TestChunk[] = [];
  const f0 = at(30);
  mixed.push(xorChunk(Array.from({ length: 30 }, (_, i) => f0 + i * STEP), floatValues(30, 1)));
  const h1 = histogramSamples(120, at(120), STEP, 2);
  mixed.push(histogramChunk(HISTOGRAM, h1.t, h1.h));
  const h2 = histogramSamples(40, at(40), STEP, 3, { resetAt: 0 });
  h2.h[0]!.counterResetHint = 1; // the chunk was cut for a counter reset
  mixed.push(histogramChunk(HISTOGRAM, h2.t, h2.h));
  const fh = histogramSamples(50, at(50), STEP, 4, { float: true });
  mixed.push(histogramChunk(FLOAT_HISTOGRAM, fh.t, fh.h));
  const f1 = at(20);
  mixed.push(xorChunk(Array.from({ length: 20 }, (_, i) => f1 + i * STEP), floatValues(20, 5)));

  const a = histogramSamples(200, T0 + 7, STEP, 6, { staleLast: true });
  const ints = [histogramChunk(HISTOGRAM, a.t.slice(0, 120), a.h.slice(0, 120)), histogramChunk(HISTOGRAM, a.t.slice(120), a.h.slice(120))];
  const b = histogramSamples(90, T0 + 11, STEP * 2, 7, { float: true, schema: -2 });
  const floats = [histogramChunk(FLOAT_HISTOGRAM, b.t, b.h)];
  return [
    { labels: ['__name__', 'h_float', 'job', 'c'], chunks: floats },
    { labels: ['__name__', 'h_int', 'job', 'b'], chunks: ints },
    { labels: ['__name__', 'h_mixed', 'job', 'a'], chunks: mixed },
  ];
}

function writeSeries(blocksDir: string, series: readonly BlockSeriesInput[], minTime = T0, maxTime = END): Promise<BlockMeta | undefined> {
  return writeBlock({ blocksDir, minTime, maxTime, symbols: series.flatMap((s) => s.labels), series });
}

/** Every series of a block through the query path's reader: labels, then chunks as answered. */
function readThroughQueryPath(dir: string): Array<{ labels: string[]; chunks: TestChunk[] }> {
  const reader = new BlockSeriesReader(BlockReader.open(dir));
  return reader.series([], -Infinity, Infinity).map((s) => ({
    labels: [...s.labels],
    chunks: reader.chunks(s.handle, -Infinity, Infinity, new ByteArena()).map((c) => ({ minT: c.minT, maxT: c.maxT, encoding: c.encoding ?? XOR, data: c.data })),
  }));
}

describe('blocks with native histogram chunks', () => {
  const series = makeSeries();
  let blocksDir = '';
  let meta: BlockMeta;

  before(async () => {
    blocksDir = tempDir();
    const m = await writeSeries(blocksDir, series);
    assert.ok(m);
    meta = m;
  });

  test('every chunk comes back as written: encoding byte, bytes, times; series in order', () => {
    const got = readThroughQueryPath(join(blocksDir, meta.ulid));
    assert.deepEqual(got.map((s) => s.labels), series.map((s) => s.labels));
    got.forEach((s, i) => {
      const want = series[i]!.chunks;
      assert.equal(s.chunks.length, want.length, `chunks of ${s.labels}`);
      s.chunks.forEach((c, k) => {
        assert.equal(c.encoding, want[k]!.encoding, `encoding of chunk ${k} of ${s.labels}`);
        assert.equal(c.minT, want[k]!.minT);
        assert.equal(c.maxT, want[k]!.maxT);
        assert.deepEqual(Buffer.from(c.data), Buffer.from(want[k]!.data), `bytes of chunk ${k} of ${s.labels}`);
      });
    });
    const mixed = got[2]!.chunks.map((c) => c.encoding);
    assert.deepEqual(mixed, [XOR, HISTOGRAM, HISTOGRAM, FLOAT_HISTOGRAM, XOR], 'a series changing encoding over time is read in time order');
  });

  test('meta.json counts histogram samples by the chunks\' 2-byte headers; every CRC holds', () => {
    const samples = series.reduce((n, s) => n + samplesOf(s.chunks as TestChunk[]).length, 0);
    assert.equal(meta.stats.numSamples, samples);
    assert.equal(meta.stats.numChunks, 8);
    assert.equal(meta.stats.numSeries, 3);
    const block = BlockReader.open(join(blocksDir, meta.ulid));
    assert.equal(block.chunks.checkAll().chunks, 8);
  });

  test('the stale marker at the end of a histogram series survives, bit for bit', () => {
    const got = readThroughQueryPath(join(blocksDir, meta.ulid));
    const samples = samplesOf(got[1]!.chunks);
    assert.ok(isStale(samples[samples.length - 1]!));
    assert.equal(samples.filter(isStale).length, 1);
  });

  test('promtool tsdb analyze (Prometheus 2.42) reads the block, histogram chunks included', (t) => {
    if (!HAS_PROMTOOL) return t.skip('promtool not on PATH');
    const out = runPromtool(['tsdb', 'analyze', '--extended', blocksDir, meta.ulid]);
    assert.match(out, new RegExp(`^Block ID: ${meta.ulid}$`, 'm'));
    assert.match(out, /^Series: 3$/m);
    assert.match(out, /^Label names: 2$/m);
    // --extended reads every chunk (chunkenc.FromData by its encoding byte) to count its samples.
    assert.match(out, /Compaction analysis:/);
    assert.match(out, /^\s+100%: #+$/m, 'full (120-sample) chunks are counted');
  });

  test('promtool tsdb dump (2.42: floats only) prints the float samples before a series\' first histogram', (t) => {
    if (!HAS_PROMTOOL) return t.skip('promtool not on PATH');
    const data = join(tempDir(), 'data');
    cpSync(blocksDir, data, { recursive: true });
    mkdirSync(join(data, 'wal'));
    const out = runPromtool(['tsdb', 'dump', `--min-time=${T0}`, `--max-time=${END - 1}`, data]);
    const lines = out.split('\n').filter((l) => l !== '').map(parseDumpLine);
    const firstFloats = samplesOf([series[2]!.chunks[0]! as TestChunk]);
    assert.deepEqual(lines.map((l) => l.t), firstFloats.map((s) => s.t), 'the first XOR chunk of the mixed series, nothing else');
    for (const l of lines) assert.deepEqual(l.labels, ['__name__', 'h_mixed', 'job', 'a']);
  });

  test('prometheus 2.42 (native histograms on) answers histogram_count and histogram_sum over the block as our decoder reads it', { timeout: 60_000 }, async (t) => {
    if (!HAS_PROMETHEUS) return t.skip('prometheus not on PATH');
    const dir = tempDir();
    const data = join(dir, 'data');
    cpSync(blocksDir, data, { recursive: true });
    const config = join(dir, 'prometheus.yml');
    writeFileSync(config, 'global:\n  scrape_interval: 1h\n');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const child = spawn('prometheus', [
      `--config.file=${config}`, `--storage.tsdb.path=${data}`, `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=100y', '--log.level=warn', '--enable-feature=native-histograms',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output = (output + b.toString()).slice(-16384)));
    child.stderr.on('data', (b: Buffer) => (output = (output + b.toString()).slice(-16384)));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      const deadline = Date.now() + 20_000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${output}`);
        if (Date.now() > deadline) throw new Error(`prometheus not ready:\n${output}`);
        const ok = await fetch(`${base}/-/ready`, { signal: AbortSignal.timeout(1000) }).then(async (r) => (await r.arrayBuffer(), r.status === 200)).catch(() => false);
        if (ok) break;
        await sleep(100);
      }
      const query = async (q: string, at: number): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> => {
        const res = await fetch(`${base}/api/v1/query?${new URLSearchParams({ query: q, time: (at / 1000).toFixed(3) })}`, { signal: AbortSignal.timeout(10_000) });
        const body = (await res.json()) as { status: string; data: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
        assert.equal(body.status, 'success', JSON.stringify(body));
        return body.data.result;
      };
      // The newest sample at or before `at` within the 5 m lookback, as our decoder reads the chunks written.
      const latest = (chunks: readonly TestChunk[], at: number): AnySample | undefined => {
        const all = samplesOf(chunks).filter((x) => x.t <= at && x.t > at - 300_000);
        return all.at(-1);
      };
      let compared = 0;
      for (let at = T0 + 60_000; at < END; at += 600_000) {
        for (const s of series) {
          const name = s.labels[1]!;
          const want = latest(s.chunks as TestChunk[], at);
          const got = await query(`histogram_count(${name})`, at);
          if (want === undefined || want.kind === 'float' || isStale(want)) {
            assert.equal(got.length, 0, `${name} at ${at}: no histogram`);
            continue;
          }
          assert.equal(got.length, 1, `${name} at ${at}: one histogram`);
          assert.equal(Number(got[0]!.value[1]), want.h.count, `histogram_count(${name}) at ${at}`);
          const sum = await query(`histogram_sum(${name})`, at);
          assert.equal(Number(sum[0]!.value[1]), want.h.sum, `histogram_sum(${name}) at ${at}`);
          compared++;
        }
      }
      t.diagnostic(`${compared} histogram samples compared with Prometheus' own reading`);
      assert.ok(compared >= 10);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  test('compacting adjacent blocks carries histogram chunks as stored, not decoded', async () => {
    const dir = tempDir();
    const cut = T0 + 3_600_000;
    const early = series.map((s) => ({ labels: s.labels, chunks: s.chunks.filter((c) => c.maxT < cut) }));
    const late = series.map((s) => ({ labels: s.labels, chunks: s.chunks.filter((c) => c.minT >= cut) }));
    const straddling = series.flatMap((s) => s.chunks.filter((c) => c.minT < cut && c.maxT >= cut));
    assert.equal(straddling.length, 0, 'the test data splits cleanly at the hour');
    const m1 = await writeSeries(dir, early, T0, cut);
    const m2 = await writeSeries(dir, late, cut, END);
    const readers = [BlockReader.open(join(dir, m1!.ulid)), BlockReader.open(join(dir, m2!.ulid))];
    const merged = [...mergeBlockSeries(readers)];
    assert.deepEqual(merged.map((s) => s.labels), series.map((s) => s.labels));
    merged.forEach((s, i) => {
      assert.deepEqual(s.chunks.map((c) => [c.encoding, Buffer.from(c.data).toString('hex')]), series[i]!.chunks.map((c) => [c.encoding, Buffer.from(c.data).toString('hex')]));
    });
    const out = tempDir();
    const m = await writeSeries(out, merged);
    const got = readThroughQueryPath(join(out, m!.ulid));
    got.forEach((s, i) => assert.deepEqual(samplesOf(s.chunks).map(comparable), samplesOf(series[i]!.chunks as TestChunk[]).map(comparable)));
  });

  test('compacting overlapping blocks merges their histogram chunks: every sample once, chunks that decode, read by promtool', async (t) => {
    const dir = tempDir();
    const s = histogramSamples(300, T0, STEP, 21, { resetAt: 170 });
    const f = histogramSamples(100, T0 + 5, STEP, 22, { float: true });
    const even = (i: number): boolean => i % 2 === 0;
    const part = (keep: (i: number) => boolean): BlockSeriesInput[] => {
      const idx = s.t.map((_, i) => i).filter(keep);
      const fidx = f.t.map((_, i) => i).filter(keep);
      return [
        { labels: ['__name__', 'h_float', 'job', 'c'], chunks: [histogramChunk(FLOAT_HISTOGRAM, fidx.map((i) => f.t[i]!), fidx.map((i) => f.h[i]!))] },
        { labels: ['__name__', 'h_int', 'job', 'b'], chunks: [histogramChunk(HISTOGRAM, idx.map((i) => s.t[i]!), idx.map((i) => ({ ...s.h[i]!, counterResetHint: 0 as const })))] },
      ];
    };
    // Two blocks of the same range (an out-of-order block beside the in-order one), samples interleaved.
    const m1 = await writeSeries(dir, part(even));
    const m2 = await writeSeries(dir, part((i) => !even(i)));
    const readers = [BlockReader.open(join(dir, m1!.ulid)), BlockReader.open(join(dir, m2!.ulid))];
    const out = tempDir();
    const m = await writeSeries(out, [...mergeBlockSeries(readers)]);
    assert.equal(m!.stats.numSamples, 400);
    const got = readThroughQueryPath(join(out, m!.ulid));
    assert.deepEqual(samplesOf(got[0]!.chunks).map(comparable), samplesOf([histogramChunk(FLOAT_HISTOGRAM, f.t, f.h)]).map(comparable));
    assert.deepEqual(samplesOf(got[1]!.chunks).map(comparable), samplesOf([histogramChunk(HISTOGRAM, s.t.slice(0, 170), s.h.slice(0, 170)), histogramChunk(HISTOGRAM, s.t.slice(170), s.h.slice(170))]).map(comparable));
    assert.ok(got[1]!.chunks.every((c) => c.encoding === HISTOGRAM));
    assert.ok(got[1]!.chunks.some((c) => c.minT === s.t[170] && c.data[2]! >> 6 === 0b10), 'the counter reset starts a chunk with the reset header');
    if (!HAS_PROMTOOL) return t.skip('promtool not on PATH');
    assert.match(runPromtool(['tsdb', 'analyze', '--extended', out, m!.ulid]), /^Series: 2$/m);
  });
});
