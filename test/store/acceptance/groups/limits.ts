// --store.limits.request-series and --store.limits.request-samples, like
// Thanos': a Series call over a limit ends RESOURCE_EXHAUSTED with a message
// naming the limit; a call at the limit is answered; 0 means no limit.
// Rules: issue 4 "Limits", DESIGN.md "Errors".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, grpc, re } from '../../support/client.js';
import { T0, seriesFails, seriesOk } from '../../support/calls.js';
import { samplesOf, type WriteSeries } from '../../support/write-request.js';
import type { StoreFactory, StoreUnderTest } from '../store-under-test.js';

/** limits, against the stores `factory` opens. */
export function limitsGroup(factory: StoreFactory): void {
  describe('limits', () => {
    const SERIES_LIMIT = 3;
    const SAMPLES_LIMIT = 1000;

    let lc: StoreUnderTest;
    let uc: StoreUnderTest;

    /** m_lim_s: 5 series of 1 sample (series limit); m_lim_c: i=0 with exactly 1000 samples, i=1 with 1 (samples limit). */
    const data: WriteSeries[] = [
      ...[0, 1, 2, 3, 4].map((i) => ({ labels: [['__name__', 'm_lim_s'], ['i', String(i)]] as const, samples: samplesOf(1, T0, 1n, () => i) })),
      { labels: [['__name__', 'm_lim_c'], ['i', '0']], samples: samplesOf(SAMPLES_LIMIT, T0, 1000n, (k) => k) },
      { labels: [['__name__', 'm_lim_c'], ['i', '1']], samples: samplesOf(1, T0, 1n, () => 1) },
    ];

    before(async () => {
      [lc, uc] = await Promise.all([
        factory.open({ seriesLimit: SERIES_LIMIT, samplesLimit: SAMPLES_LIMIT }),
        factory.open({ seriesLimit: 0, samplesLimit: 0 }),
      ]);
      await Promise.all([lc.write({ timeseries: data }), uc.write({ timeseries: data })]);
    });

    after(async () => {
      await lc?.close();
      await uc?.close();
    });

    describe('--store.limits.request-series', () => {
      test('a request for exactly the limit of series is answered', async () => {
        const got = await seriesOk(lc, { matchers: [eq('__name__', 'm_lim_s'), re('i', '0|1|2')] });
        assert.equal(got.series.length, SERIES_LIMIT);
      });

      test('a request for more series than the limit is RESOURCE_EXHAUSTED naming the series limit', async () => {
        const details = await seriesFails(lc, { matchers: [eq('__name__', 'm_lim_s'), re('i', '0|1|2|3')] }, grpc.status.RESOURCE_EXHAUSTED);
        assert.match(details, /series/i, details);
        assert.match(details, /limit/i, details);
      });

      test('the series limit holds with skip_chunks too', async () => {
        await seriesFails(lc, { matchers: [eq('__name__', 'm_lim_s')], skip_chunks: true }, grpc.status.RESOURCE_EXHAUSTED);
      });
    });

    describe('--store.limits.request-samples', () => {
      test('a request for exactly the limit of samples is answered', async () => {
        const got = await seriesOk(lc, { matchers: [eq('__name__', 'm_lim_c'), eq('i', '0')] });
        assert.equal(got.series.length, 1);
      });

      test('a request for more samples than the limit is RESOURCE_EXHAUSTED naming the samples limit', async () => {
        const details = await seriesFails(lc, { matchers: [eq('__name__', 'm_lim_c')] }, grpc.status.RESOURCE_EXHAUSTED);
        assert.match(details, /sample/i, details);
        assert.match(details, /limit/i, details);
      });
    });

    describe('0 means no limit', () => {
      test('every series and sample is answered with both limits 0', async () => {
        assert.equal((await seriesOk(uc, { matchers: [re('__name__', 'm_lim_.*')] })).series.length, 7);
      });
    });
  });
}
