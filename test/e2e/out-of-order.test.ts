/**
 * Out-of-order samples, black box (issue 16): `strata serve
 * --tsdb.out-of-order.time-window 4h --tsdb.too-far-in-future.time-window
 * 1h`, written over HTTP remote write (and gRPC RemoteWrite), read back
 * through every read API.
 *
 * Data, from T0 (on the 2 h grid), six series: in order every 30 s; out of
 * order, the samples between them (15 s past each), written after the
 * in-order data has moved on, in shuffled requests: first while the head
 * holds their range, then (after [T0, T0 + 2 h) was cut into a block with
 * the first ones merged in) into the range the block holds, which makes a
 * block of out-of-order data that compaction merges into it.
 *
 * Every read (gRPC Series over ranges across block and head, LabelNames
 * and LabelValues, remote read SAMPLES and STREAMED_XOR_CHUNKS,
 * /api/v1/labels and values) answers each sample written exactly once, in
 * time order, chunks not overlapping; the same after SIGTERM and a
 * restart, and after kill -9 and a restart. Refused, naming the series:
 * samples older than the window, another value for a time held, samples
 * beyond now + 1 h (409 over HTTP, AlreadyExists over gRPC), counted in
 * strata_samples_rejected_total by reason.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { call } from '../http/support/http-client.js';
import {
  ReadRequest_ResponseType as RT, bitsOf, chunkSamples, decodeFrames, decodeReadResponse, postRead, postWrite, type Sample, type Series,
} from '../http/prometheus/support/prom-wire.js';
import { StoreClient, grpc, re } from '../store/support/client.js';
import { encodeWriteRequest } from '../store/support/write-request.js';
import { decodeSeries, seriesOf, show } from '../store/support/series-check.js';
import { onPath, parseDump, runPromtool, sameFloat } from '../support/promtool-dump.js';
import { killAll } from '../support/serve-process.js';
import { rng } from '../support/series.js';
import { diskBlocks, serveStrata, sortedLabels, waitFor, writeInTimeOrder, floatOf, type Served } from './support/strata-blocks.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const RANGE = 2 * HOUR;
/** 2023-11-22T06:00:00Z, on the 2 h grid. */
const T0 = 236_199 * RANGE;
const ARGS = ['--tsdb.out-of-order.time-window', '4h', '--tsdb.too-far-in-future.time-window', '1h'];
const WAIT_MS = 30_000;
const SERIES = 6;

/** What was acknowledged, per series: value bits by time. */
const written = Array.from({ length: SERIES }, (_, i) => ({
  labels: sortedLabels({ __name__: 'ooo_e2e', i: String(i), kind: i % 2 === 0 ? 'even' : 'odd' }),
  at: new Map<number, bigint>(),
}));

function inOrderSeries(from: number, to: number): Series[] {
  return written.map((w, i) => {
    const samples: Sample[] = [];
    for (let t = from; t < to; t += 30_000) samples.push({ t, bits: bitsOf((t - T0) / 1000 + i) });
    for (const s of samples) w.at.set(s.t, s.bits);
    return { labels: w.labels, samples };
  });
}

/** Out-of-order samples `offset` past every 30 s in [from, to), for every series, in shuffled requests of ~100 samples. */
async function writeOutOfOrder(base: string, from: number, to: number, offset: number, seed: number): Promise<number> {
  const next = rng(seed);
  const all: Array<{ s: number; t: number }> = [];
  for (let t = from + offset; t < to; t += 30_000) for (let s = 0; s < SERIES; s++) all.push({ s, t });
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  for (let k = 0; k < all.length; k += 100) {
    const part = all.slice(k, k + 100);
    const series: Series[] = written.map((w, s) => ({
      labels: w.labels,
      samples: part.filter((x) => x.s === s).map((x) => ({ t: x.t, bits: bitsOf(-(x.t - T0) / 1000 - s) })),
    })).filter((x) => x.samples.length > 0);
    const a = await postWrite(base, series);
    assert.equal(a.status, 204, `out-of-order write: ${a.status} ${a.text}`);
    series.forEach((x) => {
      const w = written.find((y) => y.labels === x.labels)!;
      for (const s of x.samples) w.at.set(s.t, s.bits);
    });
  }
  return all.length;
}

/** Expected samples of series k in [min, max], sorted. */
function want(k: number, min: number, max: number): Sample[] {
  return [...written[k]!.at].filter(([t]) => t >= min && t <= max).sort((a, b) => a[0] - b[0]).map(([t, bits]) => ({ t, bits }));
}

/** Decoded samples of a chunk list, each chunk after the previous one (no overlap). */
function fromChunks(what: string, chunks: ReadonlyArray<{ minT: number; maxT: number; data: Uint8Array }>): Sample[] {
  const out: Sample[] = [];
  let prevMax = -Infinity;
  for (const c of chunks) {
    assert.ok(c.minT > prevMax, `${what}: a chunk starting at ${c.minT} overlaps the one before (ending ${prevMax})`);
    prevMax = c.maxT;
    out.push(...chunkSamples(c.data));
  }
  return out;
}

function assertSame(got: Sample[], exp: Sample[], what: string): void {
  for (let i = 0; i < Math.min(got.length, exp.length); i++) {
    if (got[i]!.t !== exp[i]!.t || got[i]!.bits !== exp[i]!.bits) {
      assert.fail(`${what}: sample ${i} is (${got[i]!.t}, 0x${got[i]!.bits.toString(16)}), written (${exp[i]!.t}, 0x${exp[i]!.bits.toString(16)})`);
    }
  }
  assert.equal(got.length, exp.length, `${what}: ${got.length} samples answered, ${exp.length} written`);
}

const RANGES: Array<{ what: string; min: number; max: number }> = [
  { what: 'everything', min: T0 - HOUR, max: T0 + 6 * HOUR },
  { what: 'the first block', min: T0, max: T0 + RANGE - 1 },
  { what: 'across the block and the head', min: T0 + 90 * MIN + 7_000, max: T0 + 150 * MIN + 3_000 },
  { what: 'one out-of-order instant in the block', min: T0 + 60 * MIN + 15_000, max: T0 + 60 * MIN + 15_000 },
  { what: 'the head', min: T0 + RANGE, max: T0 + 6 * HOUR },
];

describe('out-of-order samples through strata serve', { timeout: 240_000 }, () => {
  let dir = '';
  let strata: Served;
  let client: StoreClient;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-e2e-ooo-'));
    strata = await serveStrata(join(dir, 'data'), ARGS);
    client = new StoreClient(strata.grpcAddress);
  });

  after(async () => {
    client?.close();
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  test('out-of-order writes are taken: while the head holds their range, and into a range a block holds', async () => {
    await writeInTimeOrder(strata.base, inOrderSeries(T0, T0 + 170 * MIN), T0, T0 + 170 * MIN, 10 * MIN);
    await writeOutOfOrder(strata.base, T0, T0 + 140 * MIN, 15_000, 1);
    // The head now spans past 3 h: [T0, T0 + 2 h) is cut, the out-of-order samples merged in.
    await writeInTimeOrder(strata.base, inOrderSeries(T0 + 170 * MIN, T0 + 5 * HOUR), T0 + 170 * MIN, T0 + 5 * HOUR, 10 * MIN);
    const blocksDir = join(strata.dataDir, 'blocks');
    const first = await waitFor(WAIT_MS, () => diskBlocks(blocksDir).find((m) => m.minTime === T0 && m.maxTime === T0 + RANGE), () => 'no block [T0, T0 + 2 h)');
    assert.equal(first.stats.numSamples, SERIES * (240 + 240), 'in-order and out-of-order samples of the range in one block');
    // Into the range the block holds (the window reaches back to T0 + 1 h), and the head's.
    await writeOutOfOrder(strata.base, T0 + 70 * MIN, T0 + 4 * HOUR, 5_000, 2);
    const metrics = await call(strata.base, 'GET', '/metrics');
    assert.match(metrics.text, /strata_samples_out_of_order_ingested_total \d+/);
    assert.match(metrics.text, /strata_ooo_read_cache_bytes \d+/);
  });

  test('refusals name the series: older than the window, another value for a time held, too far in the future (409, AlreadyExists)', async () => {
    const w = written[0]!;
    const tooOld = await postWrite(strata.base, [{ labels: w.labels, samples: [{ t: T0 + 30 * MIN, bits: bitsOf(1) }] }]);
    assert.equal(tooOld.status, 409);
    assert.match(tooOld.json.detail, /too old sample \(1, first \{__name__="ooo_e2e", i="0", kind="even"(, tenant_id="default-tenant")?\} at/);
    const conflict = await postWrite(strata.base, [{ labels: w.labels, samples: [{ t: T0 + 100 * MIN + 15_000, bits: bitsOf(12345) }] }]);
    assert.equal(conflict.status, 409);
    assert.match(conflict.json.detail, /duplicate sample for timestamp \(1, first \{__name__="ooo_e2e", i="0"/);
    const same = await postWrite(strata.base, [{ labels: w.labels, samples: [{ t: T0 + 100 * MIN + 15_000, bits: w.at.get(T0 + 100 * MIN + 15_000)! }] }]);
    assert.equal(same.status, 204, 'the same sample again: accepted, kept once');
    const future = await postWrite(strata.base, [{ labels: sortedLabels({ __name__: 'ooo_future' }), samples: [{ t: Date.now() + 2 * HOUR, bits: bitsOf(1) }] }]);
    assert.equal(future.status, 409);
    assert.match(future.json.detail, /out of bounds: sample too far in the future \(1, first \{__name__="ooo_future"/);
    const grpcFuture = await client.remoteWrite(encodeWriteRequest({
      timeseries: [{ labels: [['__name__', 'ooo_future']], samples: [{ t: BigInt(Date.now() + 2 * HOUR), v: 1 }] }],
    }));
    assert.equal(grpcFuture.code, grpc.status.ALREADY_EXISTS, grpcFuture.details);
    const grpcOld = await client.remoteWrite(encodeWriteRequest({
      timeseries: [{ labels: w.labels.map(([n, v]) => [n, v] as [string, string]), samples: [{ t: BigInt(T0), v: 9 }] }],
    }));
    assert.equal(grpcOld.code, grpc.status.ALREADY_EXISTS, grpcOld.details);
    // An out-of-order sample over gRPC is taken.
    const grpcOoo = await client.remoteWrite(encodeWriteRequest({
      timeseries: [{ labels: w.labels.map(([n, v]) => [n, v] as [string, string]), samples: [{ t: BigInt(T0 + 3 * HOUR + 1), v: 0.5 }] }],
    }));
    assert.equal(grpcOoo.code, grpc.status.OK, grpcOoo.details);
    w.at.set(T0 + 3 * HOUR + 1, bitsOf(0.5));
    const m = (await call(strata.base, 'GET', '/metrics')).text;
    assert.match(m, /strata_samples_rejected_total\{reason="too_far_in_future"\} 2/);
    assert.match(m, /strata_samples_rejected_total\{reason="too_old"\} [1-9]/);
    assert.match(m, /strata_samples_rejected_total\{reason="conflict"\} [1-9]/);
  });

  for (const phase of ['written', 'after SIGTERM and a restart', 'after kill -9 and a restart']) {
    test(`every read answers each sample once, in time order (${phase})`, async () => {
      if (phase !== 'written') {
        if (phase.startsWith('after SIGTERM')) assert.deepEqual(await strata.proc.stop(), { code: 0, signal: null });
        else await strata.proc.kill9();
        client.close();
        strata = await serveStrata(strata.dataDir, ARGS);
        client = new StoreClient(strata.grpcAddress);
      }
      for (const r of RANGES) {
        // gRPC Series: every series, with the tenant label.
        const a = await client.series({ min_time: String(r.min), max_time: String(r.max), matchers: [re('__name__', 'ooo_e2e')] });
        assert.equal(a.code, 0, a.details);
        const got = seriesOf(a.frames);
        const present = written.map((_, k) => k).filter((k) => want(k, r.min, r.max).length > 0);
        assert.equal(got.length, present.length, `Series over ${r.what}: series answered`);
        for (const [j, s] of got.entries()) {
          const k = present[j]!;
          const d = decodeSeries(s);
          const samples = d.t.map((t, i) => ({ t: Number(t), bits: d.bits[i]! })).filter((x) => x.t >= r.min && x.t <= r.max);
          assertSame(samples, want(k, r.min, r.max), `Series ${show(s.labels)} over ${r.what} (${phase})`);
        }
        // Remote read, both answer types.
        const query = { matchers: [[0, '__name__', 'ooo_e2e']] as const, start: r.min, end: r.max };
        const samplesAnswer = await postRead(strata.base, [query], { types: [RT.SAMPLES] });
        assert.equal(samplesAnswer.status, 200);
        const [result] = decodeReadResponse(samplesAnswer.body);
        assert.equal(result!.length, present.length, `SAMPLES over ${r.what}`);
        result!.forEach((s, j) => assertSame(s.samples, want(present[j]!, r.min, r.max), `SAMPLES ${s.labels.join()} over ${r.what} (${phase})`));
        const streamed = await postRead(strata.base, [query], { types: [RT.STREAMED_XOR_CHUNKS] });
        assert.equal(streamed.status, 200);
        const frames = decodeFrames(streamed.body);
        present.forEach((k, j) => {
          const chunks = frames.filter((f) => f.labels.join() === written[k]!.labels.join()).flatMap((f) => f.chunks);
          const samples = fromChunks(`STREAMED over ${r.what}`, chunks).filter((x) => x.t >= r.min && x.t <= r.max);
          assertSame(samples, want(k, r.min, r.max), `STREAMED_XOR_CHUNKS series ${j} over ${r.what} (${phase})`);
        });
      }
      // Labels: out-of-order data in a range counts as data there.
      const values = await client.labelValues({ label: 'i', start: String(T0 + 60 * MIN + 15_000), end: String(T0 + 60 * MIN + 15_000), matchers: [re('__name__', 'ooo_e2e')] });
      assert.deepEqual(values.response?.values, written.map((_, k) => String(k)));
      const names = await call(strata.base, 'GET', `/api/v1/labels?start=${(T0 + 60 * MIN + 15_000) / 1000}&end=${(T0 + 60 * MIN + 15_000) / 1000}`);
      assert.deepEqual(names.json.data, ['__name__', 'i', 'kind']);
    });
  }

  test('compaction merges the out-of-order block into its range; promtool reads the blocks as written', async () => {
    const blocksDir = join(strata.dataDir, 'blocks');
    // The next range is cut: with it, the out-of-order samples of the range
    // cut before make a block of their own, which compaction merges.
    await writeInTimeOrder(strata.base, inOrderSeries(T0 + 5 * HOUR, T0 + 7 * HOUR + 10 * MIN), T0 + 5 * HOUR, T0 + 7 * HOUR + 10 * MIN, 10 * MIN);
    await waitFor(WAIT_MS, () => diskBlocks(blocksDir).find((m) => m.minTime === T0 + RANGE), () => 'no block [T0 + 2 h, T0 + 4 h)');
    const merged = await waitFor(WAIT_MS, () => {
      const metas = diskBlocks(blocksDir).filter((m) => m.minTime < T0 + RANGE);
      return metas.length === 1 && metas[0]!.compaction.level > 1 ? metas[0] : undefined;
    }, () => JSON.stringify(diskBlocks(blocksDir).map((m) => [m.minTime, m.maxTime, m.compaction])));
    assert.equal(merged.stats.numSamples, written.reduce((n, w) => n + [...w.at.keys()].filter((t) => t < T0 + RANGE).length, 0));
    if (!onPath('promtool')) return;
    const copy = join(dir, 'promtool');
    mkdirSync(copy);
    for (const m of diskBlocks(blocksDir)) cpSync(join(blocksDir, m.ulid), join(copy, m.ulid), { recursive: true });
    mkdirSync(join(copy, 'wal'));
    const end = Math.max(...diskBlocks(copy).map((m) => m.maxTime));
    const dump = parseDump(runPromtool(['tsdb', 'dump', `--min-time=${T0}`, `--max-time=${end - 1}`, copy]));
    for (const w of written) {
      const key = JSON.stringify([...w.labels, ['tenant_id', 'default-tenant']].sort(([x], [y]) => (x! < y! ? -1 : 1)).flat());
      const got = dump.get(key);
      assert.ok(got, `${key} in the dump`);
      const exp = [...w.at].filter(([t]) => t < end).sort((a, b) => a[0] - b[0]);
      assert.deepEqual(got.samples.map((x) => x.t), exp.map(([t]) => t), `dump of ${key}: timestamps`);
      got.samples.forEach((x, i) => assert.ok(sameFloat(x.value, floatOf(exp[i]![1])), `dump of ${key} at ${x.t}`));
    }
  });
});
