// Strata's event-loop delay on /metrics: prom-client's default gauges
// (nodejs_eventloop_lag_*, under Strata's strata_ prefix), read at every
// scrape from perf_hooks.monitorEventLoopDelay and reset by it, so that
// each scrape tells the delay since the previous one. `strata bench`
// relies on both (src/bench/run/event-loop-metrics.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { parseEventLoop } from '../../src/bench/run/event-loop-metrics.js';
import { StrataMetrics } from '../../src/metrics/index.js';
import { killAll, portOf, spawnServe } from '../support/serve-process.js';

const PARTS = ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99'];
const dirs: string[] = [];

after(async () => {
  await killAll();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Keeps this thread busy for `ms`: the event loop cannot turn meanwhile. */
function block(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* busy */ }
}

describe('event-loop delay on /metrics', () => {
  test('strata serve exposes prom-client\'s eight nodejs_eventloop_lag gauges, prefixed strata_', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'strata-eventloop-'));
    dirs.push(dir);
    const server = spawnServe({ dataDir: join(dir, 'data') });
    const started = await server.line('strata started');
    const base = `http://127.0.0.1:${portOf(started.httpAddress)}`;
    await sleep(300);
    const text = await (await fetch(`${base}/metrics`)).text();
    for (const name of ['strata_nodejs_eventloop_lag_seconds', ...PARTS.map((p) => `strata_nodejs_eventloop_lag_${p}_seconds`)]) {
      assert.match(text, new RegExp(`^# TYPE ${name} gauge$`, 'm'), `${name} is a gauge`);
      assert.match(text, new RegExp(`^${name} [0-9.e+-]+$`, 'm'), `${name} has a value`);
    }
    const reading = parseEventLoop(text);
    assert.equal(reading?.family, 'strata_nodejs_eventloop_lag');
    const d = reading!.delay;
    // An interval of the monitor's 10 ms timer: about 10 ms when idle, never much less.
    assert.ok(d.minMs !== null && d.minMs >= 5, `min ${d.minMs} ms`);
    assert.ok(d.minMs <= d.p50Ms! && d.p50Ms! <= d.p90Ms! && d.p90Ms! <= d.p99Ms! && d.p99Ms! <= d.maxMs!, JSON.stringify(d));
    assert.equal((await server.stop()).code, 0);
  });

  test('each scrape tells the delay since the previous one (the histogram is reset)', async () => {
    const metrics = new StrataMetrics({ version: 'test', ready: () => true });
    await sleep(50);
    await metrics.text(); // starts a window
    // Node's histogram drops the interval under way at a reset: let the timer fire once first.
    await sleep(30);
    block(120);
    await sleep(40);
    const stalled = parseEventLoop(await metrics.text())!.delay;
    assert.ok(stalled.maxMs !== null && stalled.maxMs >= 110, `the 120 ms stall is seen: max ${stalled.maxMs} ms`);
    await sleep(200);
    const calm = parseEventLoop(await metrics.text())!.delay;
    assert.ok(calm.maxMs !== null && calm.maxMs < stalled.maxMs - 30, `the next window has forgotten it: max ${calm.maxMs} ms after ${stalled.maxMs}`);
  });
});
