/**
 * Out-of-order samples side by side with a real Prometheus 2.42 (its own
 * `storage.tsdb.out_of_order_time_window`, remote-write receiver): the same
 * remote writes go to both, in order and out of order (shuffled, into the
 * head's range and into ranges Strata already cut into a block), and their
 * remote read answers (SAMPLES) must be the same samples, bit for bit.
 * Both refuse a sample older than the window (Strata 409; Prometheus 2.42
 * answers 500 for its ErrTooOldSample, later releases 400).
 *
 * Needs `prometheus` on the PATH (skipped otherwise) and `npm run build`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  ReadRequest_ResponseType as RT, bitsOf, decodeReadResponse, postRead, postWrite, type AnsweredSeries, type Series,
} from '../http/prometheus/support/prom-wire.js';
import { killAll } from '../support/serve-process.js';
import { rng } from '../support/series.js';
import { prometheusBinary, startPrometheus, type PrometheusProcess } from './support/prometheus.js';
import { serveStrata, sortedLabels, type Served } from './support/strata-blocks.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
/** 2023-11-22T06:00:00Z, on the 2 h grid. */
const T0 = 236_199 * 2 * HOUR;
const SERIES = 4;
const labels = Array.from({ length: SERIES }, (_, i) => sortedLabels({ __name__: 'ooo_cmp', i: String(i) }));

describe('out-of-order samples: Strata and Prometheus 2.42 answer the same', { skip: prometheusBinary() === undefined ? 'prometheus not on PATH' : false, timeout: 240_000 }, () => {
  let dir = '';
  let strata: Served;
  let prom: PrometheusProcess;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-e2e-ooo-prom-'));
    strata = await serveStrata(join(dir, 'data'), ['--tsdb.out-of-order.time-window', '4h']);
    prom = await startPrometheus('ooo', () => 'global:\n  scrape_interval: 1h\nstorage:\n  tsdb:\n    out_of_order_time_window: 4h\n', ['--web.enable-remote-write-receiver']);
  });

  after(async () => {
    await prom?.stop();
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Sends one request to both; returns both statuses. */
  async function both(series: Series[]): Promise<[number, number]> {
    const [a, b] = await Promise.all([postWrite(strata.base, series), postWrite(prom.base, series)]);
    return [a.status, b.status];
  }

  async function inOrder(from: number, to: number): Promise<void> {
    for (let t0 = from; t0 < to; t0 += 10 * MIN) {
      const series = labels.map((l, i) => {
        const samples = [];
        for (let t = t0; t < Math.min(to, t0 + 10 * MIN); t += 30_000) samples.push({ t, bits: bitsOf((t - T0) / 1000 + i) });
        return { labels: l, samples };
      });
      assert.deepEqual(await both(series), [204, 204], `in-order write at ${t0 - T0}`);
    }
  }

  async function outOfOrder(from: number, to: number, offset: number, seed: number): Promise<void> {
    const next = rng(seed);
    const all: Array<{ s: number; t: number }> = [];
    for (let t = from + offset; t < to; t += 30_000) for (let s = 0; s < SERIES; s++) all.push({ s, t });
    for (let i = all.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [all[i], all[j]] = [all[j]!, all[i]!];
    }
    for (let k = 0; k < all.length; k += 80) {
      const part = all.slice(k, k + 80);
      // Prometheus' receiver wants each series' samples in one place: one series per request entry, any time order.
      const series = labels.map((l, s) => ({ labels: l, samples: part.filter((x) => x.s === s).map((x) => ({ t: x.t, bits: bitsOf(-(x.t - T0) / 1000 - s) })) }))
        .filter((x) => x.samples.length > 0);
      assert.deepEqual(await both(series), [204, 204], `out-of-order write ${k / 80}`);
    }
  }

  test('the same writes are taken by both', async () => {
    await inOrder(T0, T0 + 170 * MIN);
    await outOfOrder(T0, T0 + 140 * MIN, 15_000, 1);
    await inOrder(T0 + 170 * MIN, T0 + 5 * HOUR);
    // Strata has cut [T0, T0 + 2 h) by now; the window reaches back to T0 + 1 h.
    await outOfOrder(T0 + 70 * MIN, T0 + 4 * HOUR, 5_000, 2);
    const [s, p] = await both([{ labels: labels[0]!, samples: [{ t: T0 + 30 * MIN + 1, bits: bitsOf(1) }] }]);
    assert.equal(s, 409, 'Strata refuses a sample older than the window');
    // Prometheus 2.42's receiver maps ErrTooOldSample to 500 (later releases to 400).
    assert.ok(p >= 400, `Prometheus refuses it too (${p})`);
  });

  for (const r of [
    { what: 'everything', min: T0 - HOUR, max: T0 + 6 * HOUR },
    { what: 'across the cut', min: T0 + 60 * MIN + 2_000, max: T0 + 130 * MIN + 2_000 },
    { what: 'an out-of-order instant', min: T0 + 100 * MIN + 5_000, max: T0 + 100 * MIN + 5_000 },
  ]) {
    test(`remote read answers the same samples (${r.what})`, async () => {
      const query = { matchers: [[0, '__name__', 'ooo_cmp']] as const, start: r.min, end: r.max };
      const answers: AnsweredSeries[][] = [];
      for (const base of [strata.base, prom.base]) {
        const a = await postRead(base, [query], { types: [RT.SAMPLES] });
        assert.equal(a.status, 200);
        answers.push(decodeReadResponse(a.body)[0]!.sort((x, y) => (x.labels.join() < y.labels.join() ? -1 : 1)));
      }
      const [s, p] = answers as [AnsweredSeries[], AnsweredSeries[]];
      assert.deepEqual(s.map((x) => x.labels), p.map((x) => x.labels), 'the same series');
      s.forEach((x, i) => {
        const y = p[i]!;
        assert.ok(x.samples.length > 0);
        assert.equal(x.samples.length, y.samples.length, `${x.labels.join()}: ${x.samples.length} samples from Strata, ${y.samples.length} from Prometheus`);
        x.samples.forEach((a, k) => {
          const b = y.samples[k]!;
          if (a.t !== b.t || a.bits !== b.bits) assert.fail(`${x.labels.join()} sample ${k}: Strata (${a.t}, ${a.bits.toString(16)}), Prometheus (${b.t}, ${b.bits.toString(16)})`);
        });
      });
    });
  }
});
