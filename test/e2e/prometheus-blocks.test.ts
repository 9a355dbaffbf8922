/**
 * Blocks a real Prometheus 2.42 server writes (not promtool), read by
 * Strata's block readers (src/blocks/block-reader.ts, src/query/block-series.ts).
 *
 * `prometheus --web.enable-remote-write-receiver --web.enable-admin-api
 * --storage.tsdb.min-block-duration=2h --storage.tsdb.max-block-duration=2h`
 * with no scrape targets takes 5 h of series (15 s apart, unicode labels,
 * stale markers, NaN, ±Inf, -0, churned series) over its /api/v1/write,
 * oldest first in 10-minute requests (Prometheus refuses samples older
 * than its head's newest - 1 h).
 *
 * How the blocks come out (found with 2.42): a commit that leaves the head
 * spanning more than 1.5 block ranges triggers head compaction at once, so
 * [T0, T0 + 2 h) is written as a block within a moment of the writes (the
 * test waits for it, bounded); a SIGTERM does not write the head as a block
 * (it stays in the WAL and chunks_head); POST /api/v1/admin/tsdb/snapshot
 * does: the snapshot directory holds the persisted blocks (hard links) and
 * a block of the head [head min, head max + 1).
 *
 * Every block of the snapshot is opened with BlockReader: every series and
 * every sample (raw bits) must equal what was sent, each sample in exactly
 * one block, chunk metas equal to the chunks' first and last samples. Then
 * BlockSeriesReader answers matcher queries, label names and values as
 * computed from the data sent.
 *
 * Skips (with a reason) only when `prometheus` is not on PATH.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BlockReader, listBlockDirs } from '../../src/blocks/block-reader.js';
import { ENCODING_XOR } from '../../src/chunkenc/encoding.js';
import { threadCodec } from '../../src/chunkenc/index.js';
import { MatchType, type LabelMatcher } from '../../src/index/types.js';
import { BlockSeriesReader } from '../../src/query/block-series.js';
import { ByteArena } from '../../src/query/byte-arena.js';
import { STALE, bitsOf, postWrite, type Sample, type Series } from '../http/prometheus/support/prom-wire.js';
import { compareStrings } from '../store/support/series-check.js';
import { onPath } from '../support/promtool-dump.js';
import { rng } from '../support/series.js';
import { freePort } from './support/prometheus.js';
import { diskBlocks, sortedLabels, waitFor } from './support/strata-blocks.js';

const HAS_PROMETHEUS = onPath('prometheus');
const MIN = 60_000;
const HOUR = 60 * MIN;
const RANGE = 2 * HOUR;
const STEP = 15_000;
/** 2023-11-15T10:00:00Z, on the 2 h grid. */
const T0 = 236_117 * RANGE;
const END = T0 + 5 * HOUR;
const JOBS = ['api', '中文', '😀', 'Zürich', 'quote"back\\slash', 'ß'];

interface Sent extends Series {
  map: Record<string, string>;
  samples: Sample[];
}

function makeSeries(): Sent[] {
  const next = rng(4242);
  const out: Sent[] = [];
  for (let k = 0; k < 60; k++) {
    const churn = k >= 40;
    const map: Record<string, string> = { __name__: churn ? 'pb_churn' : k % 2 === 0 ? 'pb_gauge' : 'pb_float', i: String(k), job: JOBS[k % JOBS.length]! };
    if (k % 5 === 0) map.zone = ['東京', 'eu-1'][k % 2]!;
    // Churned series live 1 h somewhere in the 5 h and end with a stale marker.
    const from = churn ? T0 + ((k - 40) % 8) * 30 * MIN : T0;
    const to = churn ? from + HOUR : END;
    const samples: Sample[] = [];
    let v = 0;
    for (let t = from; t < to; t += STEP) {
      const r = next();
      if (map.__name__ === 'pb_float') {
        samples.push({ t, bits: r < 0.01 ? 0x7ff8000000000001n : r < 0.015 ? bitsOf(Infinity) : r < 0.02 ? bitsOf(-Infinity) : r < 0.025 ? bitsOf(-0) : bitsOf((next() - 0.5) * 1e9) });
      } else {
        v += Math.floor(r * 10);
        samples.push({ t, bits: bitsOf(v) });
      }
    }
    if (churn) samples[samples.length - 1]!.bits = STALE;
    // Stale markers on and near the 2 h boundary, then the series goes on.
    if (!churn && k % 10 === 3) samples.find((x) => x.t === T0 + RANGE)!.bits = STALE;
    if (!churn && k % 10 === 4) samples.find((x) => x.t === T0 + RANGE - STEP)!.bits = STALE;
    out.push({ map, labels: sortedLabels(map), samples });
  }
  return out;
}

const key = (labels: readonly string[]): string => JSON.stringify(labels);
const flat = (s: Sent): string[] => s.labels.flat();

describe('Strata reads the blocks a real Prometheus 2.42 writes', { timeout: 60_000 }, () => {
  const sent = makeSeries();
  let dir = '';
  let child: ChildProcess | undefined;
  let output = '';
  let persisted: string[] = [];
  let snapshotDir = '';
  let readers: BlockReader[] = [];
  let skip: string | false = false;

  before(async () => {
    if (!HAS_PROMETHEUS) {
      skip = 'prometheus not on PATH';
      return;
    }
    dir = mkdtempSync(join(tmpdir(), 'strata-prom-blocks-'));
    const data = join(dir, 'data');
    writeFileSync(join(dir, 'prometheus.yml'), 'global:\n  scrape_interval: 1h\nscrape_configs: []\n');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    child = spawn('prometheus', [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${data}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--web.enable-remote-write-receiver',
      '--web.enable-admin-api',
      '--storage.tsdb.min-block-duration=2h',
      '--storage.tsdb.max-block-duration=2h',
      '--storage.tsdb.retention.time=100y',
      '--log.level=info',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (b: Buffer) => (output = (output + b.toString()).slice(-32768));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    await waitFor(20_000, async () => {
      if (child!.exitCode !== null) throw new Error(`prometheus exited with ${child!.exitCode}:\n${output}`);
      return (await fetch(`${base}/-/ready`, { signal: AbortSignal.timeout(1000) }).then(async (r) => (await r.arrayBuffer(), r.status === 200)).catch(() => false)) ? true : undefined;
    }, () => `prometheus not ready:\n${output}`, 100);

    // Oldest first, 10 minutes a request.
    for (let from = T0; from < END; from += 10 * MIN) {
      const batch = sent.map((s) => ({ labels: s.labels, samples: s.samples.filter((x) => x.t >= from && x.t < from + 10 * MIN) })).filter((s) => s.samples.length > 0);
      const a = await postWrite(base, batch);
      assert.equal(a.status, 204, `remote write to prometheus of [T0 + ${from - T0}): ${a.status} ${a.text}\n${output}`);
    }
    // Its own head compaction writes [T0, T0 + 2 h) once the head spans more than 3 h.
    persisted = await waitFor(30_000, () => {
      const blocks = diskBlocks(data);
      return blocks.length > 0 ? blocks.map((b) => b.ulid) : undefined;
    }, () => `prometheus wrote no block in 30 s:\n${output}`, 100);
    // The head, as a block, through a snapshot.
    const res = await fetch(`${base}/api/v1/admin/tsdb/snapshot`, { method: 'POST', signal: AbortSignal.timeout(20_000) });
    const body = (await res.json()) as { status: string; data?: { name: string } };
    assert.equal(body.status, 'success', JSON.stringify(body));
    snapshotDir = join(data, 'snapshots', body.data!.name);
    readers = listBlockDirs(snapshotDir).map((d) => BlockReader.open(d)).sort((a, b) => a.minTime - b.minTime);
  });

  after(async () => {
    for (const r of readers) r.close();
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child!.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    }
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  test('the blocks: one from head compaction, one from the snapshot of the head', (t) => {
    if (skip) return t.skip(skip);
    assert.equal(readers.length, 2, `blocks in the snapshot: ${readers.map((r) => `${r.ulid} [${r.minTime - T0}, ${r.maxTime - T0})`).join(', ')}`);
    assert.deepEqual(readers.map((r) => r.ulid).filter((u) => persisted.includes(u)), persisted, 'the persisted block is in the snapshot');
    const last = Math.max(...sent.map((s) => s.samples[s.samples.length - 1]!.t));
    assert.deepEqual([readers[0]!.minTime, readers[0]!.maxTime], [T0, T0 + RANGE], 'head compaction: [T0, T0 + 2 h)');
    assert.deepEqual([readers[1]!.minTime, readers[1]!.maxTime], [T0 + RANGE, last + 1], 'snapshot of the head: [T0 + 2 h, newest + 1)');
    for (const r of readers) {
      assert.equal(r.meta.compaction.level, 1);
      assert.equal(r.tombstones, 0);
      assert.equal(r.meta.thanos, undefined, 'Prometheus writes no thanos section');
      const check = r.chunks.checkAll();
      t.diagnostic(`${r.ulid} [T0 + ${r.minTime - T0}, T0 + ${r.maxTime - T0}): ${r.meta.stats.numSeries} series, ${r.meta.stats.numChunks} chunks (${check.chunks} CRC-checked in ${check.segments} segment(s)), ${r.meta.stats.numSamples} samples`);
    }
    assert.ok(!existsSync(join(snapshotDir, 'wal')), 'a snapshot is blocks only');
  });

  test('every series and sample sent, each sample in exactly one block', (t) => {
    if (skip) return t.skip(skip);
    const codec = threadCodec();
    const got = new Map<string, Sample[]>();
    const scratch = { labels: [] as string[], chunks: [] as number[] };
    let chunks = 0;
    for (const r of readers) {
      const refs = r.index.allPostings();
      let previous: string[] | undefined;
      let samples = 0;
      for (const ref of refs) {
        r.index.series(ref, scratch);
        const labels = scratch.labels.slice();
        if (previous !== undefined) assert.ok(compareLabelArrays(previous, labels) < 0, `${r.ulid}: series not in label order: ${key(previous)} then ${key(labels)}`);
        previous = labels;
        let list = got.get(key(labels));
        if (list === undefined) got.set(key(labels), (list = []));
        const c = scratch.chunks;
        for (let i = 0; i < c.length; i += 3) {
          const chunk = r.chunks.chunk(c[i + 2]!);
          assert.equal(chunk.encoding, ENCODING_XOR, `${key(labels)}: chunk encoding`);
          const { timestamps, values } = codec.decode(chunk.data);
          const bits = new BigUint64Array(values.buffer, values.byteOffset, values.length);
          assert.ok(timestamps.length > 0, `${key(labels)}: empty chunk`);
          assert.equal(Number(timestamps[0]), c[i]!, `${key(labels)}: chunk minT is its first sample`);
          assert.equal(Number(timestamps[timestamps.length - 1]), c[i + 1]!, `${key(labels)}: chunk maxT is its last sample`);
          assert.ok(c[i]! >= r.minTime && c[i + 1]! < r.maxTime, `${key(labels)}: chunk [${c[i]}, ${c[i + 1]}] outside the block [${r.minTime}, ${r.maxTime})`);
          for (let k = 0; k < timestamps.length; k++) list.push({ t: Number(timestamps[k]), bits: bits[k]! });
          samples += timestamps.length;
          chunks++;
        }
      }
      assert.equal(samples, r.meta.stats.numSamples, `${r.ulid}: samples vs meta.json`);
      assert.equal(refs.length, r.meta.stats.numSeries, `${r.ulid}: series vs meta.json`);
    }
    assert.deepEqual([...got.keys()].sort(), sent.map((s) => key(flat(s))).sort(), 'series in the blocks');
    let stale = 0;
    for (const s of sent) {
      const list = got.get(key(flat(s)))!;
      assert.equal(list.length, s.samples.length, `${key(flat(s))}: samples in the blocks`);
      s.samples.forEach((x, i) => {
        const g = list[i]!;
        if (g.t !== x.t || g.bits !== x.bits) assert.fail(`${key(flat(s))}: sample ${i} is (${g.t}, 0x${g.bits.toString(16)}), sent (${x.t}, 0x${x.bits.toString(16)})`);
        if (x.bits === STALE) stale++;
      });
    }
    assert.ok(stale >= 20, `${stale} stale markers`);
    t.diagnostic(`${got.size} series, ${sent.reduce((n, s) => n + s.samples.length, 0)} samples (${stale} stale markers) in ${chunks} chunks equal`);
  });

  test('BlockSeriesReader: matcher queries, label names and values', (t) => {
    if (skip) return t.skip(skip);
    const queries: Array<{ matchers: LabelMatcher[]; test: (s: Sent) => boolean }> = [
      { matchers: [{ type: MatchType.EQ, name: 'job', value: '中文' }], test: (s) => s.map.job === '中文' },
      { matchers: [{ type: MatchType.RE, name: '__name__', value: 'pb_(gauge|churn)' }, { type: MatchType.NRE, name: 'i', value: '4.*' }], test: (s) => /^pb_(gauge|churn)$/.test(s.map.__name__!) && !/^4/.test(s.map.i!) },
      { matchers: [{ type: MatchType.NEQ, name: 'zone', value: '' }], test: (s) => s.map.zone !== undefined },
      { matchers: [{ type: MatchType.EQ, name: '__name__', value: 'pb_churn' }, { type: MatchType.EQ, name: 'job', value: '😀' }], test: (s) => s.map.__name__ === 'pb_churn' && s.map.job === '😀' },
    ];
    const arena = new ByteArena();
    const codec = threadCodec();
    let compared = 0;
    for (const r of readers) {
      const reader = new BlockSeriesReader(r);
      // The whole block, and a window inside it.
      for (const [minT, maxT] of [[r.minTime, r.maxTime - 1], [r.minTime + 20 * MIN, r.minTime + 50 * MIN]] as const) {
        for (const q of queries) {
          const want = sent
            .filter((s) => q.test(s))
            .map((s) => ({ labels: flat(s), samples: s.samples.filter((x) => x.t >= minT && x.t <= maxT) }))
            .filter((s) => s.samples.length > 0)
            .sort((a, b) => compareLabelArrays(a.labels, b.labels));
          const got = reader.series(q.matchers, minT, maxT);
          const what = `${r.ulid} ${JSON.stringify(q.matchers)} [T0 + ${minT - T0}, T0 + ${maxT - T0}]`;
          assert.deepEqual(got.map((s) => key([...s.labels])), want.map((w) => key(w.labels)), `${what}: series`);
          got.forEach((s, i) => {
            const samples: Sample[] = [];
            for (const c of reader.chunks(s.handle, minT, maxT, arena)) {
              const { timestamps, values } = codec.decode(c.data);
              const bits = new BigUint64Array(values.buffer, values.byteOffset, values.length);
              for (let k = 0; k < timestamps.length; k++) if (timestamps[k]! >= minT && timestamps[k]! <= maxT) samples.push({ t: Number(timestamps[k]), bits: bits[k]! });
            }
            assert.deepEqual(samples, want[i]!.samples, `${what}: samples of ${key([...s.labels])}`);
            compared++;
          });
          const names = [...new Set(want.flatMap((w) => w.labels.filter((_, j) => j % 2 === 0)))].sort(compareStrings);
          assert.deepEqual(reader.labelNames(q.matchers, minT, maxT), names, `${what}: label names`);
          const jobs = [...new Set(want.map((w) => w.labels[w.labels.indexOf('job') + 1]!))].sort(compareStrings);
          assert.deepEqual(reader.labelValues('job', q.matchers, minT, maxT), jobs, `${what}: values of job`);
        }
        const all = sent.filter((s) => s.samples.some((x) => x.t >= minT && x.t <= maxT));
        assert.deepEqual(reader.labelValues('__name__', [], minT, maxT), [...new Set(all.map((s) => s.map.__name__!))].sort(compareStrings), `${r.ulid}: __name__ values`);
        assert.deepEqual(reader.labelValues('zone', [], minT, maxT), [...new Set(all.flatMap((s) => (s.map.zone === undefined ? [] : [s.map.zone])))].sort(compareStrings), `${r.ulid}: zone values`);
      }
    }
    t.diagnostic(`${compared} series compared through BlockSeriesReader`);
  });
});

/** Prometheus' labels.Compare over [name, value, ...] arrays, strings by UTF-8 bytes. */
function compareLabelArrays(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareStrings(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}


