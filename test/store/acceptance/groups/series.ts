// thanos.Store/Series, black box: the stream contract (whole series one
// after another, sorted, labels sorted, chunks by min_time, XOR raw
// chunks), selection by time and matchers (Go RE2, fully anchored),
// external labels, without_replica_labels, warnings, partial response and
// hints. Rules: proto/thanos/store/rpc.proto, issue 4, WIRE.md.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Aggr, Strategy, eq, grpc, neq, nre, re, type Matcher, type SeriesRequest } from '../../support/client.js';
import { ALL_TIME, T0, seriesFails, seriesOk } from '../../support/calls.js';
import {
  answeredLabels, assertSamplesEqual, compareLabelSets, decodeSeries, labelSet, show, shown, within, writtenSamples,
} from '../../support/series-check.js';
import { samplesOf, type WriteSeries } from '../../support/write-request.js';
import type { StoreFactory, StoreUnderTest } from '../store-under-test.js';

/** Series, against the stores `factory` opens. */
export function seriesGroup(factory: StoreFactory): void {
  describe('Series', () => {
    /** External labels of the process; `receive` is also a replica label. */
    const EXT = { receive: 'r1', region: 'eu-west' };
    const REPLICA_LABELS = ['receive', 'replica'];

    let client: StoreUnderTest;

    const ans = (labels: WriteSeries['labels'], drop?: string[]) => answeredLabels(labels, drop ? { external: EXT, drop } : { external: EXT });
    const ser = (labels: WriteSeries['labels'], n = 5, start = T0): WriteSeries => ({ labels, samples: samplesOf(n, start, 15_000n, (i) => i) });

    // m_sort: label sets whose answered order differs from naive orders.
    const SORT = {
      a1: [['__name__', 'm_sort'], ['a', '1']],
      a1b2: [['__name__', 'm_sort'], ['a', '1'], ['b', '2']],
      a10: [['__name__', 'm_sort'], ['a', '10']],
      a2: [['__name__', 'm_sort'], ['a', '2']],
      alpha: [['Alpha', 'x'], ['__name__', 'm_sort'], ['a', '1']],
      aZ: [['__name__', 'm_sort'], ['a', 'Z']],
      replacement: [['__name__', 'm_sort'], ['a', '\uFFFD']],
      emoji: [['__name__', 'm_sort'], ['a', '\u{1F600}']],
    } satisfies Record<string, WriteSeries['labels']>;

    /** job values of m_match; NONE is the series without a job label. */
    const JOBS = ['a', 'b', 'ab', 'A', 'axb', '1', '\u0661', '.*'];
    const NONE = '<no job>';

    const TIME_A = samplesOf(100, T0, 1000n, (i) => i);
    const TIME_B = samplesOf(100, T0 + 3_600_000n, 1000n, (i) => 1000 + i);

    const REPLICA = {
      ja2: [['__name__', 'm_replica'], ['job', 'j'], ['replica', 'A'], ['zone', '2']],
      jb1: [['__name__', 'm_replica'], ['job', 'j'], ['replica', 'B'], ['zone', '1']],
      k: [['__name__', 'm_replica'], ['job', 'k']],
    } satisfies Record<string, WriteSeries['labels']>;

    /**
     * m_same: an HA pair whose series store region with its external value
     * (a Prometheus remote-written to by agents with the same external
     * labels); 1000 samples over 4 h reach from a sidecar's blocks into
     * its Prometheus' head.
     */
    const SAME = {
      a: [['__name__', 'm_same'], ['region', 'eu-west'], ['replica', 'A']],
      b: [['__name__', 'm_same'], ['region', 'eu-west'], ['replica', 'B']],
    } satisfies Record<string, WriteSeries['labels']>;

    before(async () => {
      client = await factory.open({ externalLabels: EXT, replicaLabels: REPLICA_LABELS });
      await client.write({
        timeseries: [
          ...Object.values(SORT).map((l) => ser(l)),
          ...JOBS.map((job) => ser([['__name__', 'm_match'], ['job', job]])),
          ser([['__name__', 'm_match'], ['other', 'x']]),
          ser([['__name__', 'm_newline'], ['job', 'a\nb']]),
          ser([['__name__', 'm_newline'], ['job', 'axb']]),
          { labels: [['__name__', 'm_time'], ['s', 'a']], samples: TIME_A },
          { labels: [['__name__', 'm_time'], ['s', 'b']], samples: TIME_B },
          ser([['__name__', 'm_ext'], ['region', 'stored']]),
          ...Object.values(REPLICA).map((l) => ser(l)),
          ser([['__name__', 'm_long']], 1000),
          ...Object.values(SAME).map((l) => ser(l, 1000)),
        ],
      });
    });

    after(async () => {
      await client?.close();
    });

    const name = (n: string) => eq('__name__', n);

    describe('the stream contract', () => {
      test('series are sorted by their answered labels as Go compares bytes, external and tenant labels included', async () => {
        const got = await seriesOk(client, { matchers: [name('m_sort')] });
        // Hand-ordered: Alpha < __name__ ('A' < '_'); a="1",b="2" before a="1" (b < receive, the
        // next label of {a="1"} once external labels are added); "10" < "2" < "Z"; U+FFFD before
        // U+1F600 in UTF-8 bytes although not in UTF-16 code units.
        const want = [SORT.alpha, SORT.a1b2, SORT.a1, SORT.a10, SORT.a2, SORT.aZ, SORT.replacement, SORT.emoji].map((l) => show(ans(l)));
        assert.deepEqual(shown(got.series), want);
      });

      test('the expected order above is what labels.Compare gives (self-check of the oracle)', () => {
        const sets = Object.values(SORT).map((l) => ans(l)).sort(compareLabelSets);
        assert.deepEqual(sets.map(show), [SORT.alpha, SORT.a1b2, SORT.a1, SORT.a10, SORT.a2, SORT.aZ, SORT.replacement, SORT.emoji].map((l) => show(ans(l))));
      });

      test('labels within a series are sorted by name, uppercase names before __name__', async () => {
        const got = await seriesOk(client, { matchers: [name('m_sort'), eq('Alpha', 'x')] });
        assert.deepEqual(got.series.map((s) => s.labels.map((l) => l.name)), [['Alpha', '__name__', 'a', 'receive', 'region', 'tenant_id']]);
      });

      test('chunks are raw XOR, ordered by min_time, min_time/max_time their first and last sample, decoding to the samples written', async () => {
        const got = await seriesOk(client, { matchers: [name('m_long')] });
        assert.equal(got.series.length, 1);
        const s = got.series[0]!;
        // 1000 samples 15 s apart span three 2 h chunk ranges: several chunks to order.
        assert.ok(s.chunks.length >= 3, `1000 samples over 4 h came in ${s.chunks.length} chunk(s)`);
        assertSamplesEqual(decodeSeries(s), writtenSamples(ser([], 1000).samples!), 'm_long');
      });

      test('skip_chunks answers labels only', async () => {
        const got = await seriesOk(client, { matchers: [name('m_sort')], skip_chunks: true });
        assert.equal(got.series.length, Object.keys(SORT).length);
      });

      test('the limit field answers at most that many series, the first in order; 0 means no limit', async () => {
        const all = await seriesOk(client, { matchers: [name('m_sort')], skip_chunks: true });
        const two = await seriesOk(client, { matchers: [name('m_sort')], skip_chunks: true, limit: '2' });
        const none = await seriesOk(client, { matchers: [name('m_sort')], skip_chunks: true, limit: '0' });
        assert.deepEqual(shown(two.series), shown(all.series).slice(0, 2));
        assert.deepEqual(shown(none.series), shown(all.series));
      });

      test('a request that selects nothing answers an empty stream, OK', async () => {
        const got = await seriesOk(client, { matchers: [name('no_such_metric')] });
        assert.deepEqual(got.series, []);
      });
    });

    describe('min_time and max_time select', () => {
      const t = (ms: bigint) => String(ms);
      const range = (min: bigint, max: bigint, extra: SeriesRequest = {}): SeriesRequest => ({
        min_time: t(min), max_time: t(max), matchers: [name('m_time')], ...extra,
      });
      const wantA = show(ans([['__name__', 'm_time'], ['s', 'a']]));
      const wantB = show(ans([['__name__', 'm_time'], ['s', 'b']]));

      test('a range between the data answers nothing', async () => {
        assert.deepEqual(shown((await seriesOk(client, range(T0 + 100_000n, T0 + 3_599_999n))).series), []);
        assert.deepEqual(shown((await seriesOk(client, range(T0 + 100_000n, T0 + 3_599_999n, { skip_chunks: true }))).series), []);
      });

      test('a range answers the series with samples in it, with every written sample of the range, and only chunks overlapping it', async () => {
        const min = T0 + 50_000n;
        const max = T0 + 60_000n;
        const got = await seriesOk(client, range(min, max));
        assert.deepEqual(shown(got.series), [wantA]);
        const s = got.series[0]!;
        for (const c of s.chunks) {
          assert.ok(BigInt(c.max_time) >= min && BigInt(c.min_time) <= max, `chunk [${c.min_time}, ${c.max_time}] is outside [${min}, ${max}]`);
        }
        assertSamplesEqual(within(decodeSeries(s), min, max), writtenSamples(TIME_A, { min, max }), 'm_time{s="a"} in range');
      });

      test('both ends are inclusive', async () => {
        const lastA = TIME_A[TIME_A.length - 1]!.t;
        const firstB = TIME_B[0]!.t;
        assert.deepEqual(shown((await seriesOk(client, range(lastA, lastA))).series), [wantA]);
        assert.deepEqual(shown((await seriesOk(client, range(firstB, firstB))).series), [wantB]);
        assert.deepEqual(shown((await seriesOk(client, range(lastA, firstB))).series), [wantA, wantB]);
        assert.deepEqual(shown((await seriesOk(client, range(lastA + 1n, firstB - 1n))).series), []);
      });

      test('skip_chunks honours the range too', async () => {
        const got = await seriesOk(client, range(TIME_B[10]!.t, TIME_B[20]!.t, { skip_chunks: true }));
        assert.deepEqual(shown(got.series), [wantB]);
      });
    });

    describe('matchers (Go RE2, fully anchored; a matcher matching "" also matches series without the label)', () => {
      const all = [...JOBS, NONE];
      const cases: Array<[string, Matcher[], string[]]> = [
        ['{job="a"}', [eq('job', 'a')], ['a']],
        ['{job!="a"} keeps series without job', [neq('job', 'a')], all.filter((j) => j !== 'a')],
        ['{job=~"a|b"} is anchored: not "ab"', [re('job', 'a|b')], ['a', 'b']],
        ['{job=~"a.*"}', [re('job', 'a.*')], ['a', 'ab', 'axb']],
        ['{job=~"b"} does not match inside "ab"', [re('job', 'b')], ['b']],
        ['{job!~"a|b"} keeps "ab" and series without job', [nre('job', 'a|b')], all.filter((j) => j !== 'a' && j !== 'b')],
        ['{job=~"(?i)A"}', [re('job', '(?i)A')], ['a', 'A']],
        ['{job=~"\\d"} is ASCII only', [re('job', '\\d')], ['1']],
        ['{job=~"\\pL+"}', [re('job', '\\pL+')], ['a', 'b', 'ab', 'A', 'axb']],
        ['{job=~"[[:alpha:]]+"}', [re('job', '[[:alpha:]]+')], ['a', 'b', 'ab', 'A', 'axb']],
        ['{job=~"\\Q.*\\E"} is a literal', [re('job', '\\Q.*\\E')], ['.*']],
        ['{job=""} selects series without job', [eq('job', '')], [NONE]],
        ['{job!=""} selects series having job', [neq('job', '')], JOBS],
        ['{job=~".*"} selects everything', [re('job', '.*')], all],
        ['{job=~".+"} selects series having job', [re('job', '.+')], JOBS],
        ['{job!~".+"} selects series without job', [nre('job', '.+')], [NONE]],
        ['{missing=""} selects everything', [eq('missing', '')], all],
        ['{missing=~""} selects everything', [re('missing', '')], all],
        ['{missing!=""} selects nothing', [neq('missing', '')], []],
        ['{missing=~"x|"} selects everything', [re('missing', 'x|')], all],
        ['two matchers intersect: {job=~"a.*", job!="ab"}', [re('job', 'a.*'), neq('job', 'ab')], ['a', 'axb']],
      ];
      const jobOf = (labels: { name: string; value: string }[]) => labels.find((l) => l.name === 'job')?.value ?? NONE;
      for (const [title, matchers, want] of cases) {
        test(title, async () => {
          const got = await seriesOk(client, { matchers: [name('m_match'), ...matchers], skip_chunks: true });
          assert.deepEqual(got.series.map((s) => jobOf(s.labels)).sort(), [...want].sort());
        });
      }

      test('{__name__=~"m_matc"} is anchored: selects nothing', async () => {
        assert.deepEqual((await seriesOk(client, { matchers: [re('__name__', 'm_matc')], skip_chunks: true })).series, []);
      });

      test('"." does not match a newline; (?s) and \\n do', async () => {
        const jobs = async (m: Matcher) =>
          (await seriesOk(client, { matchers: [name('m_newline'), m], skip_chunks: true })).series.map((s) => jobOf(s.labels)).sort();
        assert.deepEqual(await jobs(re('job', 'a.b')), ['axb']);
        assert.deepEqual(await jobs(re('job', '(?s)a.b')), ['a\nb', 'axb'].sort());
        assert.deepEqual(await jobs(re('job', 'a\\nb')), ['a\nb']);
      });

      for (const pattern of ['(', '(a)\\1', '(?=a)', 'a**', 'x{1001}', '[z-a]']) {
        test(`an invalid RE2 pattern ${JSON.stringify(pattern)} is INVALID_ARGUMENT`, async () => {
          await seriesFails(client, { matchers: [name('m_match'), re('job', pattern)] }, grpc.status.INVALID_ARGUMENT);
          await seriesFails(client, { matchers: [name('m_match'), nre('job', pattern)] }, grpc.status.INVALID_ARGUMENT);
        });
      }

      test('no matchers at all is INVALID_ARGUMENT', async () => {
        await seriesFails(client, { matchers: [] }, grpc.status.INVALID_ARGUMENT);
      });
    });

    describe('external labels', () => {
      test('are added to every series and win over a stored label of the same name', async () => {
        const got = await seriesOk(client, { matchers: [name('m_ext')] });
        assert.deepEqual(shown(got.series), [show(labelSet({ __name__: 'm_ext', receive: 'r1', region: 'eu-west', tenant_id: 'default-tenant' }))]);
      });

      test('a request whose matchers are all about external labels is INVALID_ARGUMENT', async () => {
        const details = await seriesFails(client, { matchers: [eq('region', 'eu-west')] }, grpc.status.INVALID_ARGUMENT);
        assert.match(details, /no matchers specified \(excluding external labels\)/);
        await seriesFails(client, { matchers: [eq('receive', 'r1'), re('region', 'eu.*')] }, grpc.status.INVALID_ARGUMENT);
      });

      test('a matcher on an external label that matches is decided there and dropped', async () => {
        const plain = await seriesOk(client, { matchers: [name('m_sort')], skip_chunks: true });
        for (const m of [eq('region', 'eu-west'), re('region', 'eu-.*'), neq('region', 'us'), nre('receive', 'r2|r3')]) {
          const got = await seriesOk(client, { matchers: [name('m_sort'), m], skip_chunks: true });
          assert.deepEqual(shown(got.series), shown(plain.series), `with ${m.name} ${m.type} ${m.value}`);
        }
      });

      test('a matcher on an external label that does not match answers nothing', async () => {
        for (const m of [eq('region', 'us'), neq('region', 'eu-west'), re('region', 'eu'), nre('region', 'eu-.*'), eq('region', '')]) {
          const got = await seriesOk(client, { matchers: [name('m_sort'), m] });
          assert.deepEqual(shown(got.series), [], `with ${m.name} ${m.type} ${JSON.stringify(m.value)}`);
        }
      });

      test('a non-matching external-label matcher answers nothing even when it is the only matcher', async () => {
        const got = await seriesOk(client, { matchers: [eq('region', 'us')] });
        assert.deepEqual(shown(got.series), []);
      });

      test('a series storing an external label with the external value is answered once: one frame, every sample', async () => {
        const got = await seriesOk(client, { matchers: [name('m_same')] });
        assert.deepEqual(shown(got.series), [SAME.a, SAME.b].map((l) => show(ans(l))));
        for (const s of got.series) {
          // A few KiB of chunks: one Series message, not a series resumed in a second one.
          assert.equal(s.frames, 1, `${show(s.labels)} came in ${s.frames} Series messages`);
          assertSamplesEqual(decodeSeries(s), writtenSamples(ser([], 1000).samples!), show(s.labels));
        }
      });

      test('a matcher on an external label is decided against the external value, not a stored one', async () => {
        assert.deepEqual(shown((await seriesOk(client, { matchers: [name('m_ext'), eq('region', 'stored')] })).series), []);
        assert.equal((await seriesOk(client, { matchers: [name('m_ext'), eq('region', 'eu-west')] })).series.length, 1);
      });
    });

    describe('without_replica_labels restricted by --replica-label receive, replica', () => {
      test('removes a stored replica label; the order is computed without it', async () => {
        const got = await seriesOk(client, { matchers: [name('m_replica')], without_replica_labels: ['replica'] });
        assert.deepEqual(shown(got.series), [REPLICA.jb1, REPLICA.ja2, REPLICA.k].map((l) => show(ans(l, ['replica']))));
      });

      test('removes an external label that is a replica label', async () => {
        const got = await seriesOk(client, { matchers: [name('m_replica')], without_replica_labels: ['receive'] });
        assert.deepEqual(shown(got.series), [REPLICA.ja2, REPLICA.jb1, REPLICA.k].map((l) => show(ans(l, ['receive']))));
      });

      test('a named label that is not a replica label stays', async () => {
        const plain = await seriesOk(client, { matchers: [name('m_replica')] });
        assert.deepEqual(shown(plain.series), [REPLICA.ja2, REPLICA.jb1, REPLICA.k].map((l) => show(ans(l))));
        const got = await seriesOk(client, { matchers: [name('m_replica')], without_replica_labels: ['job', 'zone', 'region'] });
        assert.deepEqual(shown(got.series), shown(plain.series));
      });

      test('an HA pair storing an external label with its value: after removal, two whole series one after the other', async () => {
        // Equal labels after removal: the frames themselves tell the two apart (seriesOk would join them).
        const a = await client.series({ ...ALL_TIME, matchers: [name('m_same')], without_replica_labels: ['replica'] });
        assert.equal(a.code, grpc.status.OK, a.details);
        const series = a.frames.filter((f) => f.result === 'series').map((f) => f.series!);
        const want = show(ans(SAME.a, ['replica']));
        assert.deepEqual(series.map((s) => show(s.labels)), [want, want]);
        for (const s of series) assertSamplesEqual(decodeSeries(s), writtenSamples(ser([], 1000).samples!), want);
      });

      test('removes the replica labels among several named, keeps the rest, with chunks intact', async () => {
        const got = await seriesOk(client, { matchers: [name('m_replica')], without_replica_labels: ['job', 'replica', 'receive'] });
        assert.deepEqual(shown(got.series), [REPLICA.jb1, REPLICA.ja2, REPLICA.k].map((l) => show(ans(l, ['replica', 'receive']))));
        for (const s of got.series) assertSamplesEqual(decodeSeries(s), writtenSamples(ser([]).samples!), show(s.labels));
      });
    });

    describe('warnings, partial response and hints', () => {
      const plainOf = async (extra: SeriesRequest = {}) => seriesOk(client, { matchers: [name('m_sort')], ...extra });

      test('aggregates other than RAW select nothing for raw data: the raw chunks, with no warning', async () => {
        const plain = await plainOf();
        assert.deepEqual(plain.warnings, []);
        for (const aggregates of [[Aggr.COUNT, Aggr.SUM], [Aggr.MIN], [Aggr.MAX], [Aggr.COUNTER]]) {
          const got = await plainOf({ aggregates, max_resolution_window: '300000' });
          assert.deepEqual(got.warnings, [], `aggregates ${aggregates.join(',')}`);
          assert.deepEqual(shown(got.series), shown(plain.series));
          for (const [i, s] of got.series.entries()) assert.deepEqual(decodeSeries(s), decodeSeries(plain.series[i]!));
        }
      });

      test('aggregates [RAW] answer without a warning', async () => {
        const got = await plainOf({ aggregates: [Aggr.RAW] });
        assert.deepEqual(got.warnings, []);
        assert.equal(got.series.length, Object.keys(SORT).length);
      });

      test('ABORT answers a healthy request exactly as WARN does', async () => {
        const warn = await plainOf({ partial_response_strategy: Strategy.WARN });
        const abort = await plainOf({ partial_response_strategy: Strategy.ABORT });
        const disabled = await plainOf({ partial_response_disabled: true });
        assert.deepEqual(shown(abort.series), shown(warn.series));
        assert.deepEqual(shown(disabled.series), shown(warn.series));
        assert.deepEqual(abort.warnings, []);
      });

      test('ABORT with aggregates COUNT, SUM (what Thanos Query sends for avg_over_time) still answers the raw data', async () => {
        const warn = await plainOf();
        const got = await plainOf({ partial_response_strategy: Strategy.ABORT, aggregates: [Aggr.COUNT, Aggr.SUM] });
        assert.deepEqual(shown(got.series), shown(warn.series));
      });

      test('hints (known and unknown types) and query_hints are accepted and change nothing', async () => {
        const plain = await plainOf();
        const known = await plainOf({
          hints: { type_url: 'type.googleapis.com/hintspb.SeriesRequestHints', value: Buffer.alloc(0) },
          query_hints: { step_millis: '30000', func: { name: 'rate' }, grouping: { by: true, labels: ['a'] }, range: { millis: '300000' } },
          step: '30000',
          range: '300000',
        });
        const unknown = await plainOf({ hints: { type_url: 'type.googleapis.com/example.NotAHint', value: Buffer.from([0x08, 0x96, 0x01]) } });
        assert.deepEqual(shown(known.series), shown(plain.series));
        assert.deepEqual(shown(unknown.series), shown(plain.series));
      });
    });
  });
}
