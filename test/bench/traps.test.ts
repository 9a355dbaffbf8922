// `strata bench remote-write` without traps (issue 28): exact rates, a run
// that wrote nothing says so and fails, --duration alone sets the length of
// the load, and a second run against the same server is not refused as out
// of order. Against a real `strata serve` on 127.0.0.1 (built code:
// `npm run build:ts` first).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Recorder } from '../../src/bench/run/recorder.js';
import { seconds } from '../../src/bench/run/format.js';
import { killAll, portOf, spawnServe, type ServeProcess } from '../support/serve-process.js';
import { killBench, readReport, runStrata } from './support/bench-cli.js';

/** A port nothing listens on: taken from the kernel, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('bench progress rates', () => {
  test('the live rate of a run that ended inside a second counts the partial second as it was', () => {
    const r = new Recorder(1000);
    r.start(0);
    // 3,000,000 samples in 2.4 s: 1000 requests of 3000.
    for (let i = 0; i < 1000; i++) r.record(1, { kind: 'ok' }, { items: 3000 }, 1 + i * 2.399);
    r.finish(2400);
    const rate = r.recentRate();
    assert.equal(Math.round(rate.items), 1_250_000);
  });

  test('durations under a minute keep their tenths', () => {
    assert.equal(seconds(2.4), '2.4 s');
    assert.equal(seconds(0.3), '0.3 s');
    assert.equal(seconds(125), '2 min 05 s');
  });
});

describe('strata bench remote-write traps', () => {
  let dir: string;
  let server: ServeProcess;
  let write: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-bench-traps-'));
    server = spawnServe({ dataDir: join(dir, 'data') });
    const started = await server.line('strata started');
    write = `http://127.0.0.1:${portOf(started.httpAddress)}/api/v1/write`;
  });
  after(async () => {
    await killBench();
    await server?.stop();
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a run against a closed port says nothing was written and exits 1', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/api/v1/write`;
    const json = join(dir, 'closed.json');
    const r = await runStrata(['bench', 'remote-write', '--url', url, '--series', '100', '--samples-per-series', '2', '--ready-url', 'none', '--metrics-url', 'none', '--json', json], 60_000);
    assert.equal(r.code, 1, r.stderr);
    assert.doesNotMatch(r.stdout, /the whole load was sent/);
    assert.match(r.stdout, /stopped because every request was tried and none succeeded/);
    assert.match(r.stdout, /note: nothing was written: none of the 2 requests sent succeeded/);
    assert.match(r.stdout, /ECONNREFUSED 2/);
    const run = readReport(json).runs[0]!;
    assert.equal(run.answers.ok, 0);
    assert.equal(run.answers.classes.network, 2);
  });

  test('--duration alone sets the length of the load: 2000 series for 2 s last 2 s, not 120 samples a series', async () => {
    const json = join(dir, 'duration.json');
    const r = await runStrata(['bench', 'remote-write', '--url', write, '--series', '2000', '--duration', '2s', '--json', json], 120_000);
    assert.equal(r.code, 0, r.stderr);
    const run = readReport(json).runs[0]!;
    assert.equal(run.stoppedBy, 'duration');
    assert.ok(run.seconds >= 1.9, `${run.seconds} s`);
    assert.ok(run.load!.samplesPerSeries > 120, `${run.load!.samplesPerSeries} samples a series`);
    assert.ok(run.answers.ok > 0);
  });

  test('a second run against the same server starts after the first one\'s samples and is not refused', async () => {
    const flags = ['bench', 'remote-write', '--url', write, '--profile', 'kube', '--series', '300', '--samples-per-series', '4', '--series-per-request', '100'];
    const first = await runStrata([...flags, '--json', join(dir, 'first.json')], 60_000);
    assert.equal(first.code, 0, first.stderr);
    const second = await runStrata([...flags, '--json', join(dir, 'second.json')], 60_000);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /just after the last sample an earlier run sent to/);
    const a = readReport(join(dir, 'first.json')).runs[0]!;
    const b = readReport(join(dir, 'second.json')).runs[0]!;
    assert.ok(b.load!.minTime > a.load!.maxTime, `${b.load!.minTime} after ${a.load!.maxTime}`);
    assert.equal(b.answers.ok, b.totals.requests, JSON.stringify(b.answers));
    assert.equal(b.load!.samplesWritten, 1200);
  });
});
