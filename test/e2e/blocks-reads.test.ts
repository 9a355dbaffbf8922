/**
 * Reads across blocks and head, black box, through every read API of
 * `strata serve`, each answer compared with what was written.
 *
 * Data: 11 h from T0 (on the 2 h and 6 h grids), one sample every 30 s,
 * written over HTTP remote write oldest first in 10-minute requests: 24
 * steady series (stale markers on the 2 h boundaries among them) and 22
 * generations of 8 churned series, generation g living
 * [g * 30 min, g * 30 min + 1 h) and ending with a stale marker.
 * Generations 0-2 carry `early="yes"` (their data is all in the first
 * 2 h), 16-21 `late="yes"` (all in the head). Strata cuts [T0, T0 + 8 h)
 * into four 2 h blocks and compacts the first three into one 6 h block, so
 * the reads cross a compacted block, a 2 h block and the head. While the
 * writes go on, reads right after each step of the head's floor (while
 * blocks are cut, added and compacted and the head truncated in the
 * background) must answer exactly what was written so far.
 *
 * Then, before and after a restart (SIGTERM, start on the same data dir;
 * the restart opens the blocks and replays no block data, so its "storage
 * recovered" line counts only the series with head data):
 * - gRPC Series for matchers x ranges that start in one block and end in
 *   the head, straddle each boundary, hold one instant, only blocks, only
 *   head, nothing: every series whole, sorted, each sample exactly once;
 * - gRPC LabelNames / LabelValues with and without matchers over ranges
 *   with block data only, head data only, both and none; Info's times;
 * - HTTP remote read, SAMPLES and STREAMED_XOR_CHUNKS, several queries per
 *   request;
 * - /api/v1/labels, /api/v1/label/<name>/values, /api/v1/series with
 *   start and end.
 * The answers after the restart must equal those before it. Samples
 * older than the blocks' end are refused (HTTP 409, gRPC AlreadyExists).
 *
 * Last, series whose only sample was refused as too old (a new series, and
 * one whose data is all in blocks) must not be answered by any read: the
 * head does not create a series none of whose samples it takes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { call } from '../http/support/http-client.js';
import {
  STALE, ReadRequest_ResponseType as RT, bitsOf, chunkSamples, decodeFrames, decodeReadResponse, postRead, postWrite, type ReadQuery, type Sample, type Series,
} from '../http/prometheus/support/prom-wire.js';
import { MatcherType, StoreClient, grpc, type Label, type Matcher } from '../store/support/client.js';
import { encodeWriteRequest } from '../store/support/write-request.js';
import { answeredLabels, assertSamplesEqual, compareLabelSets, compareStrings, decodeSeries, seriesOf, show, within, type DecodedSamples } from '../store/support/series-check.js';
import { killAll } from '../support/serve-process.js';
import { rng } from '../support/series.js';
import { covers, diskBlocks, logLines, serveStrata, sortedLabels, waitFor, writeInTimeOrder, type Served } from './support/strata-blocks.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const RANGE = 2 * HOUR;
const STEP = 30_000;
/** 2023-11-22T06:00:00Z, on the 2 h and the 6 h grids (so the first three 2 h blocks compact into one). */
const T0 = 236_199 * RANGE;
/** Samples are in [T0, END). */
const END = T0 + 11 * HOUR;
/** Strata cuts every range before this into blocks (the 2 h boundary at or after newest - 1.5 ranges). */
const BLOCKS_END = T0 + 8 * HOUR;
const EXTERNAL = { region: 'eu-west' };
const TENANT_LABEL = 'tenant_id';
const WAIT_MS = 20_000;
const ZONES = ['eu-1', 'Zürich', '東京', '😀'];

interface Written extends Series {
  map: Record<string, string>;
  samples: Sample[];
}

function makeSeries(): Written[] {
  const next = rng(9);
  const out: Written[] = [];
  const add = (map: Record<string, string>, samples: Sample[]) => out.push({ map, labels: sortedLabels(map), samples });
  for (let k = 0; k < 24; k++) {
    const map = { __name__: 'rd_steady', i: String(k), zone: ZONES[k % ZONES.length]! };
    const samples: Sample[] = [];
    let v = 0;
    for (let t = T0; t < END; t += STEP) {
      const r = next();
      v = k % 3 === 0 ? v + Math.floor(r * 100) : k % 3 === 1 ? (r - 0.5) * 1e6 : r < 0.05 ? -0 : 42;
      let bits = bitsOf(v);
      // Stale markers on the boundaries: first sample of block 2 and of the head, last of block 2.
      if ((k % 6 === 0 && t === T0 + RANGE) || (k % 6 === 1 && t === BLOCKS_END) || (k % 6 === 2 && t === T0 + 3 * RANGE - STEP)) bits = STALE;
      if (k % 3 === 2 && r > 0.97) bits = 0x7ff8000000000001n;
      samples.push({ t, bits });
    }
    add(map, samples);
  }
  for (let g = 0; g < 22; g++) {
    for (let k = 0; k < 8; k++) {
      const map: Record<string, string> = { __name__: 'rd_churn', gen: String(g), i: String(k) };
      if (g <= 2) map.early = 'yes';
      if (g >= 16) map.late = 'yes';
      const from = T0 + g * 30 * MIN;
      const to = from + HOUR;
      const samples: Sample[] = [];
      for (let t = from; t < Math.min(to, END); t += STEP) samples.push({ t, bits: bitsOf(g * 1000 + k + (t - from) / STEP) });
      // A series that went away ends with a stale marker.
      if (to <= END) samples[samples.length - 1]!.bits = STALE;
      add(map, samples);
    }
  }
  return out;
}

const written = makeSeries();

// ------------------------------------------------------------ expectations

type M = readonly [type: number, name: string, value: string];
const EQ = MatcherType.EQ;
const NEQ = MatcherType.NEQ;
const RE = MatcherType.RE;
const NRE = MatcherType.NRE;

/** Whether a written series matches (label absent = empty value; regexes fully anchored). */
function matches(w: Written, ms: readonly M[]): boolean {
  return ms.every(([type, name, value]) => {
    const v = w.map[name] ?? '';
    if (type === EQ) return v === value;
    if (type === NEQ) return v !== value;
    const hit = new RegExp(`^(?:${value})$`, 'u').test(v);
    return type === RE ? hit : !hit;
  });
}

function inRange(w: Written, min: number, max: number): Sample[] {
  return w.samples.filter((x) => x.t >= min && x.t <= max);
}

/** Written series that match and hold a sample in [min, max]. */
function expected(ms: readonly M[], min: number, max: number): Written[] {
  return written.filter((w) => matches(w, ms) && inRange(w, min, max).length > 0);
}

const toDecoded = (samples: readonly Sample[]): DecodedSamples => ({ t: samples.map((x) => BigInt(x.t)), bits: samples.map((x) => x.bits) });
const grpcMatchers = (ms: readonly M[]): Matcher[] => ms.map(([type, name, value]) => ({ type, name, value }));
const selector = (ms: readonly M[]): string => `{${ms.map(([type, name, value]) => `${name}${['=', '!=', '=~', '!~'][type]}${JSON.stringify(value)}`).join(', ')}}`;
const utf8Sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort(compareStrings);

const MATCHERS: Array<readonly M[]> = [
  [[RE, '__name__', 'rd_.+']],
  [[EQ, 'gen', '3']], // lives across the first block boundary
  [[EQ, '__name__', 'rd_churn'], [RE, 'gen', '1[1-5]']], // gen 11 lives across the 6 h block's end, gen 15 across the head's start
  [[EQ, 'early', 'yes']], // only in the first block
  [[NEQ, 'late', ''], [RE, 'i', '[0-3]']], // only in the head
  [[EQ, 'zone', '東京'], [NRE, 'i', '1.*']],
];

/** [min, max] inclusive, relative to T0. */
const RANGES: Array<{ what: string; min: number; max: number }> = [
  { what: 'everything', min: -HOUR, max: 12 * HOUR },
  { what: 'from inside the first block into the head', min: HOUR + 7, max: 9 * HOUR + 13 },
  { what: 'the instant of the first boundary', min: RANGE, max: RANGE },
  { what: 'across the first boundary', min: RANGE - STEP, max: RANGE + STEP },
  { what: 'across the second boundary', min: 2 * RANGE - 1, max: 2 * RANGE },
  { what: 'across the end of the compacted block', min: 6 * HOUR - STEP, max: 6 * HOUR + STEP },
  { what: 'across the head boundary', min: 8 * HOUR - STEP, max: 8 * HOUR + STEP },
  { what: 'the head only', min: 8 * HOUR, max: 12 * HOUR },
  { what: 'inside the compacted block', min: 3 * HOUR, max: 5 * HOUR },
  { what: 'two blocks only', min: 5 * HOUR, max: 7 * HOUR },
  { what: 'off-grid, blocks to head', min: 5 * HOUR + 15_000, max: 10 * HOUR + 15_000 },
  { what: 'before any data', min: -5 * HOUR, max: -1 },
  { what: 'after all data', min: 11 * HOUR, max: 14 * HOUR },
];

// ------------------------------------------------------------ the server

const temps: string[] = [];
let dataDir = '';
let strata: Served;
let client: StoreClient;
/** Answers of the first run of the reads, to compare with the run after the restart. */
const answers = new Map<string, unknown>();

function remember(key: string, value: unknown, phase: string): void {
  if (phase === 'before restart') answers.set(key, value);
  else assert.deepEqual(value, answers.get(key), `${key}: answer after the restart differs from the one before`);
}

before(async () => {
  dataDir = join(mkdtempSync(join(tmpdir(), 'strata-e2e-reads-')), 'data');
  temps.push(dataDir);
  strata = await serveStrata(dataDir, ['--label', 'region="eu-west"']);
  client = new StoreClient(strata.grpcAddress);
});

after(async () => {
  client?.close();
  await killAll();
  for (const d of temps) rmSync(join(d, '..'), { recursive: true, force: true });
});

/** gRPC Series of `ms` over [min, max] (absolute ms) compared with the written data; returns a digest of the answer. */
async function checkSeries(ms: readonly M[], min: number, max: number, what: string): Promise<string[]> {
  const answer = await client.series({ min_time: String(min), max_time: String(max), matchers: grpcMatchers(ms) });
  assert.equal(answer.code, 0, `${what}: ${answer.details}`);
  const got = seriesOf(answer.frames);
  const want = expected(ms, min, max)
    .map((w) => ({ labels: answeredLabels(w.labels, { external: EXTERNAL }), samples: inRange(w, min, max) }))
    .sort((a, b) => compareLabelSets(a.labels, b.labels));
  assert.deepEqual(got.map((s) => show(s.labels)), want.map((w) => show(w.labels)), `${what}: series answered`);
  const digest: string[] = [];
  got.forEach((s, i) => {
    const decoded = within(decodeSeries(s), BigInt(min), BigInt(max));
    assertSamplesEqual(decoded, toDecoded(want[i]!.samples), `${what}: ${show(s.labels)}`);
    digest.push(`${show(s.labels)} ${decoded.t.length} ${decoded.t[0]} ${decoded.t[decoded.t.length - 1]}`);
  });
  return digest;
}

// ------------------------------------------------------------ tests

describe('reads across blocks and head', { timeout: 120_000 }, () => {
  test('writes of 11 h, read back after every request while blocks are cut and compacted', async (t) => {
    const started = Date.now();
    let reads = 0;
    let readMs = 0;
    const all: M[] = [[RE, '__name__', 'rd_.+']];
    // One request per 10 minutes of data. The head is cut each time the
    // newest sample passes T0 + 3 h + k * 2 h (the floor moves a range) and
    // the blocks compact after the fourth cut: after each of the three
    // requests that follow such a step, the last 5 h written (which hold the
    // range being cut) read back exactly, so reads come while a block is
    // written, added, compacted or the head truncated.
    for (let from = T0; from < END; from += 10 * MIN) {
      const upTo = from + 10 * MIN;
      await writeInTimeOrder(strata.base, written.map((w) => ({ labels: w.labels, samples: w.samples.filter((x) => x.t >= from && x.t < upTo) })), from, upTo, 10 * MIN);
      const sinceStep = (upTo - T0 - 3 * HOUR) % RANGE;
      if (upTo <= T0 + 3 * HOUR || sinceStep > 30 * MIN) continue;
      const r0 = Date.now();
      await checkSeries(all, upTo - 5 * HOUR, upTo - 1, `after writing up to T0 + ${(upTo - T0) / MIN} min`);
      readMs += Date.now() - r0;
      reads++;
    }
    const blocksDir = join(dataDir, 'blocks');
    const blocks = await waitFor(
      WAIT_MS,
      () => {
        const metas = diskBlocks(blocksDir);
        const truncated = logLines(strata.proc, 'head truncated').some((l) => l.end === BLOCKS_END);
        return truncated && metas.length === 2 && covers(metas, T0, BLOCKS_END) ? metas : undefined;
      },
      () => `no compacted blocks over [T0, T0 + 8 h) with the head truncated: ${JSON.stringify(diskBlocks(blocksDir).map((m) => [m.minTime - T0, m.maxTime - T0]))}\n${strata.proc.stderr().slice(-4000)}`,
    );
    assert.deepEqual(blocks.map((m) => [m.minTime - T0, m.maxTime - T0, m.compaction.level]), [[0, 3 * RANGE, 2], [3 * RANGE, 4 * RANGE, 1]], 'a 6 h block compacted from three 2 h blocks, and a 2 h block');
    assert.equal(blocks[0]!.compaction.parents?.length, 3, 'parents of the 6 h block');
    assert.equal(logLines(strata.proc, 'head range written as a block').length, 4, 'blocks cut from the head');
    t.diagnostic(`${written.length} series, ${written.reduce((n, w) => n + w.samples.length, 0)} samples written and read back ${reads} times (${readMs} ms of reads) in ${Date.now() - started} ms`);
  });

  for (const phase of ['before restart', 'after restart']) {
    if (phase === 'after restart') {
      test('a restart opens the blocks without replaying them', async () => {
        const stopped = await strata.proc.stop();
        assert.deepEqual(stopped, { code: 0, signal: null }, 'SIGTERM stops cleanly');
        client.close();
        strata = await serveStrata(dataDir, ['--label', 'region="eu-west"']);
        client = new StoreClient(strata.grpcAddress);
        const headSeries = written.filter((w) => w.samples.some((x) => x.t >= BLOCKS_END)).length;
        const r = strata.recovered;
        assert.equal(r.blocks, 2, `blocks opened: ${JSON.stringify(r)}`);
        assert.equal(r.series, headSeries, `the head holds only the series with data from T0 + 8 h on (${headSeries} of ${written.length}): ${JSON.stringify(r)}`);
        assert.ok((r.series as number) < 0.6 * written.length, 'well below the total');
      });
    }

    test(`samples before the blocks' end are refused as too old, over HTTP (409) and gRPC (AlreadyExists) (${phase})`, async () => {
      // Series the head holds (new ones, and series now only in blocks, are
      // the last tests'): the reads that follow show nothing was stored.
      const refused: Array<{ labels: Array<[string, string]>; t: number }> = [
        { labels: written[0]!.labels as Array<[string, string]>, t: T0 + HOUR }, // inside the 6 h block
        { labels: written[5]!.labels as Array<[string, string]>, t: BLOCKS_END - 1 }, // just before the head's floor
      ];
      for (const r of refused) {
        const a = await postWrite(strata.base, [{ labels: r.labels, samples: [{ t: r.t, bits: bitsOf(1) }] }]);
        assert.equal(a.status, 409, `HTTP write of ${JSON.stringify(r.labels)} at T0 + ${r.t - T0}: ${a.status} ${a.text}`);
        const g = await client.remoteWrite(encodeWriteRequest({ timeseries: [{ labels: r.labels, samples: [{ t: BigInt(r.t), v: 1 }] }] }));
        assert.equal(g.code, grpc.status.ALREADY_EXISTS, `gRPC RemoteWrite of ${JSON.stringify(r.labels)} at T0 + ${r.t - T0}: ${g.code} ${g.details}`);
      }
    });

    test(`gRPC Series over every range and matcher set (${phase})`, async (t) => {
      let calls = 0;
      for (const ms of MATCHERS) {
        for (const r of RANGES) {
          const what = `${selector(ms)} over ${r.what} [T0 + ${r.min}, T0 + ${r.max}]`;
          const digest = await checkSeries(ms, T0 + r.min, T0 + r.max, what);
          // Every range but the two outside the data selects something with the first matcher set.
          if (ms === MATCHERS[0]) assert.equal(digest.length > 0, !r.what.startsWith('before') && !r.what.startsWith('after'), `${what}: ${digest.length} series`);
          remember(`series ${what}`, digest, phase);
          calls++;
        }
      }
      t.diagnostic(`${calls} Series calls compared`);
    });

    test(`gRPC Series with skip_chunks answers the same series (${phase})`, async () => {
      for (const r of RANGES) {
        const ms = MATCHERS[0]!;
        const answer = await client.series({ min_time: String(T0 + r.min), max_time: String(T0 + r.max), matchers: grpcMatchers(ms), skip_chunks: true });
        assert.equal(answer.code, 0, answer.details);
        const got = seriesOf(answer.frames, { skipChunks: true }).map((s) => show(s.labels));
        const want = expected(ms, T0 + r.min, T0 + r.max).map((w) => answeredLabels(w.labels, { external: EXTERNAL })).sort(compareLabelSets).map(show);
        assert.deepEqual(got, want, `skip_chunks over ${r.what}`);
      }
    });

    test(`gRPC LabelNames and LabelValues over block-only, head-only, mixed and empty ranges (${phase})`, async () => {
      const ranges = [
        ...RANGES,
        { what: 'the first hour (first block only)', min: 0, max: HOUR },
        { what: 'the last two hours (head only)', min: 9 * HOUR, max: 11 * HOUR },
      ];
      const matcherSets: Array<readonly M[]> = [[], [[EQ, '__name__', 'rd_churn']], [[EQ, 'late', 'yes']], [[RE, 'gen', '3|15']], [[EQ, 'region', 'eu-west'], [EQ, 'gen', '11']], [[EQ, 'region', 'us-east'], [EQ, 'gen', '11']]];
      for (const r of ranges) {
        const min = T0 + r.min;
        const max = T0 + r.max;
        for (const ms of matcherSets) {
          const what = `${selector(ms)} over ${r.what}`;
          // External labels are decided against the server's own: a mismatch answers nothing.
          const stored = ms.filter(([, name]) => name !== 'region');
          const externalOk = ms.every(([, name, value]) => name !== 'region' || value === EXTERNAL.region);
          const hits = externalOk ? expected(stored, min, max) : [];
          const names = hits.length === 0 ? [] : utf8Sorted([...hits.flatMap((w) => Object.keys(w.map)), TENANT_LABEL, ...Object.keys(EXTERNAL)]);
          const a = await client.labelNames({ start: String(min), end: String(max), matchers: grpcMatchers(ms) });
          assert.equal(a.code, 0, `LabelNames ${what}: ${a.details}`);
          assert.deepEqual(a.response!.names, names, `LabelNames ${what}`);
          // What the ranges are for: `early` lives only in the first block, `late` only in the head.
          if (ms.length === 0 && r.what.includes('first block only')) assert.ok(names.includes('early') && !names.includes('late'), `${what}: ${names}`);
          if (ms.length === 0 && r.what.includes('head only')) assert.ok(names.includes('late') && !names.includes('early'), `${what}: ${names}`);
          remember(`names ${what}`, a.response!.names, phase);
          for (const name of ['__name__', 'gen', 'zone', 'early', 'late']) {
            const values = utf8Sorted(hits.flatMap((w) => (w.map[name] === undefined ? [] : [w.map[name]!])));
            const v = await client.labelValues({ label: name, start: String(min), end: String(max), matchers: grpcMatchers(ms) });
            assert.equal(v.code, 0, `LabelValues ${name} ${what}: ${v.details}`);
            assert.deepEqual(v.response!.values, values, `LabelValues ${name} ${what}`);
            remember(`values ${name} ${what}`, v.response!.values, phase);
          }
          // The external label's value: with matchers only when some series match them.
          if (ms.length > 0 || hits.length > 0) {
            const v = await client.labelValues({ label: 'region', start: String(min), end: String(max), matchers: grpcMatchers(ms) });
            assert.equal(v.code, 0, v.details);
            assert.deepEqual(v.response!.values, hits.length > 0 ? [EXTERNAL.region] : [], `LabelValues region ${what}`);
          }
        }
      }
    });

    test(`Info min_time and max_time span blocks and head (${phase})`, async () => {
      const last = Math.max(...written.map((w) => w.samples[w.samples.length - 1]!.t));
      const info = await client.info();
      assert.equal(info.code, 0, info.details);
      assert.equal(info.response!.store?.min_time, String(T0), 'Info store.min_time: the oldest sample, in the first block');
      assert.equal(info.response!.store?.max_time, String(last), 'Info store.max_time: the newest sample, in the head');
      const labelSets = info.response!.label_sets.map((s) => show(s.labels));
      assert.deepEqual(labelSets, [show([{ name: 'region', value: 'eu-west' }, { name: TENANT_LABEL, value: 'default-tenant' }])]);
      const old = await client.storeInfo();
      assert.equal(old.code, 0, old.details);
      assert.equal(old.response!.min_time, String(T0), 'Store.Info min_time');
      assert.equal(old.response!.max_time, String(last), 'Store.Info max_time');
    });

    for (const type of [RT.SAMPLES, RT.STREAMED_XOR_CHUNKS]) {
      const typeName = type === RT.SAMPLES ? 'SAMPLES' : 'STREAMED_XOR_CHUNKS';
      test(`HTTP remote read ${typeName}, several queries a request (${phase})`, async () => {
        for (const ms of MATCHERS) {
          const queries: ReadQuery[] = RANGES.map((r) => ({ matchers: ms, start: T0 + r.min, end: T0 + r.max }));
          const a = await postRead(strata.base, queries, { types: [type] });
          assert.equal(a.status, 200, a.body.toString());
          // Per query: series as written (no tenant label, no external labels) with their samples in range.
          const got: Array<Array<{ labels: string; samples: Sample[] }>> = queries.map(() => []);
          if (type === RT.SAMPLES) {
            decodeReadResponse(a.body).forEach((series, q) => {
              for (const s of series) got[q]!.push({ labels: show(s.labels.map(([name, value]) => ({ name, value }))), samples: s.samples });
            });
          } else {
            assert.equal(a.headers.get('content-type'), 'application/x-streamed-protobuf; proto=prometheus.ChunkedReadResponse');
            for (const f of decodeFrames(a.body)) {
              assert.equal(f.seriesInFrame, 1, 'one series a frame');
              const list = got[f.queryIndex]!;
              const labels = show(f.labels.map(([name, value]) => ({ name, value })));
              let entry = list[list.length - 1];
              if (entry === undefined || entry.labels !== labels) list.push((entry = { labels, samples: [] }));
              for (const c of f.chunks) {
                const cs = chunkSamples(c.data);
                assert.deepEqual([c.minT, c.maxT], [cs[0]!.t, cs[cs.length - 1]!.t], `${labels}: chunk times`);
                const q = queries[f.queryIndex]!;
                entry.samples.push(...cs.filter((x) => x.t >= q.start && x.t <= q.end));
              }
            }
          }
          queries.forEach((q, i) => {
            const what = `${typeName} ${selector(ms)} over ${RANGES[i]!.what}`;
            const want = expected(ms, q.start, q.end)
              .map((w) => ({ labels: w.labels.map(([name, value]) => ({ name, value })) as Label[], samples: inRange(w, q.start, q.end) }))
              .sort((x, y) => compareLabelSets(x.labels, y.labels));
            assert.deepEqual(got[i]!.map((s) => s.labels), want.map((w) => show(w.labels)), `${what}: series`);
            got[i]!.forEach((s, k) => assertSamplesEqual(toDecoded(s.samples), toDecoded(want[k]!.samples), `${what}: ${s.labels}`));
            remember(`read ${what}`, got[i]!.map((s) => `${s.labels} ${s.samples.length}`), phase);
          });
        }
      });
    }

    test(`/api/v1/labels, /api/v1/label/<name>/values and /api/v1/series with start and end (${phase})`, async () => {
      const get = async (path: string, params: Record<string, string | string[]>): Promise<unknown> => {
        const q = new URLSearchParams();
        for (const [k, v] of Object.entries(params)) for (const x of [v].flat()) q.append(k, x);
        const a = await call(strata.base, 'GET', `${path}?${q}`);
        assert.equal(a.status, 200, `${path}?${q}: ${a.text}`);
        assert.equal(a.json.status, 'success');
        return a.json.data;
      };
      const secs = (ms: number) => (ms / 1000).toFixed(3);
      const ranges = [...RANGES, { what: 'the first hour (first block only)', min: 0, max: HOUR }, { what: 'the last two hours (head only)', min: 9 * HOUR, max: 11 * HOUR }];
      for (const r of ranges) {
        const min = T0 + r.min;
        const max = T0 + r.max;
        const span = { start: secs(min), end: secs(max) };
        const all = expected([], min, max);
        const what = `over ${r.what}`;
        const names = await get('/api/v1/labels', span);
        assert.deepEqual(names, utf8Sorted(all.flatMap((w) => Object.keys(w.map))), `/api/v1/labels ${what}`);
        remember(`api labels ${what}`, names, phase);
        for (const ms of MATCHERS) {
          const hits = expected(ms, min, max);
          const sel = selector(ms);
          const n = await get('/api/v1/labels', { ...span, 'match[]': sel });
          assert.deepEqual(n, utf8Sorted(hits.flatMap((w) => Object.keys(w.map))), `/api/v1/labels ${sel} ${what}`);
          const series = await get('/api/v1/series', { ...span, 'match[]': sel });
          const want = hits.map((w) => w.labels.map(([name, value]) => ({ name, value })) as Label[]).sort(compareLabelSets).map((ls) => Object.fromEntries(ls.map((l) => [l.name, l.value])));
          assert.deepEqual(series, want, `/api/v1/series ${sel} ${what}`);
          remember(`api series ${sel} ${what}`, series, phase);
          for (const name of ['gen']) {
            const values = await get(`/api/v1/label/${name}/values`, { ...span, 'match[]': sel });
            assert.deepEqual(values, utf8Sorted(hits.flatMap((w) => (w.map[name] === undefined ? [] : [w.map[name]!]))), `/api/v1/label/${name}/values ${sel} ${what}`);
          }
        }
        for (const name of ['__name__', 'gen', 'early', 'late', 'zone']) {
          const values = await get(`/api/v1/label/${name}/values`, span);
          assert.deepEqual(values, utf8Sorted(all.flatMap((w) => (w.map[name] === undefined ? [] : [w.map[name]!]))), `/api/v1/label/${name}/values ${what}`);
          remember(`api values ${name} ${what}`, values, phase);
        }
      }
    });
  }

  describe('series whose only sample was refused as too old are not answered', () => {
    // A series new to the store, and one whose data is all in the first block
    // (so the head no longer holds it): each gets one sample just before the
    // head's floor, refused. Neither may show up in any answer, nor the
    // block-only series in an answer over the head's time alone: in
    // Prometheus (and Thanos Receive) a sample before the head's min valid
    // time is refused before its series is created, and series without
    // data in the range are not answered.
    const fresh = sortedLabels({ __name__: 'rd_refused', i: 'x' });
    const gone = written.find((w) => w.map.gen === '0')!;
    const all = { min: T0 - HOUR, max: T0 + 12 * HOUR };
    const head = { min: BLOCKS_END, max: T0 + 12 * HOUR };
    const BUG = `a write whose every sample is refused as too old leaves its series in the head without data (until the next minute's maintenance pass, head truncation or restart), and reads over the whole head's time answer it`;
    before(async () => {
      for (const labels of [fresh, gone.labels]) {
        const a = await postWrite(strata.base, [{ labels, samples: [{ t: BLOCKS_END - 1, bits: bitsOf(1) }] }]);
        assert.equal(a.status, 409, a.text);
      }
    });
    const refusedOnly: Matcher[] = [{ type: EQ, name: '__name__', value: 'rd_refused' }];
    const early: Matcher[] = [{ type: EQ, name: 'early', value: 'yes' }];
    const series = async (matchers: Matcher[], r: { min: number; max: number }, skip: boolean): Promise<string[]> => {
      const a = await client.series({ min_time: String(r.min), max_time: String(r.max), matchers, skip_chunks: skip });
      assert.equal(a.code, 0, a.details);
      return seriesOf(a.frames, { skipChunks: skip }).map((x) => show(x.labels));
    };
    const api = async (path: string, r: { min: number; max: number }): Promise<unknown> => {
      const a = await call(strata.base, 'GET', `${path}${path.includes('?') ? '&' : '?'}start=${r.min / 1000}&end=${r.max / 1000}`);
      assert.equal(a.status, 200, a.text);
      return a.json.data;
    };

    test('gRPC Series with chunks', async () => {
      assert.deepEqual(await series(refusedOnly, all, false), []);
      assert.deepEqual(await series(early, head, false), []);
    });

    test('gRPC Series with skip_chunks', async () => {
      assert.deepEqual(await series(refusedOnly, all, true), [], `skip_chunks {__name__="rd_refused"}: ${BUG}`);
      assert.deepEqual(await series(early, head, true), [], `skip_chunks {early="yes"} over the head's time: ${BUG}`);
    });

    test('gRPC LabelNames and LabelValues', async () => {
      const names = await client.labelNames({ start: String(all.min), end: String(all.max), matchers: refusedOnly });
      assert.deepEqual(names.response?.names, [], `LabelNames {__name__="rd_refused"}: ${BUG}`);
      const values = await client.labelValues({ label: '__name__', start: String(all.min), end: String(all.max) });
      assert.deepEqual(values.response?.values, ['rd_churn', 'rd_steady'], `LabelValues __name__: ${BUG}`);
      const headNames = await client.labelNames({ start: String(head.min), end: String(head.max) });
      assert.ok(!headNames.response?.names.includes('early'), `LabelNames over the head's time names early: ${BUG}`);
    });

    test('HTTP remote read', async () => {
      const a = await postRead(strata.base, [
        { matchers: [[EQ, '__name__', 'rd_refused']], start: all.min, end: all.max },
        { matchers: [[EQ, 'early', 'yes']], start: head.min, end: head.max },
      ], { types: [RT.SAMPLES] });
      assert.deepEqual(decodeReadResponse(a.body), [[], []]);
    });

    test('/api/v1/series, /api/v1/labels, /api/v1/label/__name__/values', async () => {
      assert.deepEqual(await api('/api/v1/series?match[]=rd_refused', all), [], `/api/v1/series?match[]=rd_refused: ${BUG}`);
      assert.deepEqual(await api('/api/v1/labels?match[]=rd_refused', all), [], `/api/v1/labels?match[]=rd_refused: ${BUG}`);
      assert.deepEqual(await api('/api/v1/label/__name__/values', all), ['rd_churn', 'rd_steady'], `/api/v1/label/__name__/values: ${BUG}`);
      assert.ok(!((await api('/api/v1/labels', head)) as string[]).includes('early'), `/api/v1/labels over the head's time names early: ${BUG}`);
    });
  });

  test('no background storage job failed', () => {
    assert.deepEqual(logLines(strata.proc, 'background storage job failed'), []);
    assert.deepEqual(logLines(strata.proc, 'block compaction failed; these blocks are left as they are until restart'), []);
  });
});
