// A Series answer far larger than the transport takes at once: it streams
// over many turns of the event loop (slices of series, flow control), and
// every series arrives, whole and in order, with every sample. Over gRPC
// this is where a lost 'drain' would hang the call.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from '../../support/client.js';
import { T0, seriesOk } from '../../support/calls.js';
import { answeredLabels, assertSamplesEqual, decodeSeries, show, shown, writtenSamples } from '../../support/series-check.js';
import { samplesOf, type WriteSeries } from '../../support/write-request.js';
import type { StoreFactory, StoreUnderTest } from '../store-under-test.js';

/** 3000 series of 360 samples (3 chunks each): about 2 MB of chunks, three slices of series. */
const SERIES = 3000;
const SAMPLES = 360;
/** Samples of each series a write carries: 180,000 in all, 15 min of data. */
const WRITE_SAMPLES = 60;

const written: WriteSeries[] = Array.from({ length: SERIES }, (_, i) => ({
  labels: [['__name__', 'm_large'], ['instance', `host-${String(i).padStart(4, '0')}`], ['job', 'node']],
  samples: samplesOf(SAMPLES, T0, 15_000n, (k) => Math.sin(i + k) * 1000),
}));

/** A large answer, against the stores `factory` opens. */
export function largeAnswerGroup(factory: StoreFactory): void {
  describe('a large answer', () => {
    let client: StoreUnderTest;

    before(async () => {
      client = await factory.open({ externalLabels: { region: 'eu-west' } });
      // Oldest first, as a Prometheus remote-writes: each request the next
      // 60 samples of every series (a Prometheus under a sidecar refuses
      // samples more than 1 h behind the newest it holds).
      for (let k = 0; k < SAMPLES; k += WRITE_SAMPLES) {
        await client.write({ timeseries: written.map((w) => ({ labels: w.labels, samples: w.samples!.slice(k, k + WRITE_SAMPLES) })) });
      }
    });

    after(async () => {
      await client?.close();
    });

    test('streams whole: every series in order, each with every sample written', async () => {
      const got = await seriesOk(client, { matchers: [eq('__name__', 'm_large')] }, 60_000);
      assert.deepEqual(shown(got.series), written.map((w) => show(answeredLabels(w.labels, { external: { region: 'eu-west' } }))));
      for (const [i, s] of got.series.entries()) assertSamplesEqual(decodeSeries(s), writtenSamples(written[i]!.samples!), show(s.labels));
    });
  });
}
