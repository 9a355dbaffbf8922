/**
 * `strata sidecar` beside a real Prometheus 2.42 (Debian's binary on PATH),
 * judged against Prometheus itself.
 *
 * Prometheus A has external labels {cluster="eu1", replica="a"}, takes
 * remote writes, and cuts 2 h blocks (min = max block duration). It does
 * not scrape itself: Prometheus refuses every sample older than its head's
 * newest - 1 h (out of bounds), so once a scrape has put a sample of today
 * in its head, none of the old data this test writes (oldest first, to get
 * blocks cut within moments) would be taken. Live data with current
 * timestamps is served by Prometheus C instead (the refusals, at the end),
 * which scrapes itself every second.
 *
 * A gets 5 h of 36 series (unicode label values, stale markers on and
 * next to the block boundaries, NaNs with payloads, ±Inf, -0, churned
 * series ending in a stale marker). Its own head compaction writes
 * [T0, T0 + 2 h) as a block; the rest stays in its head. Then the sidecar
 * runs against it, with a FILESYSTEM bucket and a 1 s heartbeat:
 * - Series, for matchers =, !=, =~, !~ and = on an external label, over
 *   ranges in the block, in the head, across the boundary, around it,
 *   ending and starting mid-chunk, and everything: every series with a
 *   sample in the range, and every sample (raw bits), as Prometheus' own
 *   remote read (SAMPLES, decoded by hand) answers, external labels
 *   included, no series or sample twice, and exactly what was written
 *   (the sign of a zero too, which SAMPLES loses: see foldNegativeZero);
 *   skip_chunks answers the same label sets; without_replica_labels
 *   removes replica; matchers on external labels other than `=` (which
 *   Prometheus' remote read applies to the stored labels) against what
 *   was written;
 * - LabelNames and LabelValues as Prometheus' label API plus the external
 *   labels; Info and Store/Info as Thanos' sidecar answers them;
 * - the block in the bucket in Thanos' layout, files byte-identical,
 *   meta.json the local one plus the thanos section, thanos.shipper.json
 *   in Prometheus' data directory, promtool dumping the same samples;
 * - 2 h more written: Prometheus cuts [T0 + 2 h, T0 + 4 h), which the
 *   sidecar opens and ships without a restart;
 * - Prometheus stopped: not ready, prometheus_up 0, the blocks still
 *   answered, the head's range with a warning naming Prometheus; started
 *   again on the same data and port: ready, the head answered again.
 * Then refusals: no external labels (exit 1); min != max block duration
 * with a bucket (exit 1), and without a bucket it starts and serves C's
 * scraped head as C's remote read does.
 *
 * Series are compared when they have a sample in the range: both sides may
 * name a series whose whole chunks overlap the range without a sample in it.
 * Compared with Prometheus, matchers on external labels are only `=` (the
 * external value or another): Prometheus' remote read drops exactly those
 * and applies any other matcher on an external label to the stored labels
 * (where it matches nothing), while the Store API decides it against the
 * external labels, as Thanos does.
 *
 * Bounded (about 15 s on 2 idle cores, 25 s on 2 busy ones), loopback only, temporary directories,
 * every process stopped in `after`. Skips (with a reason) only when
 * `prometheus` is not on PATH; the promtool check skips without promtool.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bitsOf, chunkSamples, decodeReadResponse, postRead, postWrite, ReadRequest_ResponseType, STALE, type Sample, type Series } from '../http/prometheus/support/prom-wire.js';
import { eq, MatcherType, neq, nre, re, StoreType, XOR, type Label, type Matcher, type SeriesRequest } from '../store/support/client.js';
import { compareLabelSets, compareStrings, show } from '../store/support/series-check.js';
import { onPath, parseDump, runPromtool } from '../support/promtool-dump.js';
import { rng } from '../support/series.js';
import type { ExitStatus } from '../support/serve-process.js';
import { metricValue } from './support/prometheus.js';
import {
  errorLines, exitWithin, httpStatus, newPrometheus, runPrometheus, sidecarMetrics, spawnSidecar, startSidecar, stopAll, stopChild, type Prom, type Sidecar,
} from './support/sidecar-process.js';
import { diskBlocks, sortedLabels, waitFor, type DiskMeta } from './support/strata-blocks.js';

const HAS_PROMETHEUS = onPath('prometheus');
const HAS_PROMTOOL = onPath('promtool');
const SKIP = HAS_PROMETHEUS ? false : 'prometheus not on PATH';

const MIN = 60_000;
const HOUR = 60 * MIN;
const RANGE = 2 * HOUR;
const STEP = 15_000;
/** 2023-11-15T10:00:00Z, on the 2 h grid. */
const T0 = 236_117 * RANGE;
/** Written before the sidecar starts: [T0, T0 + 2 h) is cut, the rest stays in the head. */
const FIRST_END = T0 + 5 * HOUR;
/** Written while it runs: [T0 + 2 h, T0 + 4 h) is cut. */
const END = T0 + 7 * HOUR;
const EXTERNAL: Label[] = [{ name: 'cluster', value: 'eu1' }, { name: 'replica', value: 'a' }];
const MAX_INT64 = String(2n ** 63n - 1n);
const JOBS = ['api', '中文', '😀', 'Zürich', 'quote"back\\slash', 'ß'];
/** The longest wait for a refused start to end. */
const EXIT_MS = 30_000;

// ------------------------------------------------------------------ data

function makeSeries(): Series[] {
  const next = rng(9090);
  const out: Series[] = [];
  for (let k = 0; k < 36; k++) {
    const churn = k >= 24;
    const map: Record<string, string> = { __name__: churn ? 'sc_churn' : k % 2 === 0 ? 'sc_gauge' : 'sc_float', i: String(k), job: JOBS[k % JOBS.length]! };
    if (k % 5 === 0) map.zone = ['東京', 'eu-1'][k % 2]!;
    // Churned series live 1 h somewhere in the first 6 h and end with a stale marker.
    const from = churn ? T0 + (k - 24) * 25 * MIN : T0;
    const to = churn ? from + HOUR : END;
    const samples: Sample[] = [];
    let v = 0;
    for (let t = from; t < to; t += STEP) {
      const r = next();
      if (map.__name__ === 'sc_float') {
        samples.push({ t, bits: r < 0.01 ? 0x7ff8000000000001n : r < 0.015 ? bitsOf(Infinity) : r < 0.02 ? bitsOf(-Infinity) : r < 0.025 ? bitsOf(-0) : bitsOf((next() - 0.5) * 1e9) });
      } else {
        v += Math.floor(r * 10);
        samples.push({ t, bits: bitsOf(v) });
      }
    }
    if (churn) samples[samples.length - 1]!.bits = STALE;
    // Stale markers on and next to the block boundaries, then the series goes on.
    for (const b of [T0 + RANGE, T0 + 2 * RANGE]) {
      if (!churn && k % 8 === 3) samples.find((x) => x.t === b)!.bits = STALE;
      if (!churn && k % 8 === 4) samples.find((x) => x.t === b - STEP)!.bits = STALE;
    }
    out.push({ labels: sortedLabels(map), samples });
  }
  return out;
}

const SENT = makeSeries();
/** SENT is written in [T0, writtenUntil). */
let writtenUntil = T0;

/** Remote-writes the samples of `sent` in [from, to), oldest first, 10 minutes a request. */
async function writeRange(base: string, sent: readonly Series[], from: number, to: number): Promise<void> {
  for (let t = from; t < to; t += 10 * MIN) {
    const batch = sent.map((s) => ({ labels: s.labels, samples: s.samples.filter((x) => x.t >= t && x.t < Math.min(t + 10 * MIN, to)) })).filter((s) => s.samples.length > 0);
    const a = await postWrite(base, batch);
    assert.equal(a.status, 204, `remote write of [T0 + ${(t - T0) / MIN} min): ${a.status} ${a.text}`);
  }
  writtenUntil = Math.max(writtenUntil, to);
}

// ------------------------------------------------------------ answers

/** Series by `{name="value", ...}` (labels sorted), each its samples as `t:bits` in the range. */
type Answer = Map<string, string[]>;

const sampleText = (s: Sample): string => `${s.t}:${s.bits.toString(16)}`;
const toMatchers = (ms: readonly Matcher[]): Array<[number, string, string]> => ms.map((m) => [m.type, m.name, m.value]);

/** Prometheus' own remote read (SAMPLES): series with a sample in [minT, maxT]. */
async function prometheusRead(prom: Prom, matchers: readonly Matcher[], minT: number, maxT: number): Promise<Answer> {
  const a = await postRead(prom.base, [{ matchers: toMatchers(matchers), start: minT, end: maxT }], { types: [ReadRequest_ResponseType.SAMPLES] });
  assert.equal(a.status, 200, `Prometheus' remote read: ${a.status} ${a.body.toString().slice(0, 300)}`);
  const out: Answer = new Map();
  for (const s of decodeReadResponse(a.body)[0] ?? []) {
    const samples = s.samples.filter((x) => x.t >= minT && x.t <= maxT).map(sampleText);
    if (samples.length > 0) out.set(show([...s.labels].sort(([x], [y]) => compareStrings(x, y))), samples);
  }
  return out;
}

interface SidecarAnswer {
  /** Series with a sample in the range. */
  series: Answer;
  /** Every label set answered, in order. */
  labelSets: Label[][];
  warnings: string[];
}

/** The sidecar's Series answer decoded: chunks to samples in the range; no series twice, series in label order, samples in time order. */
async function sidecarRead(s: Sidecar, request: SeriesRequest): Promise<SidecarAnswer> {
  const minT = Number(request.min_time);
  const maxT = Number(request.max_time);
  const a = await s.client.series(request);
  const what = `Series ${JSON.stringify(request)}`;
  assert.equal(a.code, 0, `${what}: ${a.code} ${a.details}`);
  const out: SidecarAnswer = { series: new Map(), labelSets: [], warnings: [] };
  for (const f of a.frames) {
    if (f.warning !== undefined) out.warnings.push(f.warning);
    if (f.series === undefined) continue;
    const labels = f.series.labels;
    const key = show(labels);
    const previous = out.labelSets[out.labelSets.length - 1];
    if (previous !== undefined) assert.ok(compareLabelSets(previous, labels) < 0, `${what}: ${show(previous)} then ${key} (out of order, or twice)`);
    out.labelSets.push(labels);
    for (let i = 1; i < labels.length; i++) assert.ok(compareStrings(labels[i - 1]!.name, labels[i]!.name) < 0, `${what}: labels of ${key} not sorted`);
    const samples: Sample[] = [];
    for (const c of f.series.chunks) {
      assert.ok(c.raw !== null && c.raw.type === XOR, `${what}: ${key}: a raw XOR chunk`);
      for (const x of chunkSamples(c.raw.data)) if (x.t >= minT && x.t <= maxT) samples.push(x);
    }
    for (let i = 1; i < samples.length; i++) assert.ok(samples[i - 1]!.t < samples[i]!.t, `${what}: ${key}: sample at ${samples[i]!.t} after ${samples[i - 1]!.t} (answered twice?)`);
    if (samples.length > 0) out.series.set(key, samples.map(sampleText));
  }
  return out;
}

/** `got` equals `want`: the same series, the same samples. */
function assertSameAnswer(got: Answer, want: Answer, what: string): void {
  assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), `${what}: series`);
  for (const [key, samples] of want) {
    const mine = got.get(key)!;
    if (mine.length === samples.length && mine.every((x, i) => x === samples[i])) continue;
    const at = samples.findIndex((x, i) => mine[i] !== x);
    assert.fail(`${what}: ${key}: ${mine.length} samples, expected ${samples.length}; first difference at ${at}: ${mine[at]} vs ${samples[at]}`);
  }
}

/**
 * -0 as +0. Prometheus' SAMPLES answer loses the sign of a zero: its
 * gogo-protobuf Sample.MarshalToSizedBuffer writes the value only
 * `if m.Value != 0`, and -0 == 0, so a -0 arrives as an absent field (+0).
 * Its blocks and chunks keep -0; what was written is the exact oracle.
 */
function foldNegativeZero(a: Answer): Answer {
  return new Map([...a].map(([k, v]) => [k, v.map((x) => x.replace(/:8000000000000000$/, ':0'))]));
}

function matches(m: Matcher, labels: ReadonlyMap<string, string>): boolean {
  const v = labels.get(m.name) ?? '';
  if (m.type === MatcherType.EQ) return v === m.value;
  if (m.type === MatcherType.NEQ) return v !== m.value;
  const full = new RegExp(`^(?:${m.value})$`, 'su').test(v);
  return m.type === MatcherType.RE ? full : !full;
}

/** What was written that `matchers` select in [minT, maxT], labelled as the Store API answers it: external labels in, `drop` out. */
function sentAnswer(matchers: readonly Matcher[], minT: number, maxT: number, drop: readonly string[] = []): Answer {
  const out: Answer = new Map();
  for (const s of SENT) {
    const labels = new Map([...s.labels, ...EXTERNAL.map((l) => [l.name, l.value] as const)]);
    if (!matchers.every((m) => matches(m, labels))) continue;
    const samples = s.samples.filter((x) => x.t >= minT && x.t <= maxT && x.t < writtenUntil).map(sampleText);
    for (const d of drop) labels.delete(d);
    if (samples.length > 0) out.set(show([...labels].sort(([a], [b]) => compareStrings(a, b))), samples);
  }
  return out;
}

/** The request for `matchers` over [minT, maxT]. */
const seriesRequest = (matchers: readonly Matcher[], minT: number, maxT: number, extra: Partial<SeriesRequest> = {}): SeriesRequest =>
  ({ min_time: String(minT), max_time: String(maxT), matchers: [...matchers], ...extra });

const MATCHERS: Array<[string, Matcher[]]> = [
  ['=', [eq('job', '中文')]],
  ['!=', [neq('__name__', 'sc_float')]],
  ['=~ and !~', [re('__name__', 'sc_(gauge|churn)'), nre('i', '1.*')]],
  ['= and !~', [eq('__name__', 'sc_float'), nre('job', 'api|ß')]],
  ['= on an external label', [eq('cluster', 'eu1'), re('zone', '.+')]],
  ['= on an external label, another value', [eq('cluster', 'us1'), re('__name__', '.+')]],
];

const t0 = (ms: number): string => `T0 + ${ms / MIN} min`;
const showMatchers = (ms: readonly Matcher[]): string => `{${ms.map((m) => `${m.name}${['=', '!=', '=~', '!~'][m.type]}${JSON.stringify(m.value)}`).join(', ')}}`;

/**
 * The sidecar's Series for `matchers` over [minT, maxT] (with `extra`):
 * what was written, every sample's bits, and what Prometheus' own remote
 * read answers (-0 folded, see foldNegativeZero). Returns the answer.
 */
async function checkSeries(s: Sidecar, prom: Prom, matchers: readonly Matcher[], minT: number, maxT: number, extra: Partial<SeriesRequest> = {}): Promise<SidecarAnswer> {
  const what = `${showMatchers(matchers)}${extra.without_replica_labels === undefined ? '' : ' without replica'} over [${t0(minT - T0)}, ${t0(maxT - T0)}]`;
  const drop = extra.without_replica_labels ?? [];
  const got = await sidecarRead(s, seriesRequest(matchers, minT, maxT, extra));
  assert.deepEqual(got.warnings, [], `${what}: warnings`);
  assertSameAnswer(got.series, sentAnswer(matchers, minT, maxT, drop), `${what}, against what was written`);
  const prometheus = await prometheusRead(prom, matchers, minT, maxT);
  const relabelled: Answer = new Map([...prometheus].map(([k, v]) => [drop.includes('replica') ? k.replace(', replica="a"', '') : k, v]));
  assertSameAnswer(foldNegativeZero(got.series), foldNegativeZero(relabelled), `${what}, against Prometheus' remote read`);
  return got;
}

/** Every matcher over every range. Returns [series, samples] compared. */
async function compareAll(s: Sidecar, prom: Prom, ranges: ReadonlyArray<readonly [string, number, number]>): Promise<[number, number]> {
  let series = 0;
  let samples = 0;
  for (const [name, minT, maxT] of ranges) {
    for (const [op, matchers] of MATCHERS) {
      const got = await checkSeries(s, prom, matchers, minT, maxT).catch((err: Error) => {
        err.message = `${op} over ${name}: ${err.message}`;
        throw err;
      });
      series += got.series.size;
      for (const v of got.series.values()) samples += v.length;
    }
  }
  return [series, samples];
}

const ulids = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).filter((n) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(n)).sort() : []);

// ------------------------------------------------------------ the suite

describe('strata sidecar beside a real Prometheus 2.42', { skip: SKIP, timeout: 180_000 }, () => {
  let root = '';
  let prom: Prom | undefined;
  let side: Sidecar | undefined;
  let bucket = '';
  /** The first block [T0, T0 + 2 h). */
  let first: DiskMeta | undefined;
  /** For the refusals: B has no external labels; C scrapes itself, min block duration 2 h, max 6 h. */
  let promB: Prom | undefined;
  let promC: Prom | undefined;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'strata-sidecar-e2e-'));
    bucket = join(root, 'bucket');
    mkdirSync(bucket);
    // B and C start beside A (C has scraped for a while by the time it is used).
    const selfScrape = (port: number): string => `global:\n  scrape_interval: 1s\n  external_labels:\n    cluster: eu2\nscrape_configs:\n  - job_name: self\n    static_configs:\n      - targets: ['127.0.0.1:${port}']\n`;
    const others = Promise.all([
      newPrometheus(root, 'b', () => 'global:\n  scrape_interval: 1h\nscrape_configs: []\n', []),
      newPrometheus(root, 'c', selfScrape, ['--storage.tsdb.min-block-duration=2h', '--storage.tsdb.max-block-duration=6h']),
    ]);
    // Not left unhandled while A starts; awaited below.
    others.catch(() => undefined);
    prom = await newPrometheus(root, 'a', () => 'global:\n  scrape_interval: 1h\n  external_labels:\n    cluster: eu1\n    replica: a\nscrape_configs: []\n', [
      '--web.enable-remote-write-receiver',
      '--storage.tsdb.min-block-duration=2h',
      '--storage.tsdb.max-block-duration=2h',
    ]);
    await writeRange(prom.base, SENT, T0, FIRST_END);
    // Its own head compaction writes [T0, T0 + 2 h) once the head spans more than 3 h.
    first = await waitFor(30_000, () => diskBlocks(prom!.data)[0], () => `Prometheus wrote no block:\n${prom!.output()}`, 100);
    assert.deepEqual([first.minTime, first.maxTime], [T0, T0 + RANGE], 'the block Prometheus cut');
    side = await startSidecar(prom, [
      '--objstore.config', `type: FILESYSTEM\nconfig:\n  directory: ${bucket}\n`,
      '--prometheus.get_config_interval', '1s',
      '--prometheus.get_config_timeout', '2s',
    ]);
    [promB, promC] = await others;
  });

  after(async () => {
    side?.client.close();
    await stopAll();
    if (root !== '') rmSync(root, { recursive: true, force: true });
  });

  test('Series equals Prometheus\' remote read: block, head, across and around the boundary, mid-chunk', async (t) => {
    const [series, samples] = await compareAll(side!, prom!, [
      ['the block only', T0 + 20 * MIN, T0 + 90 * MIN],
      ['the head only', T0 + 150 * MIN, T0 + 4 * HOUR],
      ['across the block boundary', T0 + 90 * MIN, T0 + 150 * MIN],
      ['the last sample of the block and the first of the head', T0 + RANGE - STEP, T0 + RANGE],
      ['the block\'s last millisecond and the head\'s first', T0 + RANGE - 1, T0 + RANGE],
      ['a range ending mid-chunk', T0 + 40 * MIN, T0 + 197 * MIN + 7500],
      ['a range starting mid-chunk in the head', T0 + 157 * MIN + 7500, T0 + 290 * MIN],
      ['everything', T0 - HOUR, END + HOUR],
    ]);
    assert.ok(series > 300 && samples > 100_000, `${series} series, ${samples} samples compared`);
    t.diagnostic(`${series} series, ${samples} samples compared`);
  });

  test('skip_chunks answers the same label sets; without_replica_labels removes replica', async () => {
    for (const [minT, maxT] of [[T0 + 90 * MIN, T0 + 150 * MIN], [T0 - HOUR, END + HOUR], [T0 + 150 * MIN, T0 + 4 * HOUR]] as const) {
      for (const [op, matchers] of MATCHERS) {
        const what = `${op} over [${t0(minT - T0)}, ${t0(maxT - T0)}]`;
        const want = [...(await prometheusRead(prom!, matchers, minT, maxT)).keys()].sort();
        const skipped = await side!.client.series(seriesRequest(matchers, minT, maxT, { skip_chunks: true }));
        assert.equal(skipped.code, 0, `${what}: ${skipped.details}`);
        const sets = skipped.frames.filter((f) => f.series !== undefined).map((f) => f.series!);
        assert.ok(sets.every((x) => x.chunks.length === 0), `${what}: chunks with skip_chunks`);
        assert.deepEqual(sets.map((x) => show(x.labels)).sort(), want, `${what}: skip_chunks label sets`);
      }
    }
    const matchers = [re('__name__', 'sc_.*')];
    for (const [minT, maxT] of [[T0 + 90 * MIN, T0 + 150 * MIN], [T0 - HOUR, END + HOUR]] as const) {
      const got = await checkSeries(side!, prom!, matchers, minT, maxT, { without_replica_labels: ['replica'] });
      assert.ok(got.series.size > 20 && [...got.series.keys()].every((k) => !k.includes('replica=') && k.includes('cluster="eu1"')), 'replica removed, cluster kept');
    }
  });

  test('LabelNames and LabelValues: Prometheus\' label API plus the external labels', async () => {
    const api = async (path: string, params: Record<string, string> = {}): Promise<string[]> => {
      const res = await fetch(`${prom!.base}${path}?${new URLSearchParams(params)}`, { signal: AbortSignal.timeout(10_000) });
      const body = (await res.json()) as { status: string; data: string[] };
      assert.equal(body.status, 'success', `${path}: ${JSON.stringify(body)}`);
      return body.data;
    };
    const all = { start: String(T0 - HOUR), end: String(END + HOUR) };
    const withExternal = (names: string[]): string[] => [...new Set([...names, 'cluster', 'replica'])].sort(compareStrings);
    const names = await side!.client.labelNames(all);
    assert.equal(names.code, 0, names.details);
    assert.deepEqual(names.response!.names, withExternal(await api('/api/v1/labels')), 'all label names');
    assert.deepEqual(names.response!.warnings, []);
    for (const [name, value] of [['sc_float', ['__name__', 'cluster', 'i', 'job', 'replica']], ['sc_gauge', []]] as const) {
      const some = await side!.client.labelNames({ ...all, matchers: [eq('job', '中文'), eq('__name__', name)] });
      const theirs = await api('/api/v1/labels', { 'match[]': `{job="中文",__name__="${name}"}` });
      assert.deepEqual(some.response!.names, theirs.length === 0 ? [] : withExternal(theirs), `label names of {job="中文", __name__="${name}"}`);
      assert.deepEqual(some.response!.names, value, `label names of {job="中文", __name__="${name}"}: as written`);
    }
    for (const name of ['__name__', 'job', 'zone', 'i']) {
      const values = await side!.client.labelValues({ ...all, label: name });
      assert.equal(values.code, 0, values.details);
      const want = (await api(`/api/v1/label/${name}/values`)).sort(compareStrings);
      assert.ok(want.length > 1, `${name}: values`);
      assert.deepEqual(values.response!.values, want, `values of ${name}`);
    }
    // Values over the block's range and the head's, of series that churned.
    for (const [minT, maxT] of [[T0, T0 + RANGE - 1], [T0 + RANGE, FIRST_END]] as const) {
      const values = await side!.client.labelValues({ start: String(minT), end: String(maxT), label: 'i', matchers: [eq('__name__', 'sc_churn')] });
      const want = (await api('/api/v1/label/i/values', { start: String(minT / 1000), end: String(maxT / 1000), 'match[]': '{__name__="sc_churn"}' })).sort(compareStrings);
      assert.deepEqual(values.response!.values, want, `values of i of sc_churn over [${t0(minT - T0)}, ${t0(maxT - T0)}]`);
    }
    for (const { name, value } of EXTERNAL) {
      const values = await side!.client.labelValues({ ...all, label: name });
      assert.deepEqual(values.response!.values, [value], `values of the external label ${name}`);
    }
    // Matchers that all match the empty string: Prometheus' label API refuses
    // them, so the sidecar asks its remote read; judged by what was written.
    const noZone = await side!.client.labelValues({ ...all, label: 'job', matchers: [nre('zone', '.+'), neq('__name__', 'sc_churn')] });
    assert.equal(noZone.code, 0, noZone.details);
    const want = [...new Set(SENT.filter((x) => !x.labels.some(([n]) => n === 'zone') && x.labels[0]![1] !== 'sc_churn').map((x) => x.labels.find(([n]) => n === 'job')![1]))].sort(compareStrings);
    assert.deepEqual(noZone.response!.values, want, 'values of job of {zone!~".+", __name__!="sc_churn"}');
  });

  test('matchers Prometheus\' remote read takes otherwise: the Store API decides external labels itself', async () => {
    const [minT, maxT] = [T0 - HOUR, END + HOUR];
    for (const matchers of [[re('cluster', 'eu.*'), eq('job', 'ß')], [neq('replica', 'b'), eq('i', '7')], [nre('cluster', 'eu1'), re('__name__', '.+')]]) {
      const got = await sidecarRead(side!, seriesRequest(matchers, minT, maxT));
      assertSameAnswer(got.series, sentAnswer(matchers, minT, maxT), `${showMatchers(matchers)}, against what was written`);
    }
    const onlyExternal = await side!.client.series(seriesRequest([eq('cluster', 'eu1')], minT, maxT));
    assert.equal(onlyExternal.code, 3, `matchers on external labels only: InvalidArgument (${onlyExternal.details})`);
  });

  test('Info: the external labels, from Prometheus\' oldest sample to MaxInt64, a sidecar', async () => {
    const info = await side!.client.info();
    assert.equal(info.code, 0, info.details);
    assert.equal(info.response!.ComponentType, 'sidecar');
    assert.deepEqual(info.response!.label_sets, [{ labels: EXTERNAL }]);
    assert.equal(info.response!.store?.min_time, String(T0));
    assert.equal(info.response!.store?.max_time, MAX_INT64);
    const store = await side!.client.storeInfo();
    assert.equal(store.code, 0, store.details);
    assert.equal(store.response!.storeType, StoreType.SIDECAR);
    assert.deepEqual(store.response!.label_sets, [{ labels: EXTERNAL }]);
    assert.equal(store.response!.min_time, String(T0));
    assert.equal(store.response!.max_time, MAX_INT64);
  });

  /** Checks block `meta` of Prometheus' data directory in the bucket, as Thanos' sidecar uploads it. */
  function checkShipped(meta: DiskMeta): void {
    const u = meta.ulid;
    const local = join(prom!.data, u);
    for (const f of ['chunks/000001', 'index']) {
      assert.ok(readFileSync(join(bucket, u, f)).equals(readFileSync(join(local, f))), `${u}/${f} as Prometheus wrote it`);
    }
    const inBucket = readdirSync(join(bucket, u), { recursive: true }).map(String).filter((p) => !statSync(join(bucket, u, p)).isDirectory()).sort();
    assert.deepEqual(inBucket, ['chunks/000001', 'index', 'meta.json'], `${u}: files in the bucket`);
    const shipped = JSON.parse(readFileSync(join(bucket, u, 'meta.json'), 'utf8')) as Record<string, unknown> & { thanos: Record<string, unknown> };
    const mine = JSON.parse(readFileSync(join(local, 'meta.json'), 'utf8')) as Record<string, unknown>;
    const { thanos, ...rest } = shipped;
    assert.deepEqual(rest, mine, `${u}/meta.json: Prometheus' fields as they are`);
    assert.deepEqual(thanos.labels, { cluster: 'eu1', replica: 'a' });
    assert.equal(thanos.source, 'sidecar');
    assert.deepEqual(thanos.downsample, { resolution: 0 });
    assert.deepEqual(thanos.segment_files, ['000001']);
    assert.deepEqual(thanos.files, [
      { rel_path: 'chunks/000001', size_bytes: statSync(join(local, 'chunks', '000001')).size },
      { rel_path: 'index', size_bytes: statSync(join(local, 'index')).size },
      { rel_path: 'meta.json' },
    ]);
  }

  /** Waits until the bucket holds `n` blocks with their meta.json. */
  const shippedBlocks = (n: number): Promise<string[]> => waitFor(20_000, () => {
    const done = ulids(bucket).filter((u) => existsSync(join(bucket, u, 'meta.json')));
    return done.length >= n ? done : undefined;
  }, () => `${n} block(s) not shipped; bucket: ${ulids(bucket).join(', ')}:\n${side!.stderr().slice(-3000)}`, 100);

  test('the block is shipped in Thanos\' layout; thanos.shipper.json records it', async () => {
    assert.deepEqual(await shippedBlocks(1), [first!.ulid]);
    checkShipped(first!);
    const record = await waitFor(5000, () => {
      const path = join(prom!.data, 'thanos.shipper.json');
      return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) as { version: number; uploaded: string[] } : undefined;
    }, () => 'no thanos.shipper.json in Prometheus\' data directory');
    assert.deepEqual(record, { version: 1, uploaded: [first!.ulid] });
  });

  test('promtool dumps the shipped block as the local one', { skip: HAS_PROMTOOL ? false : 'promtool not on PATH' }, () => {
    const dump = (from: string): string => {
      const d = mkdtempSync(join(root, 'dump-'));
      cpSync(join(from, first!.ulid), join(d, first!.ulid), { recursive: true });
      mkdirSync(join(d, 'wal'));
      return runPromtool(['tsdb', 'dump', d]);
    };
    const shipped = dump(bucket);
    assert.equal(parseDump(shipped).size, first!.stats.numSeries, 'series in the dump');
    assert.equal(shipped, dump(prom!.data), 'promtool dumps the shipped block as the local one');
  });

  test('a block cut while the sidecar runs is opened and shipped without a restart', async () => {
    await writeRange(prom!.base, SENT, FIRST_END, END);
    const second = await waitFor(30_000, () => diskBlocks(prom!.data)[1], () => `Prometheus cut no second block:\n${prom!.output()}`, 100);
    assert.deepEqual([second.minTime, second.maxTime], [T0 + RANGE, T0 + 2 * RANGE], 'the second block');
    const text = await waitFor(20_000, async () => {
      const m = await sidecarMetrics(side!);
      return metricValue(m, 'strata_sidecar_prometheus_blocks_loaded') === 2 && metricValue(m, 'thanos_shipper_uploads_total') === 2 ? m : undefined;
    }, () => `the sidecar did not open and ship the second block:\n${side!.stderr().slice(-3000)}`, 100);
    assert.equal(metricValue(text, 'thanos_sidecar_prometheus_up'), 1);
    assert.deepEqual(await shippedBlocks(2), [first!.ulid, second.ulid].sort());
    checkShipped(second);
    // The record is written once the pass's uploads are done (after the upload counter moves, as Thanos' shipper).
    const uploaded = await waitFor(10_000, () => {
      const record = JSON.parse(readFileSync(join(prom!.data, 'thanos.shipper.json'), 'utf8')) as { uploaded: string[] };
      return record.uploaded.length >= 2 ? [...record.uploaded].sort() : undefined;
    }, () => 'thanos.shipper.json does not record the second block', 100);
    assert.deepEqual(uploaded, [first!.ulid, second.ulid].sort());
    await compareAll(side!, prom!, [
      ['the new block', T0 + 2 * HOUR, T0 + 4 * HOUR - 1],
      ['across both boundaries', T0 + 110 * MIN, T0 + 250 * MIN],
      ['around the new boundary', T0 + 2 * RANGE - STEP, T0 + 2 * RANGE],
      ['the head only', T0 + 4 * HOUR, END],
      ['everything', T0 - HOUR, END + HOUR],
    ]);
  });

  test('Prometheus down: not ready, the blocks answered, the head missing with a warning; back: ready, the head answered', async () => {
    const matchers = [re('__name__', 'sc_.*')];
    const blocksRange = [T0 - HOUR, T0 + 2 * RANGE - 1] as const;
    const allRange = [T0 - HOUR, END + HOUR] as const;
    const blocksBefore = await checkSeries(side!, prom!, matchers, ...blocksRange);
    const allBefore = await checkSeries(side!, prom!, matchers, ...allRange);
    await prom!.stop();
    // Within a few heartbeats (1 s each, a refused connection fails at once).
    await waitFor(10_000, async () => ((await httpStatus(`${side!.base}/-/ready`)) === 503 ? true : undefined), () => `still ready:\n${side!.stderr().slice(-2000)}`, 100);
    assert.equal(metricValue(await sidecarMetrics(side!), 'thanos_sidecar_prometheus_up'), 0);
    const blocks = await sidecarRead(side!, seriesRequest(matchers, ...blocksRange));
    assert.deepEqual(blocks.warnings, [], 'the blocks\' range needs no Prometheus');
    assertSameAnswer(blocks.series, blocksBefore.series, 'the blocks\' range with Prometheus down, as before');
    const all = await sidecarRead(side!, seriesRequest(matchers, ...allRange));
    assert.equal(all.warnings.length, 1, `one warning: ${JSON.stringify(all.warnings)}`);
    assert.match(all.warnings[0]!, /Prometheus/);
    const blocksPart: Answer = new Map();
    for (const [k, v] of allBefore.series) {
      const kept = v.filter((x) => Number(x.split(':')[0]) < T0 + 2 * RANGE);
      if (kept.length > 0) blocksPart.set(k, kept);
    }
    assert.ok(blocksPart.size < allBefore.series.size, 'some series are in the head only');
    assertSameAnswer(all.series, blocksPart, 'everything with Prometheus down: the blocks\' part of before');
    const names = await side!.client.labelNames({ start: String(allRange[0]), end: String(allRange[1]) });
    assert.equal(names.code, 0, names.details);
    assert.ok(names.response!.names.includes('job') && names.response!.warnings.length === 1, `label names from the blocks, with a warning: ${JSON.stringify(names.response)}`);

    // Back on the same data and port: it replays its WAL and answers again.
    prom = await runPrometheus(join(root, 'a'), prom!.port, [
      '--web.enable-remote-write-receiver',
      '--storage.tsdb.min-block-duration=2h',
      '--storage.tsdb.max-block-duration=2h',
    ]);
    await waitFor(15_000, async () => ((await httpStatus(`${side!.base}/-/ready`)) === 200 ? true : undefined), () => `not ready again:\n${side!.stderr().slice(-2000)}`, 100);
    assert.equal(metricValue(await sidecarMetrics(side!), 'thanos_sidecar_prometheus_up'), 1);
    const again = await checkSeries(side!, prom, matchers, ...allRange);
    assertSameAnswer(again.series, allBefore.series, 'everything with Prometheus back, as before');
    await compareAll(side!, prom, [['the head only', T0 + 4 * HOUR, END + HOUR]]);
  });

  test('refuses a Prometheus without external labels, and unequal block durations with a bucket; starts without a bucket', async () => {
    const b = promB!;
    const c = promC!;
    const objstore = ['--objstore.config', `type: FILESYSTEM\nconfig:\n  directory: ${join(root, 'bucket-refused')}\n`];
    const noLabels = spawnSidecar(b, ['--prometheus.ready_timeout', '5s', ...objstore]);
    const unequal = spawnSidecar(c, ['--prometheus.ready_timeout', '5s', ...objstore]);
    assert.deepEqual(await exitWithin(noLabels, EXIT_MS), { code: 1, signal: null }, noLabels.stderr());
    assert.ok(errorLines(noLabels).some((l) => /external labels must be configured/.test(String(l.msg))), `logs that external labels must be configured:\n${noLabels.stderr()}`);
    assert.deepEqual(await exitWithin(unequal, EXIT_MS), { code: 1, signal: null }, unequal.stderr());
    const durations = errorLines(unequal).find((l) => /max block duration.*min block duration|min block duration.*max block duration/.test(String(l.msg)));
    assert.ok(durations !== undefined, `logs that min and max block duration differ:\n${unequal.stderr()}`);
    assert.deepEqual([durations.minBlockDuration, durations.maxBlockDuration], [2 * HOUR, 6 * HOUR]);
    assert.ok(!existsSync(join(root, 'bucket-refused')) || readdirSync(join(root, 'bucket-refused')).length === 0, 'nothing shipped');

    // Without a bucket it serves C: only its head, remote read all the way, scraped a moment ago.
    const s = await startSidecar(c, ['--prometheus.ready_timeout', '5s']);
    let stopped: ExitStatus | undefined;
    try {
      const now = await waitFor(10_000, async () => {
        const up = [...(await prometheusRead(c, [eq('__name__', 'up')], Date.now() - HOUR, Date.now() - 5000)).values()];
        return up.length === 1 && up[0]!.length >= 2 ? Date.now() : undefined;
      }, () => `C scraped nothing:\n${c.output()}`, 250);
      // Scraped samples are committed within moments: [now - 1 min, now - 3 s] no longer changes.
      const range = [now - MIN, now - 3000] as const;
      for (const matchers of [[eq('job', 'self')], [eq('cluster', 'eu2'), re('__name__', 'prometheus_tsdb_head_.*')], [eq('__name__', 'up')]]) {
        const want = await prometheusRead(c, matchers, ...range);
        const got = await sidecarRead(s, seriesRequest(matchers, ...range));
        assert.ok(want.size > 0, `${showMatchers(matchers)}: C has series`);
        assert.deepEqual(got.warnings, []);
        assertSameAnswer(foldNegativeZero(got.series), foldNegativeZero(want), `C's scraped head, ${showMatchers(matchers)}`);
      }
      const info = await s.client.info();
      assert.deepEqual(info.response!.label_sets, [{ labels: [{ name: 'cluster', value: 'eu2' }] }]);
    } finally {
      s.client.close();
      stopped = await stopChild(s.child);
    }
    assert.deepEqual(stopped, { code: 0, signal: null }, `a clean stop:\n${s.stderr().slice(-2000)}`);
    await Promise.all([b.stop(), c.stop()]);
  });
});
