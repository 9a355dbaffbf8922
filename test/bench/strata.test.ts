// `strata bench remote-write` and `strata bench store-api` against a real
// `strata serve` on 127.0.0.1 (built code: `npm run build:ts` first): what
// the JSON report says was written is what the server holds, and what the
// Store API load counts is what the server has.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { remoteRead } from '../../src/bench/compare/remote-read.js';
import { nodeExporterCatalogue, SERIES_PER_HOST } from '../../src/bench/load/node-exporter.js';
import { ReportSchema, type RunReport } from '../../src/bench/report/schema.js';
import { ReadRequest_ResponseType } from '../../src/gen/prometheus/remote.js';
import { LabelMatcher_Type } from '../../src/gen/prometheus/types.js';
import { killAll, portOf, spawnServe, type ServeProcess } from '../support/serve-process.js';
import { killBench, readReport, runStrata } from './support/bench-cli.js';

const checkReport = TypeCompiler.Compile(ReportSchema);
const SERIES = 1000;

/** A report of 6 answered requests carrying 3 samples of each of SERIES series, all of which the server holds. */
async function assertStoredAsReported(json: string, base: string): Promise<void> {
  const report = readReport(json);
  assert.ok(checkReport.Check(report), JSON.stringify([...checkReport.Errors(report)].slice(0, 3)));
  const run = report.runs[0]!;
  assert.equal(run.stoppedBy, 'load-sent');
  assert.equal(run.answers.ok, 6, JSON.stringify(run.answers));
  assert.equal(run.load!.samplesWritten, 3 * SERIES);
  const all = await remoteRead(`${base}/api/v1/read`, [{ type: LabelMatcher_Type.RE, name: '__name__', value: '.+' }], run.load!.minTime, run.load!.maxTime,
    ReadRequest_ResponseType.SAMPLES, 30_000);
  assert.equal(all.samples, 3 * SERIES, 'the server holds what the report counts');
  assert.equal(all.series, SERIES);
}

describe('strata bench against strata serve', () => {
  let dir: string;
  let server: ServeProcess;
  let base: string;
  let grpc: string;
  let written: RunReport;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-bench-e2e-'));
    server = spawnServe({ dataDir: join(dir, 'data') });
    const started = await server.line('strata started');
    base = `http://127.0.0.1:${portOf(started.httpAddress)}`;
    grpc = `127.0.0.1:${portOf(started.grpcAddress)}`;
  });
  after(async () => {
    await killBench();
    await server?.stop();
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  test('remote-write stops at --duration, and the server holds every sample the report counts as written', async () => {
    const json = join(dir, 'rw.json');
    // 1000 series at 4000 samples/s: 600 scrapes would take 150 s; the run stops after 3 s.
    const r = await runStrata(['bench', 'remote-write', '--url', `${base}/api/v1/write`, '--series', String(SERIES), '--series-per-request', '250',
      '--rate', '4000', '--samples-per-series', '600', '--duration', '3s', '--concurrency', '2', '--json', json, '--progress-interval', '1s'], 60_000);
    assert.equal(r.code, 0, r.stderr);
    const report = readReport(json);
    assert.ok(checkReport.Check(report), JSON.stringify([...checkReport.Errors(report)].slice(0, 3)));
    written = report.runs[0]!;
    assert.equal(written.stoppedBy, 'duration');
    assert.ok(written.seconds >= 2.9 && written.seconds < 10, `${written.seconds} s`);
    assert.equal(written.answers.ok, written.totals.requests, JSON.stringify(written.answers));
    const samples = written.load!.samplesWritten;
    // About 4000 a second for 3 s, in whole requests of 250.
    assert.ok(samples >= 8000 && samples <= 14_000, `${samples} samples`);
    assert.equal(samples % 250, 0);
    assert.equal(written.totals.items, samples);
    assert.ok(written.timeline.length >= 3, `${written.timeline.length} timeline buckets`);
    assert.match(r.stderr, /remote-write: [\d,]+\/[\d,]+ requests/);

    // Responsiveness: /-/ready polled every 100 ms over the 3 s, the server's own event-loop gauges read after.
    const x = written.responsiveness!;
    assert.ok(x.readiness !== null, JSON.stringify(x.notes));
    assert.equal(x.readiness.url, `${base}/-/ready`);
    assert.ok(x.readiness.probes >= 15 && x.readiness.probes <= 32, `${x.readiness.probes} probes`);
    assert.equal(x.readiness.failures, 0, JSON.stringify(x.readiness.byCode));
    assert.ok(x.serverEventLoop !== null, JSON.stringify(x.notes));
    assert.equal(x.serverEventLoop.family, 'strata_nodejs_eventloop_lag');
    assert.ok(x.serverEventLoop.windowSeconds >= 2.9, `${x.serverEventLoop.windowSeconds} s`);
    assert.ok(x.serverEventLoop.minMs! >= 5 && x.serverEventLoop.p99Ms! >= x.serverEventLoop.p50Ms! && x.serverEventLoop.maxMs! >= x.serverEventLoop.p99Ms!, JSON.stringify(x.serverEventLoop));
    assert.match(r.stdout, /readiness GET every 100 ms +\d+ +0 /);
    assert.match(r.stdout, /server event-loop delay \(strata_nodejs_eventloop_lag_\*\)/);

    const all = await remoteRead(`${base}/api/v1/read`, [{ type: LabelMatcher_Type.RE, name: '__name__', value: '.+' }], written.load!.minTime, written.load!.maxTime,
      ReadRequest_ResponseType.SAMPLES, 30_000);
    assert.equal(all.samples, samples, 'the server holds what the report counts');
    assert.equal(all.series, Math.min(SERIES, samples));
  });

  test('store-api counts the series, chunks, names and values the server has, shard by shard', async () => {
    assert.ok(written !== undefined, 'needs the remote-write test first');
    const json = join(dir, 'store.json');
    const start = String(Math.floor(written.load!.minTime / 1000) - 60);
    const end = String(Math.ceil(written.load!.maxTime / 1000) + 60);
    // Concurrency 1 and 10 calls: each of the 5 queries (series, series-skip-chunks, label-names,
    // label-values of two labels) twice, the Series ones once per shard.
    const r = await runStrata(['bench', 'store-api', '--addr', grpc, '--call', 'series,series-skip-chunks,label-names,label-values', '--label', 'instance', '--label', '__name__',
      '--match', '{job="node"}', '--shards', '2', '--start', start, '--end', end, '--requests', '10', '--concurrency', '1', '--duration', '60s', '--json', json], 60_000);
    assert.equal(r.code, 0, r.stderr);
    const report = readReport(json);
    assert.ok(checkReport.Check(report), JSON.stringify([...checkReport.Errors(report)].slice(0, 3)));
    const run = report.runs[0]!;
    assert.equal(run.stoppedBy, 'requests');
    assert.equal(run.totals.requests, 10);
    assert.equal(run.answers.ok, 10, JSON.stringify(run.answers));
    const calls = run.calls!;
    // Two calls of each Series query cover both shards once: every series once.
    assert.equal(calls['series']!.requests, 2);
    assert.equal(calls['series']!.series, SERIES);
    assert.ok(calls['series']!.chunks >= SERIES);
    assert.equal(calls['series-skip-chunks']!.series, SERIES);
    assert.equal(calls['series-skip-chunks']!.chunks, 0);
    const cat = nodeExporterCatalogue(SERIES);
    assert.equal(calls['label-values instance']!.values, 2 * Math.ceil(SERIES / SERIES_PER_HOST));
    const names = new Set<string>();
    for (let i = 0; i < SERIES; i++) names.add(cat.labels(i)[1]!);
    assert.equal(calls['label-values __name__']!.values, 2 * names.size);
    assert.ok(calls['label-names']!.values >= 2 * 4);
    assert.equal(run.totals.items, 2 * SERIES, "both Series queries, each over its two shards");
    assert.ok(run.rates.itemsPerSecond > 0 && run.rates.bytesPerSecond > 0);
  });

  test('remote-write over gRPC (grpc://): the server holds every sample the report counts as written, under the tenant sent in the message', async () => {
    assert.ok(written !== undefined, 'needs the remote-write test first');
    // An hour after the HTTP load, so that the two loads' samples are counted apart.
    const start = Math.ceil(written.load!.maxTime / 1000) + 3600;
    const json = join(dir, 'rw-grpc.json');
    const r = await runStrata(['bench', 'remote-write', '--url', `grpc://${grpc}`, '--series', String(SERIES), '--series-per-request', '500',
      '--samples-per-series', '3', '--start', String(start), '--concurrency', '4', '--json', json], 60_000);
    assert.equal(r.code, 0, r.stderr);
    await assertStoredAsReported(json, base);
    assert.match(r.stdout, /answers: OK 6, gRPC errors 0/);

    // --tenant goes into WriteRequest.tenant: the tenant's reads see the series, the default tenant's do not see more.
    const tenantStart = start + 3600;
    const t = await runStrata(['bench', 'remote-write', '--url', `grpc://${grpc}`, '--series', '10', '--series-per-request', '10', '--samples-per-series', '1',
      '--start', String(tenantStart), '--tenant', 'team-g'], 60_000);
    assert.equal(t.code, 0, t.stderr);
    const names = async (tenant?: string): Promise<string[]> => {
      const q = new URLSearchParams({ start: String(tenantStart - 60), end: String(tenantStart + 60) });
      const res = await fetch(`${base}/api/v1/label/instance/values?${q}`, { headers: tenant === undefined ? {} : { 'THANOS-TENANT': tenant }, signal: AbortSignal.timeout(30_000) });
      return ((await res.json()) as { data: string[] }).data;
    };
    assert.equal((await names('team-g')).length, 1, 'the 10 series of one target, under team-g');
    assert.deepEqual(await names(), [], 'nothing of it under the default tenant');
  });

  test('remote-write --format otlp: the same series and samples as OTLP (gzip), stored as remote write stores them', async () => {
    assert.ok(written !== undefined, 'needs the remote-write test first');
    // Two days after the HTTP load: counted apart from the other tests' samples.
    const start = Math.ceil(written.load!.maxTime / 1000) + 2 * 86_400;
    const json = join(dir, 'rw-otlp.json');
    const r = await runStrata(['bench', 'remote-write', '--format', 'otlp', '--url', `${base}/api/v1/otlp/v1/metrics`, '--series', String(SERIES),
      '--series-per-request', '500', '--samples-per-series', '3', '--start', String(start), '--concurrency', '2', '--json', json], 60_000);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /OTLP: 6 ExportMetricsServiceRequests, [\d.]+ MiB gzip protobuf/);
    await assertStoredAsReported(json, base);
    // Gauges keep their names and attributes: the first series of the catalogue, as remote write sends it.
    const first = nodeExporterCatalogue(SERIES).labels(0);
    const q = new URLSearchParams({ 'match[]': `{__name__="${first[1]!}"}`, start: String(start - 60), end: String(start + 120) });
    const res = await fetch(`${base}/api/v1/series?${q}`, { signal: AbortSignal.timeout(30_000) });
    const series = ((await res.json()) as { data: Array<Record<string, string>> }).data;
    const expected: Record<string, string> = {};
    for (let i = 0; i < first.length; i += 2) expected[first[i]!] = first[i + 1]!;
    assert.ok(series.some((s) => JSON.stringify(s) === JSON.stringify(expected)), `${JSON.stringify(expected)} among ${JSON.stringify(series.slice(0, 3))}`);
  });
});
