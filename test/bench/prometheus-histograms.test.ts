// `strata bench remote-write --histogram-share` against a real Prometheus
// (Debian `prometheus`, --enable-feature=native-histograms): the native
// histograms it encodes are taken and stored as histograms, as many as the
// report says. (Strata's own write path for histograms is being built; this
// checks the encoding against the reference receiver.)
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { prometheusBinary, startPrometheus, type PrometheusProcess } from '../e2e/support/prometheus.js';
import { killBench, readReport, runStrata } from './support/bench-cli.js';

describe('bench remote-write native histograms into Prometheus', { skip: prometheusBinary() === undefined ? 'prometheus not on PATH (Debian package prometheus)' : false }, () => {
  let prom: PrometheusProcess | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'strata-bench-prom-'));
  after(async () => {
    await killBench();
    await prom?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('Prometheus stores the share of series as native histograms, every sample the report counts', async () => {
    prom = await startPrometheus('bench-histograms', () => 'global:\n  scrape_interval: 15s\n', ['--web.enable-remote-write-receiver', '--enable-feature=native-histograms']);
    const json = join(dir, 'nh.json');
    const r = await runStrata(['bench', 'remote-write', '--url', `${prom.base}/api/v1/write`, '--series', '400', '--samples-per-series', '6',
      '--series-per-request', '100', '--histogram-share', '0.25', '--json', json]);
    assert.equal(r.code, 0, r.stderr);
    const run = readReport(json).runs[0]!;
    assert.equal(run.answers.ok, run.totals.requests, JSON.stringify(run.answers));
    assert.equal(run.load!.histogramsWritten, 100 * 6);
    assert.equal(run.load!.samplesWritten, 300 * 6);
    const answer = await prom.query('{__name__=~".+"}[1h]', run.load!.maxTime / 1000 + 1);
    const result = answer.result as unknown as Array<{ values?: unknown[]; histograms?: Array<[number, { count: string }]> }>;
    const histogramSeries = result.filter((s) => s.histograms !== undefined);
    assert.equal(result.length, 400);
    assert.equal(histogramSeries.length, 100);
    assert.equal(histogramSeries.reduce((n, s) => n + s.histograms!.length, 0), 600);
    assert.equal(result.reduce((n, s) => n + (s.values?.length ?? 0), 0), 1800);
    // Counter histograms: a series' count never goes down.
    const counts = histogramSeries[0]!.histograms!.map(([, h]) => Number(h.count));
    for (let i = 1; i < counts.length; i++) assert.ok(counts[i]! >= counts[i - 1]!);
  });
});
