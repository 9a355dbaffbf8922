// A long series is split over Series frames of about 1 MiB (Thanos splits
// at 1 MiB of chunks a frame, over by at most one chunk), its frames come
// one after another before the next series, and they concatenate to the
// samples written. Rules: proto/thanos/store/rpc.proto (Series), WIRE.md
// "Series frames", issue 4.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rng } from '../../../support/series.js';
import { eq } from '../../support/client.js';
import { T0, seriesOk } from '../../support/calls.js';
import { answeredLabels, assertSamplesEqual, decodeSeries, show, shown, within, writtenSamples } from '../../support/series-check.js';
import { samplesOf, type WriteSample } from '../../support/write-request.js';
import type { StoreFactory, StoreUnderTest } from '../store-under-test.js';

/** frames of a long series, against the stores `factory` opens. */
export function framesGroup(factory: StoreFactory): void {
  describe('frames of a long series', () => {
    const MiB = 1024 * 1024;
    /** A frame may pass 1 MiB by about one chunk; anything past this is "far above". */
    const FRAME_MAX = MiB + 128 * 1024;
    /** A frame that is not a series' last should be close to 1 MiB, not a few chunks. */
    const FRAME_MIN = MiB / 2;
    /** Samples of the long series: random float values take ~9-10 bytes a sample, about 3 MiB in all. */
    const N = 300_000;

    let client: StoreUnderTest;
    let big: WriteSample[];
    const BEFORE = [['__name__', 'm_big'], ['a', 'before']] as const;
    const BIG = [['__name__', 'm_big']] as const;
    const AFTER = [['__name__', 'm_big'], ['z', 'after']] as const;

    before(async () => {
      client = await factory.open({});
      const next = rng(7);
      big = samplesOf(N, T0, 1000n, () => (next() - 0.5) * 1e9);
      const small = samplesOf(10, T0, 1000n, (i) => i);
      await client.write({ timeseries: [{ labels: BIG, samples: big }, { labels: BEFORE, samples: small }, { labels: AFTER, samples: small }] });
    });

    after(async () => {
      await client?.close();
    });

    describe('frames of a long series', () => {
      test('a series of ~3 MiB of chunks comes in several frames of about 1 MiB, none far above', async (t) => {
        const got = await seriesOk(client, { matchers: [eq('__name__', 'm_big')] }, 60_000);
        assert.deepEqual(shown(got.series), [BEFORE, BIG, AFTER].map((l) => show(answeredLabels(l))));
        const s = got.series[1]!;
        const sizes = s.frameBytes.map((b) => `${(b / MiB).toFixed(3)} MiB`).join(', ');
        t.diagnostic(`frames of m_big: ${sizes}`);
        assert.ok(s.frames >= 2, `one frame for ${N} samples: ${sizes}`);
        for (const [i, b] of s.frameBytes.entries()) {
          assert.ok(b <= FRAME_MAX, `frame ${i} is ${b} bytes (frames: ${sizes})`);
          if (i < s.frameBytes.length - 1) assert.ok(b >= FRAME_MIN, `frame ${i} of ${s.frames} is only ${b} bytes (frames: ${sizes})`);
        }
        assert.equal(got.series[0]!.frames, 1);
        assert.equal(got.series[2]!.frames, 1);
      });

      test('the frames of the split series concatenate, in min_time order, to exactly the samples written', async () => {
        const got = await seriesOk(client, { matchers: [eq('__name__', 'm_big'), eq('a', '')] }, 60_000);
        const s = got.series.find((x) => x.labels.length === 2);
        assert.ok(s, `m_big not answered: ${shown(got.series).join(' ')}`);
        assert.ok(s.frames >= 2);
        assertSamplesEqual(decodeSeries(s), writtenSamples(big), 'm_big');
      });

      test('skip_chunks answers the long series in one frame', async () => {
        const got = await seriesOk(client, { matchers: [eq('__name__', 'm_big')], skip_chunks: true });
        assert.deepEqual(got.series.map((s) => s.frames), [1, 1, 1]);
      });

      test('a range inside the long series answers the overlapping chunks only, with every sample of the range', async () => {
        const min = big[150_000]!.t;
        const max = big[150_500]!.t;
        const got = await seriesOk(client, { min_time: String(min), max_time: String(max), matchers: [eq('__name__', 'm_big')] });
        assert.deepEqual(shown(got.series), [show(answeredLabels(BIG))]);
        const s = got.series[0]!;
        assert.ok(s.chunks.length <= 10, `${s.chunks.length} chunks for 501 samples`);
        assertSamplesEqual(within(decodeSeries(s), min, max), writtenSamples(big, { min, max }), 'm_big in range');
      });
    });
  });
}
