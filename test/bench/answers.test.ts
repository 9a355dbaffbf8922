// How `strata bench remote-write` classifies answers (400, 429 with
// Retry-After honoured and the request sent again, 500, 503, a dropped
// connection), what it counts as written, native histograms end to end,
// and Ctrl-C: against a tiny local receiver whose answers are scripted.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ReportSchema } from '../../src/bench/report/schema.js';
import { parseRetryAfter } from '../../src/bench/remote-write/post.js';
import { killBench, readReport, runStrata, startStrata } from './support/bench-cli.js';
import { startWriteTarget, type Answer } from './support/write-target.js';

const checkReport = TypeCompiler.Compile(ReportSchema);

describe('bench remote-write answers', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-bench-answers-'));
  });
  after(async () => {
    await killBench();
    rmSync(dir, { recursive: true, force: true });
  });

  test('reads Retry-After as seconds or as an HTTP date', () => {
    assert.equal(parseRetryAfter('2'), 2000);
    const inThree = parseRetryAfter(new Date(Date.now() + 3000).toUTCString(), Date.now()) ?? 0;
    assert.ok(inThree >= 2000 && inThree <= 3000, String(inThree));
    assert.equal(parseRetryAfter('soon'), undefined);
    assert.equal(parseRetryAfter(undefined), undefined);
  });

  test('classifies 400, 429 (resent after Retry-After), 500, 503 and a dropped connection; counts only what was taken', async () => {
    const script: Record<number, Answer> = {
      0: { status: 400, body: 'out of order sample' },
      1: { status: 429, headers: { 'Retry-After': '1' }, body: 'slow down' },
      // 2: the same request again, taken
      3: { status: 500, body: 'internal' },
      4: 'close',
      5: { status: 503, headers: { 'Retry-After': '1' }, body: 'unavailable' },
    };
    const target = await startWriteTarget((n) => script[n] ?? { status: 204 });
    try {
      const json = join(dir, 'answers.json');
      // 100 series in requests of 10, 2 samples each: 20 requests, one at a time (the script counts arrivals).
      const r = await runStrata(['bench', 'remote-write', '--url', target.url, '--series', '100', '--series-per-request', '10', '--samples-per-series', '2',
        '--concurrency', '1', '--duration', '30s', '--histogram-share', '0.2', '--tenant', 'team-a', '--json', json]);
      assert.equal(r.code, 0, r.stderr);
      const report = readReport(json);
      assert.ok(checkReport.Check(report), JSON.stringify([...checkReport.Errors(report)].slice(0, 3)));
      const run = report.runs[0]!;
      const a = run.answers;
      assert.equal(run.stoppedBy, 'load-sent');
      assert.equal(target.arrivals.length, 21, '20 requests and one resent');
      assert.equal(a.ok, 16);
      assert.deepEqual(a.classes, { '4xx': 1, '429': 1, '5xx': 2, network: 1, grpc: 0, aborted: 0 });
      assert.equal(a.byCode['400'], 1);
      assert.equal(a.byCode['429'], 1);
      assert.equal(a.byCode['500'], 1);
      assert.equal(a.byCode['503'], 1);
      const network = Object.keys(a.byCode).filter((c) => !/^\d+$/.test(c));
      assert.equal(network.length, 1, JSON.stringify(a.byCode));
      assert.match(network[0]!, /^(ECONNRESET|EPIPE)$/);
      assert.equal(a.retries, 1);
      assert.match(a.examples['400']!, /out of order sample/);
      assert.ok(target.arrivals[2]! - target.arrivals[1]! >= 950, `the 429 was resent after Retry-After (${target.arrivals[2]! - target.arrivals[1]!} ms)`);
      assert.equal(run.totals.requests, 21);
      // Only what the target answered 2xx counts as written; histograms included.
      assert.equal(target.taken.requests, 16);
      assert.equal(run.load!.samplesWritten, target.taken.samples);
      assert.equal(run.load!.histogramsWritten, target.taken.histograms);
      assert.equal(run.totals.items, target.taken.samples + target.taken.histograms);
      // A bare receiver: no readiness probe, no event-loop figures, and the notes say why.
      assert.equal(run.responsiveness!.readiness, null);
      assert.equal(run.responsiveness!.serverEventLoop, null);
      assert.match(run.responsiveness!.notes.join('\n'), /readiness not probed: GET http:\/\/127\.0\.0\.1:\d+\/-\/ready answered 404 before the load/);
      assert.match(r.stdout, /readiness not probed/);
      assert.ok(target.taken.histograms > 0, 'native histograms were sent');
      assert.equal(run.load!.histogramsPlanned, 40);
      assert.equal(target.firstHeaders!['thanos-tenant'], 'team-a');
      assert.equal(target.firstHeaders!['content-encoding'], 'snappy');
      assert.equal(target.firstHeaders!['x-prometheus-remote-write-version'], '0.1.0');
      assert.match(r.stdout, /by code: 400 1, 429 1, 500 1, 503 1/);
    } finally {
      await target.close();
    }
  });

  test('exits 1 when no request succeeded', async () => {
    const target = await startWriteTarget(() => ({ status: 401, body: 'who are you' }));
    try {
      const r = await runStrata(['bench', 'remote-write', '--url', target.url, '--series', '20', '--samples-per-series', '2', '--duration', '20s']);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stdout, /401: who are you/);
    } finally {
      await target.close();
    }
  });

  test('Ctrl-C stops the run, prints the summary and writes the partial reports', async () => {
    const target = await startWriteTarget(() => ({ status: 204 }), 5);
    try {
      const json = join(dir, 'partial.json');
      const html = join(dir, 'partial.html');
      let signalled = false;
      // A long, slow run: 200 samples/s for up to 60 s.
      const { child, done } = startStrata(['bench', 'remote-write', '--url', target.url, '--series', '100', '--series-per-request', '10', '--rate', '200',
        '--duration', '60s', '--progress-interval', '1s', '--json', json, '--report', html], (stderr, c) => {
        if (!signalled && /remote-write: [1-9][\d,]*\/[\d,]+ requests/.test(stderr)) {
          signalled = true;
          c.kill('SIGINT');
        }
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const r = await done;
      clearTimeout(timer);
      assert.ok(signalled, `no progress line:\n${r.stderr}`);
      assert.equal(r.code, 130, r.stderr);
      assert.match(r.stdout, /interrupted \(Ctrl-C\): partial results/);
      const run = readReport(json).runs[0]!;
      assert.equal(run.interrupted, true);
      assert.equal(run.stoppedBy, 'interrupt');
      assert.ok(run.totals.requests > 0 && run.totals.requests < run.load!.requestsPlanned, `${run.totals.requests} of ${run.load!.requestsPlanned}`);
      assert.ok(run.seconds < 30);
      assert.equal(run.load!.samplesWritten, target.taken.samples);
      assert.ok(existsSync(html));
      assert.match(readFileSync(html, 'utf8'), /interrupt/);
    } finally {
      await target.close();
    }
  });
});
