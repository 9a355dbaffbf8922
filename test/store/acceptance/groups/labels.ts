// thanos.Store/LabelNames and LabelValues, black box: matchers and
// start/end honoured, external and tenant labels included, a range holding
// no data answers nothing, LabelValues of an external label, errors.
// Rules: issue 4, WIRE.md "Behaviour real clients rely on" and "Tenants".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, grpc, re, type Answer, type LabelNamesRequest } from '../../support/client.js';
import { ALL_TIME, T0, codeName } from '../../support/calls.js';
import { samplesOf } from '../../support/write-request.js';
import { skippedAsDifferent, type StoreFactory, type StoreUnderTest } from '../store-under-test.js';

/** LabelNames and LabelValues, against the stores `factory` opens. */
export function labelsGroup(factory: StoreFactory): void {
  describe('LabelNames and LabelValues', () => {
    let client: StoreUnderTest;

    const HOUR = 3_600_000n;
    /** m_lab at T0 .. T0+99s; m_lab2 ten hours later; m_lab_t (tenant team-a) at T0. */
    const EARLY = { start: String(T0), end: String(T0 + 99_000n) };
    const LATE = { start: String(T0 + 10n * HOUR), end: String(T0 + 10n * HOUR + 99_000n) };
    const EMPTY_RANGES = [
      { start: String(T0 + HOUR), end: String(T0 + 2n * HOUR) },
      { start: String(T0 - 2n * HOUR), end: String(T0 - 1n) },
      { start: String(T0 + 11n * HOUR), end: String(T0 + 12n * HOUR) },
    ];
    const ALL = { start: ALL_TIME.min_time, end: ALL_TIME.max_time };

    before(async () => {
      client = await factory.open({ externalLabels: { region: 'eu-west' } });
      const early = samplesOf(100, T0, 1000n, (i) => i);
      await client.write({
        timeseries: [
          { labels: [['__name__', 'm_lab'], ['instance', 'i1'], ['job', 'a']], samples: early },
          { labels: [['__name__', 'm_lab'], ['instance', 'i2'], ['job', 'b']], samples: early },
          { labels: [['__name__', 'm_lab_shadow'], ['region', 'stored']], samples: early },
        ],
      });
      await client.write({ timeseries: [{ labels: [['__name__', 'm_lab_t'], ['team', 'x']], samples: early }], tenant: 'team-a' });
      // Written last: ten hours later, the early range is cut into a block (and closed for writing).
      await client.write({ timeseries: [{ labels: [['__name__', 'm_lab2'], ['env', 'prod']], samples: samplesOf(100, T0 + 10n * HOUR, 1000n, (i) => i) }] });
    });

    after(async () => {
      await client?.close();
    });

    async function names(req: LabelNamesRequest): Promise<string[]> {
      const a = await client.labelNames({ ...ALL, ...req });
      assert.equal(a.code, grpc.status.OK, `LabelNames answered ${codeName(a.code)}: ${a.details}`);
      assert.ok(Array.isArray(a.response!.warnings), 'no warnings list');
      return a.response!.names;
    }

    async function values(label: string, req: LabelNamesRequest = {}): Promise<string[]> {
      const a = await client.labelValues({ ...ALL, ...req, label });
      assert.equal(a.code, grpc.status.OK, `LabelValues answered ${codeName(a.code)}: ${a.details}`);
      assert.ok(Array.isArray(a.response!.warnings), 'no warnings list');
      return a.response!.values;
    }

    describe('LabelNames', () => {
      test('answers every label name, sorted and unique, external and tenant label names included', async () => {
        assert.deepEqual(await names({}), ['__name__', 'env', 'instance', 'job', 'region', 'team', 'tenant_id']);
      });

      test('honours matchers', async () => {
        assert.deepEqual(await names({ matchers: [eq('__name__', 'm_lab')] }), ['__name__', 'instance', 'job', 'region', 'tenant_id']);
        assert.deepEqual(await names({ matchers: [eq('__name__', 'm_lab2')] }), ['__name__', 'env', 'region', 'tenant_id']);
        assert.deepEqual(await names({ matchers: [eq('team', 'x')] }), ['__name__', 'region', 'team', 'tenant_id']);
      });

      test('honours start and end', async () => {
        assert.deepEqual(await names(LATE), ['__name__', 'env', 'region', 'tenant_id']);
        assert.deepEqual(await names(EARLY), ['__name__', 'instance', 'job', 'region', 'team', 'tenant_id']);
      });

      test('a range holding no data answers nothing, not even external label names', async () => {
        for (const range of EMPTY_RANGES) {
          assert.deepEqual(await names(range), [], `range ${range.start}..${range.end}`);
          assert.deepEqual(await names({ ...range, matchers: [eq('__name__', 'm_lab')] }), [], `range ${range.start}..${range.end} with a matcher`);
        }
      });

      test('matchers that select nothing answer nothing', async () => {
        assert.deepEqual(await names({ matchers: [eq('__name__', 'no_such_metric')] }), []);
      });

      test('an external-label matcher: matching is decided and dropped, not matching answers nothing', async () => {
        assert.deepEqual(await names({ matchers: [eq('region', 'eu-west'), eq('__name__', 'm_lab2')] }), ['__name__', 'env', 'region', 'tenant_id']);
        assert.deepEqual(await names({ matchers: [eq('region', 'us'), eq('__name__', 'm_lab2')] }), []);
        assert.deepEqual(await names({ matchers: [eq('region', 'us')] }), []);
      });

      test('an invalid regex matcher is INVALID_ARGUMENT', async () => {
        const a = await client.labelNames({ ...ALL, matchers: [re('job', '(')] });
        assert.equal(a.code, grpc.status.INVALID_ARGUMENT, `answered ${codeName(a.code)}: ${a.details}`);
      });
    });

    describe('the limit field (proto: 0 means no limit)', () => {
      test('LabelNames answers at most limit names, the first in order', async () => {
        assert.deepEqual(await names({ limit: '2' }), ['__name__', 'env']);
        assert.deepEqual(await names({ limit: '0' }), await names({}));
      });

      test('LabelValues answers at most limit values, the first in order', async () => {
        assert.deepEqual(await values('__name__', { limit: '3' }), ['m_lab', 'm_lab2', 'm_lab_shadow']);
        assert.deepEqual(await values('__name__', { limit: '0' }), await values('__name__'));
      });
    });

    describe('LabelValues', () => {
      test('answers the values of a label, sorted and unique', async () => {
        assert.deepEqual(await values('job'), ['a', 'b']);
        assert.deepEqual(await values('__name__'), ['m_lab', 'm_lab2', 'm_lab_shadow', 'm_lab_t']);
      });

      test('honours matchers', async () => {
        assert.deepEqual(await values('job', { matchers: [eq('instance', 'i2')] }), ['b']);
        assert.deepEqual(await values('__name__', { matchers: [re('job', 'a|b')] }), ['m_lab']);
        assert.deepEqual(await values('job', { matchers: [eq('__name__', 'm_lab2')] }), []);
      });

      test('honours start and end', async () => {
        assert.deepEqual(await values('__name__', LATE), ['m_lab2']);
        assert.deepEqual(await values('env', EARLY), []);
      });

      test('a range holding no data answers nothing', async () => {
        for (const range of EMPTY_RANGES) {
          assert.deepEqual(await values('job', range), [], `range ${range.start}..${range.end}`);
          assert.deepEqual(await values('__name__', range), [], `range ${range.start}..${range.end}`);
        }
      });

      test("an external label's value, without matchers, and winning over a stored value", async () => {
        assert.deepEqual(await values('region'), ['eu-west']);
      });

      test("an external label's value with matchers only when some series match them", async () => {
        assert.deepEqual(await values('region', { matchers: [eq('__name__', 'm_lab')] }), ['eu-west']);
        assert.deepEqual(await values('region', { matchers: [eq('__name__', 'no_such_metric')] }), []);
        assert.deepEqual(await values('region', { matchers: [eq('region', 'us'), eq('__name__', 'm_lab')] }), []);
      });

      test('the tenant label answers the tenants holding matching data', async () => {
        assert.deepEqual(await values('tenant_id'), ['default-tenant', 'team-a']);
        assert.deepEqual(await values('tenant_id', { matchers: [eq('__name__', 'm_lab_t')] }), ['team-a']);
        assert.deepEqual(await values('tenant_id', { matchers: [eq('__name__', 'm_lab')] }), ['default-tenant']);
      });

      test('an empty label name is INVALID_ARGUMENT: "label name parameter cannot be empty"', async () => {
        const a = await client.labelValues({ ...ALL, label: '' });
        assert.equal(a.code, grpc.status.INVALID_ARGUMENT, `answered ${codeName(a.code)}: ${a.details}`);
        assert.match(a.details, /label name parameter cannot be empty/);
      });

      test('an invalid regex matcher is INVALID_ARGUMENT', async () => {
        const a = await client.labelValues({ ...ALL, label: 'job', matchers: [re('job', '(?=a)')] });
        assert.equal(a.code, grpc.status.INVALID_ARGUMENT, `answered ${codeName(a.code)}: ${a.details}`);
      });
    });

    describe('a range without data between data held in one place', () => {
      // m_gap_a at T0, m_gap_b two hours later: an engine's head, or a
      // Prometheus head (3 h) under a sidecar, holds both at once.
      let gap: StoreUnderTest;
      const BETWEEN = { start: String(T0 + HOUR), end: String(T0 + HOUR + 60_000n) };

      before(async () => {
        gap = await factory.open({ externalLabels: { region: 'eu-west' } });
        await gap.write({ timeseries: [{ labels: [['__name__', 'm_gap_a']], samples: samplesOf(10, T0, 1000n, (i) => i) }] });
        await gap.write({ timeseries: [{ labels: [['__name__', 'm_gap_b']], samples: samplesOf(10, T0 + 2n * HOUR, 1000n, (i) => i) }] });
      });

      after(async () => {
        await gap?.close();
      });

      test('LabelNames and LabelValues answer nothing', async (t) => {
        if (skippedAsDifferent(t, factory, 'labelsInDataSpan')) return;
        const ok = <T>(a: Answer<T>): T => {
          assert.equal(a.code, grpc.status.OK, `answered ${codeName(a.code)}: ${a.details}`);
          return a.response!;
        };
        assert.deepEqual(ok(await gap.labelNames(ALL)).names, ['__name__', 'region', 'tenant_id'], 'the data is there');
        assert.deepEqual(ok(await gap.labelNames(BETWEEN)).names, []);
        assert.deepEqual(ok(await gap.labelNames({ ...BETWEEN, matchers: [eq('__name__', 'm_gap_a')] })).names, []);
        assert.deepEqual(ok(await gap.labelValues({ ...BETWEEN, label: '__name__' })).values, []);
        assert.deepEqual(ok(await gap.labelValues({ ...BETWEEN, label: '__name__', matchers: [re('__name__', 'm_gap_.*')] })).values, []);
      });
    });
  });
}
