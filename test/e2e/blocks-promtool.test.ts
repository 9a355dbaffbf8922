/**
 * Blocks Strata cuts from its head, read by Prometheus 2.42's own tools.
 *
 * `strata serve --label 'region="eu-west"'` takes 200 series over HTTP remote
 * write (snappy protobuf): gauges with integer values, floats with NaN,
 * ±Inf and -0, churned series that live a few hours and end with a stale
 * marker, stale markers in the middle of some gauges; unicode, quotes,
 * backslashes and newlines in label values. Samples every 15 s over 7 h from
 * T0 (on the 2 h grid), sent oldest first in 10-minute requests. The head
 * then spans more than 1.5 ranges, so Strata closes [T0, T0 + 4 h) and
 * writes it as two 2 h blocks in the background; the test waits (bounded)
 * until DATA/blocks covers that range.
 *
 * Then, on copies of DATA/blocks (plus an empty wal/):
 * - `promtool tsdb list -r` names each block with meta.json's stats;
 * - `promtool tsdb dump` prints exactly the samples written before T0 + 4 h
 *   (labels plus `tenant_id="default-tenant"`, values through Go's %g);
 * - a real `prometheus` answers PromQL at instants inside the blocks as the
 *   written data says: count() (stale markers hide series, so their bits
 *   must have survived), sum(), one series' value, max_over_time()[30m]
 *   (also across the 2 h boundary);
 * - meta.json's `thanos` section: labels {region: eu-west}, source
 *   receive, resolution 0, `files` with the files' sizes.
 *
 * Skips (with a reason) only when promtool or prometheus is not on PATH.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { STALE, bitsOf, type Sample, type Series } from '../http/prometheus/support/prom-wire.js';
import { killAll } from '../support/serve-process.js';
import { goFloat, onPath, parseDump, runPromtool, sameFloat } from '../support/promtool-dump.js';
import { rng } from '../support/series.js';
import { freePort } from './support/prometheus.js';
import { covers, diskBlocks, floatOf, logLines, serveStrata, sortedLabels, waitFor, writeInTimeOrder, type DiskMeta, type Served } from './support/strata-blocks.js';

const HAS_PROMTOOL = onPath('promtool');
const HAS_PROMETHEUS = onPath('prometheus');

const HOUR = 3_600_000;
const RANGE = 2 * HOUR;
const STEP = 15_000;
/** 2023-11-14T22:00:00Z, on the 2 h grid. */
const T0 = 236_111 * RANGE;
/** Samples are in [T0, END). */
const END = T0 + 7 * HOUR;
/** Strata closes and cuts every range before this: the boundary at or after newest - 1.5 ranges. */
const BLOCKS_END = T0 + 4 * HOUR;
const BLOCK_WAIT_MS = 20_000;

/** A NaN that is not a stale marker (Go's math.NaN()). */
const PLAIN_NAN = 0x7ff8000000000001n;
const JOBS = ['api', 'db', 'é', '中文', '😀', 'Zürich', 'quote"back\\slash', 'new\nline', 'tab\there', '𝔘ñí'];
const ZONES = ['eu-1', 'ß', 'ü', '東京'];

interface Written extends Series {
  /** Labels as name → value, without the tenant label. */
  map: Record<string, string>;
}

function makeSeries(): Written[] {
  const next = rng(20231114);
  const out: Written[] = [];
  const add = (map: Record<string, string>, samples: Sample[]) => out.push({ map, labels: sortedLabels(map), samples });
  const grid = (from: number, to: number) => {
    const ts: number[] = [];
    for (let t = from; t < to; t += STEP) ts.push(t);
    return ts;
  };
  for (let k = 0; k < 80; k++) {
    const map: Record<string, string> = { __name__: 'strata_e2e_gauge', instance: `i-${k}`, job: JOBS[k % JOBS.length]! };
    if (k % 3 === 0) map.zone = ZONES[k % ZONES.length]!;
    let v = Math.floor(next() * 1000);
    const samples = grid(T0, END).map((t) => {
      v += Math.floor(next() * 21) - 10;
      // Stale markers: the newest sample at T0 + 1 h for every 8th gauge,
      // an earlier one (followed by fresh samples) for others.
      if (k % 8 === 0 && t === T0 + HOUR) return { t, bits: STALE };
      if (k % 8 === 4 && t === T0 + HOUR - 180_000) return { t, bits: STALE };
      if (k % 8 === 2 && t === T0 + 3 * HOUR) return { t, bits: STALE };
      return { t, bits: bitsOf(v) };
    });
    add(map, samples);
  }
  for (let k = 0; k < 80; k++) {
    const map: Record<string, string> = { __name__: 'strata_e2e_float', instance: `i-${k}`, job: JOBS[(k * 7) % JOBS.length]! };
    const samples = grid(T0, END).map((t) => {
      const r = next();
      const bits =
        r < 0.01 ? PLAIN_NAN : r < 0.015 ? bitsOf(Infinity) : r < 0.02 ? bitsOf(-Infinity) : r < 0.025 ? bitsOf(-0) : r < 0.03 ? 1n : bitsOf((next() - 0.5) * 10 ** Math.floor(next() * 12 - 4));
      return { t, bits };
    });
    add(map, samples);
  }
  for (let k = 0; k < 40; k++) {
    const map: Record<string, string> = { __name__: 'strata_e2e_churn', gen: String(k % 4), instance: `c-${k}`, job: JOBS[k % JOBS.length]! };
    const from = T0 + (k % 4) * 45 * 60_000;
    const ts = grid(from, from + 2.5 * HOUR);
    // A series that goes away ends with a stale marker, as Prometheus writes it.
    const samples = ts.map((t, i) => ({ t, bits: i === ts.length - 1 ? STALE : bitsOf(k * 1000 + i) }));
    add(map, samples);
  }
  return out;
}

/** The dump's label list of a written series: its labels and the tenant label, sorted by name. */
function storedLabels(s: Written): string[] {
  return sortedLabels({ ...s.map, tenant_id: 'default-tenant' }).flat();
}

const temps: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'strata-e2e-blocks-'));
  temps.push(d);
  return d;
}

describe('promtool and prometheus read the blocks strata serve cuts', { timeout: 120_000 }, () => {
  const written = makeSeries();
  let strata: Served | undefined;
  let blocks: DiskMeta[] = [];
  /** A copy of DATA/blocks taken once the blocks were there. */
  let blocksCopy = '';
  /** How the writes and the wait went, for the first test's diagnostic. */
  let summary = '';

  before(async () => {
    const dataDir = join(tempDir(), 'data');
    strata = await serveStrata(dataDir, ['--label', 'region="eu-west"']);
    const started = Date.now();
    const requests = await writeInTimeOrder(strata.base, written, T0, END, 10 * 60_000);
    const wroteMs = Date.now() - started;
    const blocksDir = join(dataDir, 'blocks');
    blocks = await waitFor(
      BLOCK_WAIT_MS,
      () => {
        const metas = diskBlocks(blocksDir);
        return covers(metas, T0, BLOCKS_END) ? metas : undefined;
      },
      () => `DATA/blocks does not cover [${T0}, ${BLOCKS_END}): ${JSON.stringify(diskBlocks(blocksDir).map((m) => [m.ulid, m.minTime, m.maxTime]))}\n${strata!.proc.stderr().slice(-4000)}`,
    );
    blocksCopy = join(tempDir(), 'blocks');
    cpSync(blocksDir, blocksCopy, { recursive: true });
    // Only complete blocks: a directory in the making is not copied as one.
    for (const name of readdirSync(blocksCopy)) if (!blocks.some((m) => m.ulid === name)) rmSync(join(blocksCopy, name), { recursive: true, force: true });
    summary = `${written.length} series, ${requests} requests in ${wroteMs} ms; blocks after ${Date.now() - started} ms: ${blocks.map((m) => `${m.ulid} [${m.minTime - T0}, ${m.maxTime - T0})`).join(', ')}`;
  });

  after(async () => {
    if (strata !== undefined) {
      const errors = logLines(strata.proc, 'background storage job failed');
      await strata.proc.stop();
      assert.deepEqual(errors, [], 'background jobs failed');
    }
    await killAll();
    for (const d of temps) rmSync(d, { recursive: true, force: true });
  });

  /** A data directory promtool and prometheus open: the blocks and an empty wal/. */
  function dataDirCopy(): string {
    const data = join(tempDir(), 'data');
    cpSync(blocksCopy, data, { recursive: true });
    mkdirSync(join(data, 'wal'));
    return data;
  }

  test('the blocks are the first two 2 h ranges, aligned', (t) => {
    t.diagnostic(summary);
    const inRange = blocks.filter((m) => m.minTime < BLOCKS_END);
    assert.deepEqual(
      inRange.map((m) => [m.minTime - T0, m.maxTime - T0]),
      [[0, RANGE], [RANGE, 2 * RANGE]],
      'blocks of [T0, T0 + 4 h)',
    );
    const wantSeries = (from: number, to: number) => written.filter((s) => s.samples.some((x) => x.t >= from && x.t < to)).length;
    const wantSamples = (from: number, to: number) => written.reduce((n, s) => n + s.samples.filter((x) => x.t >= from && x.t < to).length, 0);
    for (const m of inRange) {
      assert.equal(m.stats.numSeries, wantSeries(m.minTime, m.maxTime), `${m.ulid}: numSeries`);
      assert.equal(m.stats.numSamples, wantSamples(m.minTime, m.maxTime), `${m.ulid}: numSamples`);
    }
  });

  test("meta.json's thanos section", () => {
    for (const m of blocks) {
      const dir = join(blocksCopy, m.ulid);
      assert.ok(m.thanos, `${m.ulid}: no thanos section`);
      assert.deepEqual(m.thanos.labels, { region: 'eu-west' }, `${m.ulid}: thanos.labels`);
      assert.equal(m.thanos.source, 'receive', `${m.ulid}: thanos.source`);
      assert.deepEqual(m.thanos.downsample, { resolution: 0 }, `${m.ulid}: thanos.downsample`);
      const files = m.thanos.files ?? [];
      const segments = readdirSync(join(dir, 'chunks')).sort().map((f) => `chunks/${f}`);
      assert.ok(segments.includes('chunks/000001'), `${m.ulid}: chunks/000001 on disk`);
      assert.deepEqual(files.map((f) => f.rel_path), [...segments, 'index', 'meta.json'], `${m.ulid}: thanos.files`);
      for (const f of files) {
        const size = statSync(join(dir, f.rel_path)).size;
        // Thanos (GatherFileStats) leaves meta.json's own size out: it is written after the list.
        if (f.rel_path === 'meta.json' && f.size_bytes === undefined) continue;
        assert.equal(f.size_bytes, size, `${m.ulid}: thanos.files size of ${f.rel_path}`);
      }
    }
  });

  test('promtool tsdb list -r names every block with its stats', (t) => {
    if (!HAS_PROMTOOL) return t.skip('promtool not on PATH');
    const out = runPromtool(['tsdb', 'list', '-r', blocksCopy]).trim().split('\n');
    assert.match(out[0]!, /^BLOCK ULID\s+MIN TIME\s+MAX TIME\s+DURATION\s+NUM SAMPLES\s+NUM CHUNKS\s+NUM SERIES\s+SIZE/);
    const rows = out.slice(1).map((l) => l.split(/\s{2,}/));
    assert.deepEqual(rows.map((r) => r[0]).sort(), blocks.map((m) => m.ulid).sort(), 'the blocks listed');
    for (const m of blocks) {
      const row = rows.find((r) => r[0] === m.ulid)!;
      assert.equal(row[3], '2h0m0s', `${m.ulid}: duration`);
      assert.deepEqual(row.slice(4, 7).map(Number), [m.stats.numSamples, m.stats.numChunks, m.stats.numSeries], `${m.ulid}: samples, chunks, series`);
    }
  });

  test('promtool tsdb dump prints exactly the samples written in the blocks\' range', (t) => {
    if (!HAS_PROMTOOL) return t.skip('promtool not on PATH');
    const end = Math.max(...blocks.map((m) => m.maxTime));
    const dump = parseDump(runPromtool(['tsdb', 'dump', `--min-time=${T0}`, `--max-time=${end - 1}`, dataDirCopy()]));
    let samples = 0;
    let stale = 0;
    const wanted = new Set<string>();
    for (const s of written) {
      const want = s.samples.filter((x) => x.t < end);
      if (want.length === 0) continue;
      const key = JSON.stringify(storedLabels(s));
      wanted.add(key);
      const got = dump.get(key);
      assert.ok(got, `series ${key} is not in the dump`);
      assert.deepEqual(got.samples.map((x) => x.t), want.map((x) => x.t), `timestamps of ${key}`);
      got.samples.forEach((x, i) => {
        const w = floatOf(want[i]!.bits);
        assert.ok(sameFloat(x.value, w), `${key} at ${x.t}: dump says ${x.value}, written ${w} (0x${want[i]!.bits.toString(16)})`);
        if (want[i]!.bits === STALE) stale++;
      });
      samples += want.length;
    }
    const extra = [...dump.keys()].filter((k) => !wanted.has(k));
    assert.deepEqual(extra, [], 'series in the dump that were not written there');
    assert.ok(stale > 10, `${stale} stale markers in range`);
    t.diagnostic(`${dump.size} series, ${samples} samples (${stale} stale markers) compared`);
  });

  test('prometheus answers PromQL over the blocks as the written data says', { timeout: 60_000 }, async (t) => {
    if (!HAS_PROMETHEUS) return t.skip('prometheus not on PATH');
    const dir = tempDir();
    const data = dataDirCopy();
    const config = join(dir, 'prometheus.yml');
    writeFileSync(config, 'global:\n  scrape_interval: 1h\nscrape_configs: []\n');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const child = spawn(
      'prometheus',
      [`--config.file=${config}`, `--storage.tsdb.path=${data}`, `--web.listen-address=127.0.0.1:${port}`, '--storage.tsdb.retention.time=100y', '--log.level=warn'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    const keep = (b: Buffer) => (output = (output + b.toString()).slice(-16384));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await waitFor(
        20_000,
        async () => {
          if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${output}`);
          const ok = await fetch(`${base}/-/ready`, { signal: AbortSignal.timeout(1000) })
            .then(async (r) => (await r.arrayBuffer(), r.status === 200))
            .catch(() => false);
          return ok ? true : undefined;
        },
        () => `prometheus not ready:\n${output}`,
        100,
      );

      type Row = { metric: Record<string, string>; value: [number, string] };
      const query = async (q: string, at: number): Promise<Row[]> => {
        const url = `${base}/api/v1/query?${new URLSearchParams({ query: q, time: (at / 1000).toFixed(3) })}`;
        const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
        const body = (await res.json()) as { status: string; data: { resultType: string; result: Row[] } };
        assert.equal(body.status, 'success', `${q}: ${JSON.stringify(body)}`);
        assert.equal(body.data.resultType, 'vector', q);
        return body.data.result;
      };

      // Instant selection as Prometheus 2.42 does it: the newest sample in
      // [at - 5m, at], unless it is a stale marker.
      const latest = (s: Written, at: number): number | undefined => {
        let k = -1;
        for (let j = 0; j < s.samples.length && s.samples[j]!.t <= at; j++) k = j;
        if (k < 0 || s.samples[k]!.t < at - 300_000 || s.samples[k]!.bits === STALE) return undefined;
        return floatOf(s.samples[k]!.bits);
      };
      const named = (name: string) => written.filter((s) => s.map.__name__ === name);

      // Instants inside the first block, inside the second, and just after the boundary between them.
      for (const at of [T0 + HOUR + 7_777, T0 + 3 * HOUR + 1_234, T0 + RANGE + 600_000 + 5]) {
        const present = written.filter((s) => latest(s, at) !== undefined);
        const hidden = named('strata_e2e_gauge').filter((s) => s.samples.some((x) => x.t <= at && x.t > at - 300_000) && latest(s, at) === undefined);
        const count = await query('count({__name__=~"strata_e2e_.+"})', at);
        assert.equal(Number(count[0]?.value[1]), present.length, `count at T0 + ${at - T0} ms`);
        t.diagnostic(`at T0 + ${at - T0} ms: ${present.length} series present, ${hidden.length} gauges hidden by a stale marker`);
        // At T0 + 1 h and T0 + 3 h every 8th gauge's newest sample is a stale marker: count proves its bits survived.
        if (at !== T0 + RANGE + 600_000 + 5) assert.equal(hidden.length, 10, 'gauges whose newest sample is a stale marker');

        const gauges = named('strata_e2e_gauge').filter((s) => latest(s, at) !== undefined);
        const sum = await query('sum(strata_e2e_gauge)', at);
        assert.equal(Number(sum[0]?.value[1]), gauges.reduce((n, s) => n + latest(s, at)!, 0), `sum(strata_e2e_gauge) at T0 + ${at - T0} ms`);

        const byChurnGen = await query('count by (gen) (strata_e2e_churn)', at);
        const wantGen = new Map<string, number>();
        for (const s of named('strata_e2e_churn')) if (latest(s, at) !== undefined) wantGen.set(s.map.gen!, (wantGen.get(s.map.gen!) ?? 0) + 1);
        assert.deepEqual(new Map(byChurnGen.map((r) => [r.metric.gen!, Number(r.value[1])])), wantGen, `count by (gen) at T0 + ${at - T0} ms`);

        // max_over_time over [at - 30m, at], stale markers dropped, NaN as Prometheus 2.42 orders it.
        for (const name of ['strata_e2e_gauge', 'strata_e2e_float']) {
          const want = new Map<string, number>();
          for (const s of named(name)) {
            const vals = s.samples.filter((x) => x.t >= at - 1_800_000 && x.t <= at && x.bits !== STALE).map((x) => floatOf(x.bits));
            if (vals.length === 0) continue;
            let max = vals[0]!;
            for (const v of vals) if (v > max || Number.isNaN(max)) max = v;
            want.set(s.map.instance!, max);
          }
          const got = await query(`max_over_time(${name}[30m])`, at);
          assert.equal(got.length, want.size, `max_over_time(${name}[30m]) at T0 + ${at - T0} ms: series answered`);
          for (const r of got) {
            assert.equal(r.metric.tenant_id, 'default-tenant', 'the tenant label is stored on every series');
            const w = want.get(r.metric.instance!);
            assert.ok(w !== undefined, `unexpected ${JSON.stringify(r.metric)}`);
            assert.ok(sameFloat(goFloat(r.value[1]), w), `max_over_time(${name}{instance="${r.metric.instance}"}[30m]): ${r.value[1]}, want ${w}`);
          }
        }
      }

      // One series' instant value, its labels exactly as written (unicode, quote, backslash) plus the tenant.
      for (const s of [named('strata_e2e_float')[3]!, named('strata_e2e_gauge')[6]!, named('strata_e2e_float')[42]!]) {
        const at = T0 + RANGE + 45 * 60_000 + 1;
        const got = await query(`${s.map.__name__}{instance="${s.map.instance}"}`, at);
        assert.equal(got.length, 1, `${s.map.instance}: one series`);
        assert.deepEqual(got[0]!.metric, { ...s.map, tenant_id: 'default-tenant' });
        assert.ok(sameFloat(goFloat(got[0]!.value[1]), latest(s, at)!), `${s.map.__name__}{instance="${s.map.instance}"}: ${got[0]!.value[1]}, want ${latest(s, at)}`);
      }

      // Unicode label values come back as written.
      const jobs = await query('count by (job) (strata_e2e_gauge)', T0 + 30 * 60_000);
      assert.deepEqual(new Set(jobs.map((r) => r.metric.job)), new Set(named('strata_e2e_gauge').map((s) => s.map.job)));
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

