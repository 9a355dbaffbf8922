// The readiness probe and the event-loop reading of `strata bench`, against
// small servers on 127.0.0.1 that answer slowly, fail, or expose
// prom-client's gauges.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ResponsivenessSchema } from '../../src/bench/report/schema.js';
import { parseEventLoop } from '../../src/bench/run/event-loop-metrics.js';
import { ReadinessProbe } from '../../src/bench/run/readiness-probe.js';
import { ResponsivenessWatch } from '../../src/bench/run/responsiveness.js';

const servers: Server[] = [];
after(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

/** A server on 127.0.0.1; `handle` answers each request (n counts requests from 0). Counts connections too. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse, n: number) => void): Promise<{ base: string; requests: () => number; connections: () => number }> {
  let n = 0;
  let connections = 0;
  const server = createServer((req, res) => handle(req, res, n++));
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => n, connections: () => connections };
}

const agent = (): http.Agent => new http.Agent({ keepAlive: true, maxSockets: 1 });

/** prom-client's event-loop gauges as a server with `prefix` exposes them (values in seconds). */
function gauges(prefix: string, v: { min: number; mean: number; p50: number; p90: number; p99: number; max: number }): string {
  const lines = [`# HELP ${prefix}nodejs_eventloop_lag_seconds Lag of event loop in seconds.`, `# TYPE ${prefix}nodejs_eventloop_lag_seconds gauge`, `${prefix}nodejs_eventloop_lag_seconds 0.004`];
  for (const [part, value] of Object.entries({ ...v, stddev: 0.001 })) {
    lines.push(`# TYPE ${prefix}nodejs_eventloop_lag_${part}_seconds gauge`, `${prefix}nodejs_eventloop_lag_${part}_seconds ${value}`);
  }
  return `${lines.join('\n')}\n`;
}

describe('readiness probe', () => {
  test('counts slow answers and failures by code, and skips the ticks a slow answer overlapped', async () => {
    // Every third probe takes 250 ms; every fourth answers 503.
    const target = await serve((_req, res, n) => {
      const answer = (): void => {
        res.writeHead(n % 4 === 3 ? 503 : 200);
        res.end(n % 4 === 3 ? 'not ready' : 'ready');
      };
      if (n % 3 === 2) setTimeout(answer, 250);
      else answer();
    });
    const probe = new ReadinessProbe({ url: new URL(`${target.base}/-/ready`), agent: agent(), intervalMs: 100, maxTicks: 1000 });
    probe.start();
    await sleep(1500);
    const r = await probe.stop();
    // 1.5 s at 100 ms would be 15 probes; the slow ones (250 ms) skip two ticks each.
    assert.ok(r.probes >= 6 && r.probes <= 12, `${r.probes} probes`);
    const cutOff = target.requests() - r.probes;
    assert.ok(cutOff === 0 || cutOff === 1, `${target.requests()} requests, ${r.probes} probes: only one cut off by stop() goes uncounted`);
    assert.equal(r.ok + r.failures, r.probes);
    assert.ok((r.byCode['503'] ?? 0) >= 1, JSON.stringify(r.byCode));
    assert.equal(r.failures, r.byCode['503']);
    assert.ok(r.slow >= 2, `${r.slow} slow answers`);
    assert.ok((r.latencyMs.max ?? 0) >= 240, `max ${r.latencyMs.max} ms`);
    assert.ok((r.latencyMs.p50 ?? Infinity) < 100, `p50 ${r.latencyMs.p50} ms`);
    assert.equal(r.slowMs, 50);
    assert.equal(target.connections(), 1, 'every probe on one keep-alive connection');
  });

  test('a probe not answered within its timeout fails as "timeout"; stop() ends the loop at once', async () => {
    const target = await serve(() => { /* never answers */ });
    const probe = new ReadinessProbe({ url: new URL(`${target.base}/-/ready`), agent: agent(), intervalMs: 100, timeoutMs: 200, maxTicks: 1000 });
    probe.start();
    await sleep(1000);
    const t0 = Date.now();
    const r = await probe.stop();
    assert.ok(Date.now() - t0 < 100, 'the probe in flight is cut off, not waited for');
    assert.ok(r.probes >= 3 && r.probes <= 5, `${r.probes} probes`);
    assert.equal(r.ok, 0);
    assert.equal(r.byCode.timeout, r.probes);
    assert.equal(r.latencyMs.count, 0, 'no answer, no latency');
  });

  test('stops by itself after maxTicks ticks of the interval', async () => {
    const target = await serve((_req, res) => res.end('ok'));
    const probe = new ReadinessProbe({ url: new URL(`${target.base}/-/ready`), agent: agent(), intervalMs: 10, maxTicks: 5 });
    probe.start();
    await sleep(600);
    assert.equal(probe.finished, true, 'the loop has ended');
    // At most one probe a tick (fewer when a slow answer made it skip ticks).
    assert.ok(target.requests() >= 1 && target.requests() <= 5, `${target.requests()} probes`);
    await sleep(100);
    const r = await probe.stop();
    assert.equal(r.probes, target.requests(), 'none after the loop ended');
    assert.equal(r.ok, r.probes);
  });
});

describe('event-loop gauges', () => {
  test('reads prom-client\'s gauges under any prefix, in ms', () => {
    const text = `# TYPE up gauge\nup 1\n${gauges('strata_', { min: 0.009, mean: 0.0105, p50: 0.0101, p90: 0.011, p99: 0.0312, max: 0.0489 })}`;
    assert.deepEqual(parseEventLoop(text), { family: 'strata_nodejs_eventloop_lag', delay: { minMs: 9, meanMs: 10.5, p50Ms: 10.1, p90Ms: 11, p99Ms: 31.2, maxMs: 48.9 } });
    assert.equal(parseEventLoop(gauges('', { min: 0.01, mean: 0.01, p50: 0.01, p90: 0.01, p99: 0.012, max: 0.02 }))?.family, 'nodejs_eventloop_lag');
  });

  test('none without a p99 gauge; all null for a window without samples (prom-client right after a reset)', () => {
    assert.equal(parseEventLoop('# TYPE go_goroutines gauge\ngo_goroutines 12\nnodejs_eventloop_lag_seconds 0.01\n'), undefined);
    const empty = parseEventLoop(gauges('', { min: 9223372036.854776, mean: NaN, p50: 0, p90: 0, p99: 0, max: 0 }));
    assert.deepEqual(empty?.delay, { minMs: null, meanMs: null, p50Ms: null, p90Ms: null, p99Ms: null, maxMs: null });
  });
});

describe('responsiveness watch', () => {
  const check = TypeCompiler.Compile(ResponsivenessSchema);

  test('probes readiness during the load and reads the server\'s event loop from the scrape after it', async () => {
    let scrapes = 0;
    const target = await serve((req, res) => {
      if (req.url === '/metrics') {
        scrapes++;
        // The scrape before the load shows the startup's stall; the one after, the load's window.
        res.end(scrapes === 1 ? gauges('app_', { min: 0.01, mean: 0.2, p50: 0.01, p90: 0.5, p99: 0.9, max: 1.2 }) : gauges('app_', { min: 0.01, mean: 0.011, p50: 0.0102, p90: 0.012, p99: 0.017, max: 0.026 }));
        return;
      }
      res.end('ready');
    });
    const watch = await ResponsivenessWatch.begin({ readyUrl: new URL(`${target.base}/-/ready`), metricsUrl: new URL(`${target.base}/metrics`), durationMs: 10_000 });
    await sleep(550);
    const x = await watch.end();
    assert.ok(check.Check(x), JSON.stringify([...check.Errors(x)].slice(0, 3)));
    assert.equal(scrapes, 2);
    assert.ok(x.readiness !== null && x.readiness.probes >= 4 && x.readiness.probes <= 7, JSON.stringify(x.readiness));
    assert.equal(x.readiness.failures, 0);
    assert.equal(x.readiness.url, `${target.base}/-/ready`);
    assert.ok(x.serverEventLoop !== null);
    assert.equal(x.serverEventLoop.family, 'app_nodejs_eventloop_lag');
    assert.equal(x.serverEventLoop.p99Ms, 17, 'from the scrape after the load, not the one before');
    assert.equal(x.serverEventLoop.maxMs, 26);
    assert.ok(x.serverEventLoop.windowSeconds >= 0.5 && x.serverEventLoop.windowSeconds < 5, `${x.serverEventLoop.windowSeconds} s`);
    assert.ok(x.probeEventLoop !== null && x.probeEventLoop.p99Ms! >= 5, `the probe thread's loop, at 10 ms: ${JSON.stringify(x.probeEventLoop)}`);
    assert.deepEqual(x.notes, []);
  });

  test('a target without a readiness endpoint or event-loop gauges: null figures and notes saying why', async () => {
    const target = await serve((req, res) => {
      if (req.url === '/metrics') {
        res.end('# TYPE go_goroutines gauge\ngo_goroutines 12\n');
        return;
      }
      res.writeHead(404);
      res.end();
    });
    const watch = await ResponsivenessWatch.begin({ readyUrl: new URL(`${target.base}/-/ready`), metricsUrl: new URL(`${target.base}/metrics`), durationMs: 10_000 });
    await sleep(200);
    const x = await watch.end();
    assert.ok(check.Check(x));
    assert.equal(x.readiness, null);
    assert.equal(x.serverEventLoop, null);
    assert.equal(x.probeEventLoop, null);
    assert.equal(target.requests(), 2, 'one readiness check and one scrape, nothing during the load');
    assert.equal(x.notes.length, 2);
    assert.match(x.notes[0]!, /server event loop not read: .*\/metrics has no nodejs_eventloop_lag_p99_seconds/);
    assert.match(x.notes[1]!, /readiness not probed: GET .*\/-\/ready answered 404 before the load/);
  });
});
