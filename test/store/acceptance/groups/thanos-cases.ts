// Thanos' own Store API acceptance cases (pkg/store/acceptance_test.go,
// testStoreAPIsAcceptance), run against strata serve --label
// region=eu-west over gRPC, each case on a fresh store, every call with
// without_replica_labels ["replica"] as there. One difference is by
// design: Strata answers as Thanos Receive does, where each tenant's data
// carries the tenant label (tenant_id="default-tenant" here) as an
// external label (WIRE.md "Tenants"), so label names and series gain it
// wherever Thanos' TSDB store answers data. Issue 10.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MatcherType, grpc, type Label, type Matcher } from '../../support/client.js';
import { codeName, seriesOk } from '../../support/calls.js';
import { compareLabelSets, labelSet, show } from '../../support/series-check.js';
import type { StoreFactory } from '../store-under-test.js';

/** Thanos' acceptance cases, against the stores `factory` opens. */
export function thanosCasesGroup(factory: StoreFactory): void {
  describe("Thanos' acceptance cases", () => {
    /** Thanos' minTime/maxTime: the whole range a query can ask. */
    const MIN = String(-(2n ** 63n));
    const MAX = String(2n ** 63n - 1n);
    const NOW = BigInt(Date.now());
    /** now - 4 h: a range ending before every sample written at now. */
    const BEFORE_NOW = String(NOW - 4n * 3_600_000n);
    const TENANT: Record<string, string> = { tenant_id: 'default-tenant' };

    interface Append { labels: Record<string, string>; t: bigint }
    interface NamesCall { end?: string; matchers?: Matcher[]; want: string[] }
    interface ValuesCall { label: string; end?: string; matchers?: Matcher[]; want?: string[]; error?: string }
    interface SeriesCall { matchers: Matcher[]; skipChunks?: boolean; want: Record<string, string>[] }
    interface Case { desc: string; append: Append[]; names?: NamesCall[]; values?: ValuesCall[]; series?: SeriesCall[] }

    const m = (type: number, name: string, value: string): Matcher => ({ type, name, value });
    const EQ = (n: string, v: string) => m(MatcherType.EQ, n, v);
    const NEQ = (n: string, v: string) => m(MatcherType.NEQ, n, v);
    const RE = (n: string, v: string) => m(MatcherType.RE, n, v);
    const NRE = (n: string, v: string) => m(MatcherType.NRE, n, v);
    const at = (t: bigint, ...pairs: string[]): Append => {
      const labels: Record<string, string> = {};
      for (let i = 0; i < pairs.length; i += 2) labels[pairs[i]!] = pairs[i + 1]!;
      return { labels, t };
    };
    /** An answered series: Thanos' expected labels plus the tenant label. */
    const S = (...pairs: string[]): Record<string, string> => ({ ...at(0n, ...pairs).labels, region: 'eu-west', ...TENANT });

    const matching = [at(0n, 'n', '1'), at(0n, 'n', '1', 'i', 'a'), at(0n, 'n', '1', 'i', 'b'), at(0n, 'n', '2'), at(0n, 'n', '2.5')];
    const I_A = S('i', 'a', 'n', '1');
    const I_B = S('i', 'b', 'n', '1');
    const N1 = S('n', '1');
    const N2 = S('n', '2');
    const N25 = S('n', '2.5');

    const CASES: Case[] = [
      {
        desc: 'no label in tsdb, empty results',
        append: [],
        names: [{ want: [] }],
        values: [
          { label: '', error: 'label name parameter cannot be empty' },
          { label: 'foo', want: [] },
          { label: 'region', want: ['eu-west'] },
        ],
      },
      {
        desc: '{foo=foovalue1} 1',
        append: [at(NOW, 'foo', 'foovalue1')],
        names: [{ want: ['foo', 'region', 'tenant_id'] }],
        values: [{ label: 'foo', want: ['foovalue1'] }, { label: 'replica', want: [] }],
      },
      {
        desc: '{foo=foovalue2} 1 and {foo=foovalue2} 1',
        append: [at(NOW, 'foo', 'foovalue1'), at(NOW, 'foo', 'foovalue2')],
        names: [{ want: ['foo', 'region', 'tenant_id'] }],
        values: [{ label: 'foo', want: ['foovalue1', 'foovalue2'] }],
      },
      {
        desc: '{foo=foovalue1, bar=barvalue1} 1 and {foo=foovalue2} 1 and {foo=foovalue2} 1',
        append: [at(NOW, 'foo', 'foovalue1'), at(NOW, 'foo', 'foovalue2'), at(NOW, 'foo', 'foovalue1', 'bar', 'barvalue1')],
        names: [
          { want: ['bar', 'foo', 'region', 'tenant_id'] },
          { end: BEFORE_NOW, want: [] },
          { matchers: [EQ('bar', 'barvalue1')], want: ['bar', 'foo', 'region', 'tenant_id'] },
          { matchers: [EQ('foo', 'foovalue2')], want: ['foo', 'region', 'tenant_id'] },
          { matchers: [EQ('bar', 'different')], want: [] },
          { matchers: [EQ('region', 'eu-west')], want: ['bar', 'foo', 'region', 'tenant_id'] },
          { matchers: [EQ('region', 'different')], want: [] },
        ],
        values: [
          { label: 'foo', want: ['foovalue1', 'foovalue2'] },
          { label: 'bar', want: ['barvalue1'] },
          { label: 'foo', end: BEFORE_NOW, want: [] },
          { label: 'bar', end: BEFORE_NOW, want: [] },
          { label: 'foo', matchers: [EQ('bar', 'barvalue1')], want: ['foovalue1'] },
          { label: 'foo', matchers: [EQ('bar', 'different')], want: [] },
          { label: 'region', matchers: [EQ('__name__', 'nonexistent')], want: [] },
          { label: 'region', matchers: [EQ('region', 'eu-east')], want: [] },
          { label: 'foo', matchers: [EQ('region', 'eu-west')], want: ['foovalue1', 'foovalue2'] },
          { label: 'bar', matchers: [EQ('region', 'eu-west')], want: ['barvalue1'] },
          { label: 'foo', matchers: [EQ('region', 'different')], want: [] },
          { label: 'bar', matchers: [EQ('region', 'different')], want: [] },
        ],
      },
      {
        desc: 'conflicting internal and external labels when skipping chunks',
        append: [at(0n, 'foo', 'bar', 'region', 'somewhere')],
        series: [{ matchers: [EQ('foo', 'bar')], skipChunks: true, want: [S('foo', 'bar')] }],
      },
      {
        desc: 'series matcher on other labels when requesting external labels',
        append: [at(0n, '__name__', 'up', 'foo', 'bar', 'job', 'C'), at(0n, '__name__', 'up', 'foo', 'baz', 'job', 'C')],
        values: [{ label: 'region', matchers: [EQ('__name__', 'up'), EQ('job', 'C')], want: ['eu-west'] }],
      },
      {
        desc: 'matching behavior',
        append: matching,
        series: [
          { matchers: [EQ('n', '1')], want: [I_A, I_B, N1] },
          { matchers: [EQ('n', '1'), EQ('i', 'a')], want: [I_A] },
          { matchers: [EQ('n', '1'), EQ('i', 'missing')], want: [] },
          { matchers: [EQ('missing', '')], want: [I_A, I_B, N1, N2, N25] },
          { matchers: [NEQ('n', '1')], want: [N2, N25] },
          { matchers: [RE('i', '.+')], want: [I_A, I_B] },
          { matchers: [RE('i', '.*')], want: [I_A, I_B, N1, N2, N25] },
          { matchers: [EQ('i', '')], want: [N1, N2, N25] },
          { matchers: [NEQ('i', '')], want: [I_A, I_B] },
          { matchers: [NEQ('missing', '')], want: [] },
          { matchers: [EQ('n', '1'), NEQ('i', 'a')], want: [I_B, N1] },
          { matchers: [RE('n', '^1$')], want: [I_A, I_B, N1] },
          { matchers: [EQ('n', '1'), RE('i', '^a$')], want: [I_A] },
          { matchers: [EQ('n', '1'), RE('i', '^a?$')], want: [I_A, N1] },
          { matchers: [RE('i', '^$')], want: [N1, N2, N25] },
          { matchers: [EQ('n', '1'), RE('i', '^$')], want: [N1] },
          { matchers: [EQ('n', '1'), RE('i', '^.*$')], want: [I_A, I_B, N1] },
          { matchers: [EQ('n', '1'), RE('i', '^.+$')], want: [I_A, I_B] },
          { matchers: [NRE('n', '^1$')], want: [N2, N25] },
          { matchers: [NRE('n', '1')], want: [N2, N25] },
          { matchers: [NRE('n', '1|2.5')], want: [N2] },
          { matchers: [NRE('n', '(1|2.5)')], want: [N2] },
          { matchers: [EQ('n', '1'), NRE('i', '^a$')], want: [I_B, N1] },
          { matchers: [EQ('n', '1'), NRE('i', '^a?$')], want: [I_B] },
          { matchers: [EQ('n', '1'), NRE('i', '^$')], want: [I_A, I_B] },
          { matchers: [EQ('n', '1'), NRE('i', '^.*$')], want: [] },
          { matchers: [EQ('n', '1'), NRE('i', '^.+$')], want: [N1] },
          { matchers: [EQ('n', '1'), NEQ('i', ''), EQ('i', 'a')], want: [I_A] },
          { matchers: [EQ('n', '1'), NEQ('i', 'b'), RE('i', '^(b|a).*$')], want: [I_A] },
          { matchers: [RE('n', '(1|2)')], want: [I_A, I_B, N1, N2] },
          { matchers: [RE('i', 'a|b')], want: [I_A, I_B] },
          { matchers: [RE('i', '(a|b)')], want: [I_A, I_B] },
          { matchers: [RE('n', 'x1|2')], want: [N2] },
          { matchers: [RE('n', '2|2\\.5')], want: [N2, N25] },
          { matchers: [RE('i', 'c||d')], want: [N1, N2, N25] },
          { matchers: [RE('i', '(c||d)')], want: [N1, N2, N25] },
        ],
      },
      {
        desc: 'label values and names with non-equal matchers on external labels',
        append: [at(0n, '__name__', 'up', 'foo', 'bar')],
        names: [{ matchers: [RE('region', '.*')], want: ['__name__', 'foo', 'region', 'tenant_id'] }],
        values: [{ label: 'region', matchers: [EQ('__name__', 'up'), RE('region', '.*')], want: ['eu-west'] }],
      },
      {
        desc: "label_values(kube_pod_info{}, pod) don't fetch postings for pod!=''",
        append: [
          at(NOW, '__name__', 'up', 'pod', 'pod-1'),
          at(NOW, '__name__', 'up', 'pod', 'pod-2'),
          at(NOW, '__name__', 'kube_pod_info', 'pod', 'pod-1'),
        ],
        names: [
          { matchers: [EQ('__name__', 'kube_pod_info')], want: ['__name__', 'pod', 'region', 'tenant_id'] },
          { want: ['__name__', 'pod', 'region', 'tenant_id'] },
        ],
        values: [
          { label: 'pod', matchers: [EQ('__name__', 'kube_pod_info')], want: ['pod-1'] },
          { label: 'pod', want: ['pod-1', 'pod-2'] },
        ],
      },
    ];


    const REPLICA = ['replica'];

    for (const c of CASES) {
      describe(`Thanos acceptance: ${c.desc}`, () => {
        test('answers as Thanos expects', async () => {
          const client = await factory.open({ externalLabels: { region: 'eu-west' } });
          try {
            if (c.append.length > 0) {
              // Label pairs sorted by name, as a Prometheus appender's label sets are.
              const timeseries = c.append.map((a) => ({
                labels: labelSet(a.labels).map((l) => [l.name, l.value] as const),
                samples: [{ t: a.t, v: 1 }],
              }));
              await client.write({ timeseries });
            }
            for (const call of c.names ?? []) {
              const a = await client.labelNames({ start: MIN, end: call.end ?? MAX, matchers: call.matchers ?? [], without_replica_labels: REPLICA });
              assert.equal(a.code, grpc.status.OK, `LabelNames answered ${codeName(a.code)}: ${a.details}`);
              assert.deepEqual(a.response!.warnings, []);
              assert.deepEqual(a.response!.names, call.want, `LabelNames ${JSON.stringify(call)}`);
            }
            for (const call of c.values ?? []) {
              const a = await client.labelValues({
                label: call.label, start: MIN, end: call.end ?? MAX, matchers: call.matchers ?? [], without_replica_labels: REPLICA,
              });
              if (call.error !== undefined) {
                assert.equal(a.code, grpc.status.INVALID_ARGUMENT, `LabelValues ${JSON.stringify(call)} answered ${codeName(a.code)}`);
                assert.equal(a.details, call.error);
                continue;
              }
              assert.equal(a.code, grpc.status.OK, `LabelValues answered ${codeName(a.code)}: ${a.details}`);
              assert.deepEqual(a.response!.warnings, []);
              assert.deepEqual(a.response!.values, call.want, `LabelValues ${JSON.stringify(call)}`);
            }
            for (const call of c.series ?? []) {
              const got = await seriesOk(client, {
                matchers: call.matchers, skip_chunks: call.skipChunks === true, without_replica_labels: REPLICA,
              });
              assert.deepEqual(got.warnings, []);
              const want: Label[][] = call.want.map((l) => labelSet(l)).sort(compareLabelSets);
              assert.deepEqual(got.series.map((s) => show(s.labels)), want.map(show), `Series ${JSON.stringify(call.matchers)}`);
            }
          } finally {
            await client.close();
          }
        });
      });
    }
  });
}
