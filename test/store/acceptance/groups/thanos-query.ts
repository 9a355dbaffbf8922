// What Thanos Query sends, and what it must get back (issue 18). Query
// builds every Series request the same way (pkg/query/querier.go):
// aggregates from the PromQL function (aggrsFromFunc), partial response
// WARN, max_resolution_window from auto-downsampling and, with
// deduplication on, without_replica_labels = its replica labels. The
// expected answers follow Thanos' TSDB store (pkg/store/tsdb.go), written
// here from its rules, not from Strata's output:
// - raw data is answered as raw XOR chunks whatever the aggregates, with
//   no warning;
// - each label named in without_replica_labels is removed from the
//   series' labels and from the external labels (with --replica-label,
//   only those it names); series sorted by labels.Compare as answered;
// - LabelNames leaves out the named external labels; LabelValues of a
//   named label is empty.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Aggr, Strategy, XOR, eq, grpc, type Frame, type Label, type SeriesRequest } from '../../support/client.js';
import { ALL_TIME, T0, codeName } from '../../support/calls.js';
import {
  answeredLabels, assertSamplesEqual, compareLabelSets, decodeSeries, show, writtenSamples, type DecodedSamples,
} from '../../support/series-check.js';
import { samplesOf, type WriteSample, type WriteSeries } from '../../support/write-request.js';
import type { StoreFactory, StoreUnderTest } from '../store-under-test.js';

/** as Thanos Query asks, against the stores `factory` opens. */
export function thanosQueryGroup(factory: StoreFactory): void {
  describe('as Thanos Query asks', () => {
    const EXT = { region: 'eu-west' };

    /** An HA pair of Prometheus servers: the same series, replica="A" and "B", scraped 5 s apart. */
    function haSeries(replica: 'A' | 'B'): WriteSeries[] {
      const offset = replica === 'A' ? 0n : 5_000n;
      return ['n1', 'n2', 'n3'].map((instance, i) => ({
        labels: [['__name__', 'up'], ['instance', instance], ['job', 'node'], ['replica', replica]] as const,
        samples: samplesOf(40, T0 + offset, 15_000n, (k) => (replica === 'A' ? 1 : 2) * (k + i)),
      }));
    }
    const SOLO: WriteSeries = { labels: [['__name__', 'up'], ['instance', 'solo'], ['job', 'batch']], samples: samplesOf(40, T0, 15_000n, (k) => k) };
    const WRITTEN = [...haSeries('A'), ...haSeries('B'), SOLO];

    /** What Thanos Query's aggrsFromFunc asks for each PromQL query. */
    const QUERIES: Array<[string, number[]]> = [
      ['up', [Aggr.COUNT, Aggr.SUM]],
      ['rate(up[5m])', [Aggr.COUNTER]],
      ['min_over_time(up[5m])', [Aggr.MIN]],
      ['max_over_time(up[5m])', [Aggr.MAX]],
      ['count_over_time(up[5m])', [Aggr.COUNT]],
      ['sum_over_time(up[5m])', [Aggr.SUM]],
    ];

    interface Store {
      client: StoreUnderTest;
      /** --replica-label values; empty: the default. */
      replicaLabels: string[];
    }
    const stores: Record<'default' | 'restricted', Store> = {} as Record<'default' | 'restricted', Store>;

    before(async () => {
      stores.default = { client: await factory.open({ externalLabels: EXT }), replicaLabels: [] };
      stores.restricted = { client: await factory.open({ externalLabels: EXT, replicaLabels: ['replica'] }), replicaLabels: ['replica'] };
      for (const s of Object.values(stores)) {
        // Two writers, as an HA pair sends them.
        await s.client.write({ timeseries: haSeries('A') });
        await s.client.write({ timeseries: haSeries('B') });
        await s.client.write({ timeseries: [SOLO] });
      }
    });

    after(async () => {
      for (const s of Object.values(stores)) await s.client.close();
    });

    /** The labels a store removes for a request: all named, or those named that --replica-label lists. */
    function dropped(store: Store, named: readonly string[]): string[] {
      return store.replicaLabels.length === 0 ? [...named] : named.filter((n) => store.replicaLabels.includes(n));
    }

    interface ExpectedSeries { labels: Label[]; samples: DecodedSamples }

    /** Thanos' TSDB store's answer: labels as completeLabelset, sorted by labels.Compare (ties in stored order). */
    function expected(store: Store, named: readonly string[]): ExpectedSeries[] {
      const drop = dropped(store, named);
      return WRITTEN
        .map((w) => ({ labels: answeredLabels(w.labels, { external: EXT, drop }), stored: answeredLabels(w.labels, { external: EXT }), samples: writtenSamples(w.samples as WriteSample[]) }))
        .sort((a, b) => compareLabelSets(a.labels, b.labels) || compareLabelSets(a.stored, b.stored))
        .map(({ labels, samples }) => ({ labels, samples }));
    }

    async function seriesFrames(store: Store, req: SeriesRequest): Promise<Frame[]> {
      const a = await store.client.series({ ...ALL_TIME, ...req }, { deadlineMs: 10_000 });
      assert.equal(a.code, grpc.status.OK, `Series answered ${codeName(a.code)}: ${a.details}`);
      return a.frames;
    }

    /**
     * Checks an answer frame by frame: no warning, one series a frame here
     * (short series), raw XOR chunks only, the expected labels in the expected
     * order; series with equal labels (replicas after removal) each with the
     * samples of one of them.
     */
    function assertAnswer(frames: Frame[], want: ExpectedSeries[], what: string): void {
      assert.deepEqual(frames.filter((f) => f.result === 'warning').map((f) => f.warning), [], `${what}: warnings`);
      const series = frames.filter((f) => f.result === 'series').map((f) => f.series!);
      assert.deepEqual(series.map((s) => show(s.labels)), want.map((w) => show(w.labels)), `${what}: labels and order`);
      for (const s of series) {
        for (const c of s.chunks) {
          assert.ok(c.raw !== null && c.raw.type === XOR, `${what}: ${show(s.labels)} has a chunk that is not raw XOR`);
          for (const aggr of ['count', 'sum', 'min', 'max', 'counter'] as const) assert.equal(c[aggr], null, `${what}: ${aggr} set`);
        }
      }
      // Equal labels come together; match each answered series to one expected one with those labels.
      const left = [...want];
      for (const s of series) {
        const got = decodeSeries(s);
        const i = left.findIndex((w) => show(w.labels) === show(s.labels) && w.samples.t.join() === got.t.join());
        assert.ok(i >= 0, `${what}: ${show(s.labels)} answers samples no written series with those labels holds`);
        assertSamplesEqual(got, left[i]!.samples, `${what}: ${show(s.labels)}`);
        left.splice(i, 1);
      }
    }

    for (const config of ['default', 'restricted'] as const) {
      const flags = config === 'default' ? 'defaults' : '--replica-label replica';
      describe(`Series as Thanos Query asks it (strata serve --label region=eu-west, ${flags})`, () => {
        for (const [query, aggregates] of QUERIES) {
          for (const window of ['0', '3600000']) {
            for (const named of [[], ['replica'], ['replica', 'region']]) {
              test(`${query}: aggregates [${aggregates.join(',')}], max_resolution_window ${window}, without_replica_labels [${named.join(',')}]`, async () => {
                const store = stores[config];
                const frames = await seriesFrames(store, {
                  matchers: [eq('__name__', 'up')],
                  aggregates,
                  max_resolution_window: window,
                  partial_response_strategy: Strategy.WARN,
                  without_replica_labels: named,
                });
                assertAnswer(frames, expected(store, named), `${config} ${query}`);
              });
            }
          }
        }

        test('the HA pair: after removal, each pair is two adjacent, label-identical series with their own chunks', async () => {
          const store = stores[config];
          const frames = await seriesFrames(store, {
            matchers: [eq('__name__', 'up'), eq('job', 'node')], aggregates: [Aggr.COUNT, Aggr.SUM], without_replica_labels: ['replica'],
          });
          const series = frames.filter((f) => f.result === 'series').map((f) => f.series!);
          assert.equal(series.length, 6);
          for (let i = 0; i < 6; i += 2) {
            const [a, b] = [series[i]!, series[i + 1]!];
            assert.equal(show(a.labels), show(b.labels), 'a pair is not adjacent');
            assert.ok(!a.labels.some((l) => l.name === 'replica'), `${show(a.labels)} still has replica`);
            const starts = [a, b].map((s) => BigInt(s.chunks[0]!.min_time) - T0).sort();
            assert.deepEqual(starts, [0n, 5_000n], "each of the pair answers one replica's chunks");
          }
        });
      });
    }

    describe('the label APIs with without_replica_labels', () => {
      const ALL = { start: ALL_TIME.min_time, end: ALL_TIME.max_time };

      test('LabelNames leaves out the named external labels; stored names stay, as in Thanos TSDB store', async () => {
        const names = async (store: Store, named: string[]) => {
          const a = await store.client.labelNames({ ...ALL, without_replica_labels: named });
          assert.equal(a.code, grpc.status.OK, a.details);
          return a.response!.names;
        };
        const all = ['__name__', 'instance', 'job', 'region', 'replica', 'tenant_id'];
        assert.deepEqual(await names(stores.default, []), all);
        assert.deepEqual(await names(stores.default, ['replica']), all);
        assert.deepEqual(await names(stores.default, ['region']), all.filter((n) => n !== 'region'));
        // The tenant label goes where it is an external label (Thanos
        // Receive); where it is stored (a sidecar), it is a stored name.
        const tenantStays = factory.kind.tenants === 'stored' ? ['tenant_id'] : [];
        assert.deepEqual(await names(stores.default, ['tenant_id', 'region']), ['__name__', 'instance', 'job', 'replica', ...tenantStays]);
        // With --replica-label replica, region is not a replica label: it stays.
        assert.deepEqual(await names(stores.restricted, ['region']), all);
      });

      test('LabelValues of a named label is empty', async () => {
        const values = async (store: Store, label: string, named: string[]) => {
          const a = await store.client.labelValues({ ...ALL, label, without_replica_labels: named });
          assert.equal(a.code, grpc.status.OK, a.details);
          return a.response!.values;
        };
        assert.deepEqual(await values(stores.default, 'replica', []), ['A', 'B']);
        assert.deepEqual(await values(stores.default, 'replica', ['replica']), []);
        assert.deepEqual(await values(stores.default, 'region', ['replica', 'region']), []);
        assert.deepEqual(await values(stores.default, 'job', ['replica']), ['batch', 'node']);
        assert.deepEqual(await values(stores.restricted, 'replica', ['replica']), []);
        assert.deepEqual(await values(stores.restricted, 'region', ['replica', 'region']), ['eu-west']);
      });
    });
  });
}
