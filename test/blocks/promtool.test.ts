/**
 * Blocks we write, read by Prometheus 2.42's own tools: `promtool tsdb
 * list`, `dump` (every sample compared) and `analyze`; a block promtool
 * writes itself (`create-blocks-from openmetrics`) rewritten by us byte for
 * byte; and a real `prometheus` answering PromQL over our block.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { writeBlock } from '../../src/blocks/block-writer.js';
import { ENCODING_XOR } from '../../src/chunkenc/encoding.js';
import { type BlockMeta, type BlockSeriesInput } from '../../src/blocks/types.js';
import { threadCodec } from '../../src/chunkenc/index.js';
import { freePort } from '../e2e/support/prometheus.js';
import { readBlock } from '../support/prometheus-chunks.js';
import { rng, STALE_NAN_BITS } from '../support/series.js';
import { goFloat, parseDumpLine, sameFloat } from '../support/promtool-dump.js';

function onPath(binary: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' }).status === 0;
}
const HAS_PROMTOOL = onPath('promtool');
const HAS_PROMETHEUS = onPath('prometheus');

const temps: string[] = [];
after(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'strata-promtool-'));
  temps.push(d);
  return d;
}

function promtool(args: string[]): string {
  const r = spawnSync('promtool', args, { encoding: 'utf8', maxBuffer: 256 << 20, timeout: 60_000 });
  if (r.status !== 0) throw new Error(`promtool ${args.join(' ')} exited with ${r.status ?? r.signal}:\n${r.stderr}\n${r.stdout.slice(0, 2000)}`);
  return r.stdout;
}

// ------------------------------------------------------------ data

/** 2023-11-14T22:00:00Z, on the 2 h grid (promtool cuts blocks there). */
const T0 = 236_111 * 7_200_000;
const BLOCK_END = T0 + 7_200_000;
const STALE = new Float64Array(BigUint64Array.of(STALE_NAN_BITS).buffer)[0]!;
const JOBS = ['api', 'db', 'é', 'ê', '中文', '😀', '\uffff', '\ue000', 'quote"back\\slash', 'new\nline', 'tab\there', 'Z'];
const ZONES = ['Zürich', '𝔘', 'a', 'ß'];

interface Expected {
  labels: string[];
  timestamps: number[];
  /** Raw float64 values (NaN payloads kept). */
  values: Float64Array;
}

function utf8Order(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function compareLabelSets(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = utf8Order(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

function makeSeries(count: number, seed: number): Expected[] {
  const next = rng(seed);
  const out: Expected[] = [];
  for (let i = 0; i < count; i++) {
    const name = ['strata_a', 'strata_b', 'strata_c'][i % 3]!;
    const labels = ['__name__', name, 'instance', `i-${i}`, 'job', JOBS[i % JOBS.length]!];
    if (i % 4 === 0) labels.push('zone', ZONES[(i >> 2) % ZONES.length]!);
    const timestamps: number[] = [];
    let t = T0 + Math.floor(next() * 1_800_000);
    const n = 1 + Math.floor(next() * 400);
    for (let k = 0; k < n && t < BLOCK_END; k++) {
      timestamps.push(t);
      t += 15_000 + Math.floor(next() * 50) - 25;
    }
    const values = new Float64Array(timestamps.length);
    let counter = 0;
    for (let k = 0; k < values.length; k++) {
      const r = next();
      if (name === 'strata_b') values[k] = Math.floor(r * 1000);
      else if (name === 'strata_c') values[k] = counter += Math.floor(r * 100);
      else values[k] = r < 0.02 ? NaN : r < 0.03 ? Infinity : r < 0.04 ? -Infinity : r < 0.05 ? -0 : (r - 0.5) * 1e6;
    }
    // Every fifth series ends with a stale marker.
    if (i % 5 === 0 && values.length > 1) values[values.length - 1] = STALE;
    out.push({ labels, timestamps, values });
  }
  return out.sort((a, b) => compareLabelSets(a.labels, b.labels));
}

function toInput(s: Expected): BlockSeriesInput {
  const codec = threadCodec();
  const chunks = [];
  for (let from = 0; from < s.timestamps.length; from += 120) {
    const to = Math.min(s.timestamps.length, from + 120);
    chunks.push({
      minT: s.timestamps[from]!,
      maxT: s.timestamps[to - 1]!,
      encoding: ENCODING_XOR,
      data: codec.encode(BigInt64Array.from(s.timestamps.slice(from, to), BigInt), s.values.slice(from, to)),
    });
  }
  return { labels: s.labels, chunks };
}

// ------------------------------------------------------------ tests

describe('promtool and prometheus read our blocks', () => {
  const expected = makeSeries(300, 42);
  let blocksDir = '';
  let meta: BlockMeta;

  before(async () => {
    blocksDir = tempDir();
    const m = await writeBlock({
      blocksDir,
      minTime: T0,
      maxTime: BLOCK_END,
      symbols: expected.flatMap((s) => s.labels),
      series: expected.map(toInput),
    });
    assert.ok(m);
    meta = m;
  });

  /** A data directory promtool dump and prometheus accept: the block and an empty wal/. */
  function dataDirCopy(): string {
    const data = join(tempDir(), 'data');
    cpSync(blocksDir, data, { recursive: true });
    mkdirSync(join(data, 'wal'));
    return data;
  }

  test('promtool tsdb list', (t) => {
    if (!HAS_PROMTOOL) return t.skip('promtool not on PATH');
    const out = promtool(['tsdb', 'list', '-r', blocksDir]).trim().split('\n');
    assert.equal(out.length, 2, out.join('\n'));
    assert.match(out[0]!, /^BLOCK ULID\s+MIN TIME\s+MAX TIME\s+DURATION\s+NUM SAMPLES\s+NUM CHUNKS\s+NUM SERIES\s+SIZE/);
    const row = out[1]!.split(/\s{2,}/);
    assert.equal(row[0], meta.ulid);
    assert.equal(row[3], '2h0m0s');
    assert.deepEqual(row.slice(4, 7).map(Number), [meta.stats.numSamples, meta.stats.numChunks, meta.stats.numSeries]);
    assert.equal(meta.stats.numSeries, expected.length);
    assert.equal(
      meta.stats.numSamples,
      expected.reduce((n, s) => n + s.timestamps.length, 0),
    );
  });

  test('promtool tsdb dump returns every sample', (t) => {
    if (!HAS_PROMTOOL) return t.skip('promtool not on PATH');
    const data = dataDirCopy();
    const out = promtool(['tsdb', 'dump', `--min-time=${T0}`, `--max-time=${BLOCK_END - 1}`, data]);
    const got = new Map<string, Array<{ t: number; value: number }>>();
    for (const line of out.split('\n')) {
      if (line === '') continue;
      const p = parseDumpLine(line);
      const key = JSON.stringify(p.labels);
      let list = got.get(key);
      if (list === undefined) got.set(key, (list = []));
      list.push({ t: p.t, value: p.value });
    }
    assert.equal(got.size, expected.length);
    let staleSeen = 0;
    for (const s of expected) {
      const list = got.get(JSON.stringify(s.labels));
      assert.ok(list, `series ${JSON.stringify(s.labels)} missing from the dump`);
      assert.deepEqual(
        list.map((x) => x.t),
        s.timestamps,
        `timestamps of ${JSON.stringify(s.labels)}`,
      );
      list.forEach((x, k) => {
        assert.ok(sameFloat(x.value, s.values[k]!), `value ${k} of ${JSON.stringify(s.labels)}: ${x.value} vs ${s.values[k]}`);
      });
      const bits = new BigUint64Array(s.values.buffer, s.values.byteOffset, s.values.length);
      if (bits.includes(STALE_NAN_BITS)) staleSeen++;
    }
    assert.ok(staleSeen > 10, 'stale markers were written');
  });

  test('many small chunk segments read the same', async (t) => {
    if (!HAS_PROMTOOL) return t.skip('promtool not on PATH');
    const small = tempDir();
    const m = await writeBlock({
      blocksDir: small,
      minTime: T0,
      maxTime: BLOCK_END,
      symbols: expected.flatMap((s) => s.labels),
      series: expected.map(toInput),
      segmentBytes: 4096,
    });
    assert.ok(m);
    const segments = readdirSync(join(small, m.ulid, 'chunks'));
    assert.ok(segments.length > 20, `${segments.length} segments`);
    const dump = (dir: string) => {
      const data = join(tempDir(), 'data');
      cpSync(dir, data, { recursive: true });
      mkdirSync(join(data, 'wal'));
      return promtool(['tsdb', 'dump', `--min-time=${T0}`, `--max-time=${BLOCK_END - 1}`, data]);
    };
    assert.equal(dump(small), dump(blocksDir));
    t.diagnostic(`${segments.length} segments of at most 4 KiB`);
  });

  test('promtool tsdb analyze', (t) => {
    if (!HAS_PROMTOOL) return t.skip('promtool not on PATH');
    const out = promtool(['tsdb', 'analyze', '--extended', dataDirCopy(), meta.ulid]);
    assert.match(out, new RegExp(`Block ID: ${meta.ulid}`));
    assert.match(out, new RegExp(`\\nSeries: ${expected.length}\\n`));
    assert.match(out, /Label names: 4\n/);
  });

  test('prometheus answers PromQL over the block', { timeout: 60_000 }, async (t) => {
    if (!HAS_PROMETHEUS) return t.skip('prometheus not on PATH');
    const dir = tempDir();
    const data = join(dir, 'data');
    cpSync(blocksDir, data, { recursive: true });
    const config = join(dir, 'prometheus.yml');
    writeFileSync(config, 'global:\n  scrape_interval: 1h\n');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const child = spawn(
      'prometheus',
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${data}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--storage.tsdb.retention.time=100y',
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output = (output + b.toString()).slice(-16384)));
    child.stderr.on('data', (b: Buffer) => (output = (output + b.toString()).slice(-16384)));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      const deadline = Date.now() + 20_000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${output}`);
        if (Date.now() > deadline) throw new Error(`prometheus not ready:\n${output}`);
        const ok = await fetch(`${base}/-/ready`, { signal: AbortSignal.timeout(1000) })
          .then(async (r) => (await r.arrayBuffer(), r.status === 200))
          .catch(() => false);
        if (ok) break;
        await sleep(100);
      }

      const tq = T0 + 3_600_000 + 7_777;
      const query = async (q: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> => {
        const url = `${base}/api/v1/query?${new URLSearchParams({ query: q, time: (tq / 1000).toFixed(3) })}`;
        const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
        const body = (await res.json()) as { status: string; data: { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> } };
        assert.equal(body.status, 'success', JSON.stringify(body));
        assert.equal(body.data.resultType, 'vector');
        return body.data.result;
      };

      // Instant selection as Prometheus 2.42 does it: the newest sample in
      // [tq - 5m, tq], unless it is a stale marker.
      const isStale = (v: number): boolean => new BigUint64Array(Float64Array.of(v).buffer)[0] === STALE_NAN_BITS;
      const latest = (s: Expected): number | undefined => {
        let k = -1;
        for (let j = 0; j < s.timestamps.length && s.timestamps[j]! <= tq; j++) k = j;
        if (k < 0 || s.timestamps[k]! < tq - 300_000 || isStale(s.values[k]!)) return undefined;
        return s.values[k]!;
      };
      const present = expected.filter((s) => latest(s) !== undefined);
      assert.ok(present.length > 50 && present.length < expected.length, `${present.length} series present at tq`);

      const count = await query('count({__name__=~"strata_.+"})');
      assert.equal(Number(count[0]?.value[1]), present.length);
      t.diagnostic(`count: ${present.length} of ${expected.length} series present at tq`);

      const bs = present.filter((s) => s.labels[1] === 'strata_b');
      const sum = await query('sum(strata_b)');
      assert.equal(Number(sum[0]?.value[1]), bs.reduce((n, s) => n + latest(s)!, 0));
      t.diagnostic(`sum(strata_b) = ${sum[0]?.value[1]} over ${bs.length} series`);

      // max_over_time over [tq - 30m, tq], stale markers dropped.
      for (const name of ['strata_a', 'strata_b']) {
        const want = new Map<string, number>();
        for (const s of expected) {
          if (s.labels[1] !== name) continue;
          const vals: number[] = [];
          s.timestamps.forEach((ts, j) => {
            if (ts >= tq - 1_800_000 && ts <= tq && !isStale(s.values[j]!)) vals.push(s.values[j]!);
          });
          if (vals.length === 0) continue;
          let max = vals[0]!;
          for (const v of vals) if (v > max || Number.isNaN(max)) max = v;
          want.set(s.labels[3]!, max);
        }
        const got = await query(`max_over_time(${name}[30m])`);
        assert.equal(got.length, want.size, `${name}: series answered`);
        t.diagnostic(`max_over_time(${name}[30m]): ${got.length} series checked`);
        for (const r of got) {
          const w = want.get(r.metric.instance!);
          assert.ok(w !== undefined, `unexpected ${JSON.stringify(r.metric)}`);
          assert.ok(sameFloat(goFloat(r.value[1]), w), `max_over_time of ${r.metric.instance}: ${r.value[1]} vs ${w}`);
        }
      }

      // Labels come back as written, unicode included.
      const jobs = await query('count by (job) ({__name__=~"strata_.+"})');
      const wantJobs = new Set(present.map((s) => s.labels[5]!));
      assert.deepEqual(new Set(jobs.map((r) => r.metric.job)), wantJobs);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
    }
  });
});

describe('a block promtool writes, rewritten byte for byte', () => {
  test('create-blocks-from openmetrics, then writeBlock with the same series', (t) => {
    if (!HAS_PROMTOOL) return t.skip('promtool not on PATH');
    return (async () => {
      // OpenMetrics text: whole-second timestamps, families contiguous.
      const series = makeSeries(120, 7).map((s) => ({
        ...s,
        timestamps: s.timestamps.map((ts) => Math.floor(ts / 1000) * 1000),
      }));
      const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
      const fmt = (v: number) => (Number.isNaN(v) ? 'NaN' : v === Infinity ? '+Inf' : v === -Infinity ? '-Inf' : Object.is(v, -0) ? '-0' : String(v));
      const lines: string[] = [];
      for (const name of ['strata_a', 'strata_b', 'strata_c']) {
        for (const s of series.filter((x) => x.labels[1] === name)) {
          const ls: string[] = [];
          for (let i = 2; i < s.labels.length; i += 2) ls.push(`${s.labels[i]}="${escape(s.labels[i + 1]!)}"`);
          let prev = -1;
          s.timestamps.forEach((ts, k) => {
            if (ts === prev) return; // flooring to seconds may repeat one
            prev = ts;
            lines.push(`${name}{${ls.join(',')}} ${fmt(s.values[k]!)} ${ts / 1000}`);
          });
        }
      }
      lines.push('# EOF', '');
      const dir = tempDir();
      writeFileSync(join(dir, 'in.om'), lines.join('\n'));
      promtool(['tsdb', 'create-blocks-from', 'openmetrics', join(dir, 'in.om'), join(dir, 'prom')]);
      const ids = readdirSync(join(dir, 'prom'));
      assert.equal(ids.length, 1, `one block, got ${ids.join(', ')}`);
      const src = join(dir, 'prom', ids[0]!);
      const block = readBlock(src);
      assert.equal(block.series.length, series.length);

      const input: BlockSeriesInput[] = block.series.map((s) => ({
        labels: s.labels.flatMap((l) => [l.name, l.value]),
        chunks: s.chunks.map((c) => ({ minT: Number(c.minTime), maxT: Number(c.maxTime), encoding: c.encoding, data: c.data })),
      }));
      const out = join(dir, 'ours');
      const meta = await writeBlock({
        blocksDir: out,
        ulid: ids[0]!,
        minTime: block.meta.minTime,
        maxTime: block.meta.maxTime,
        // Shuffled and duplicated: the writer sorts and dedupes.
        symbols: input.flatMap((s) => s.labels).reverse(),
        series: input,
      });
      assert.ok(meta);
      for (const f of ['index', 'chunks/000001', 'tombstones', 'meta.json']) {
        assert.ok(readFileSync(join(out, ids[0]!, f)).equals(readFileSync(join(src, f))), `${f} differs from promtool's`);
      }
      t.diagnostic(`${meta.stats.numSeries} series, ${meta.stats.numChunks} chunks, ${meta.stats.numSamples} samples: identical`);
    })();
  });
});
