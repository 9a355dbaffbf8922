/**
 * How responsive a target stays under the load (issue 14: "p99 event-loop
 * delay under 20 ms, and /-/ready answers within 50 ms"), watched from
 * outside while the load runs:
 *
 * - before the load: one readiness GET (not counted) opens the probe's
 *   connection and checks that the endpoint answers 200 (else the probe is
 *   left off, with a note); one scrape of /metrics starts the server's
 *   event-loop window (prom-client resets its histogram at every scrape);
 * - during the load: the readiness probe (readiness-probe.ts) on a thread
 *   of its own (readiness-thread.ts), so that the load's sending does not
 *   hold its answers up, with that thread's event-loop delay (the probe's
 *   latencies include it);
 * - after: the probe stops, a second scrape reads the server's delay over
 *   the window (event-loop-metrics.ts).
 *
 * A target without a readiness endpoint or without nodejs_eventloop_lag_*
 * gets null figures and a note saying why; nothing here fails the run.
 */
import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { HttpClientTls } from '../remote-write/options.js';
import { makeAgent } from '../remote-write/post.js';
import type { Responsiveness } from '../report/schema.js';
import { parseEventLoop, type EventLoopReading } from './event-loop-metrics.js';
import { httpGet } from './http-get.js';
import { DEFAULT_PROBE_INTERVAL_MS } from './readiness-probe.js';
import { ProbeThread } from './readiness-thread.js';

export interface ResponsivenessOptions {
  /** The readiness endpoint; undefined: no probe. */
  readyUrl?: URL;
  /** The server's /metrics; undefined: no event-loop figures. */
  metricsUrl?: URL;
  /** The longest the load may take (ms): bounds the probe's count. */
  durationMs: number;
  tls?: HttpClientTls;
  headers?: Record<string, string>;
  intervalMs?: number;
}

/** A scrape takes at most this long (ms). */
const CHECK_TIMEOUT_MS = 10_000;
/** The probe thread's own monitor: prom-client's default resolution, so both loops read alike. */
const PROBE_LOOP_RESOLUTION_MS = 10;

/** One watch over one load: begin() before sending, end() after. */
export class ResponsivenessWatch {
  private readonly notes: string[] = [];
  private probe: ProbeThread | undefined;
  private metricsAgent: http.Agent | undefined;
  private scrapedAt = 0;

  private constructor(private readonly o: ResponsivenessOptions) {}

  /** Checks the endpoints, starts the server's window and the probe. */
  static async begin(o: ResponsivenessOptions): Promise<ResponsivenessWatch> {
    const w = new ResponsivenessWatch(o);
    await w.startMetrics();
    await w.startProbe();
    return w;
  }

  private async startProbe(): Promise<void> {
    const url = this.o.readyUrl;
    if (url === undefined) {
      this.notes.push('readiness not probed (no readiness URL)');
      return;
    }
    const intervalMs = this.o.intervalMs ?? DEFAULT_PROBE_INTERVAL_MS;
    const probe = await ProbeThread.start({
      url: url.href,
      intervalMs,
      maxTicks: Math.ceil(this.o.durationMs / intervalMs) + 2,
      headers: this.o.headers ?? {},
      resolutionMs: PROBE_LOOP_RESOLUTION_MS,
      ...(this.o.tls ? { tls: this.o.tls } : {}),
    });
    if (typeof probe === 'string') this.notes.push(`readiness not probed: ${probe}`);
    else this.probe = probe;
  }

  private async startMetrics(): Promise<void> {
    const url = this.o.metricsUrl;
    if (url === undefined) {
      this.notes.push('server event loop not read (no metrics URL)');
      return;
    }
    const agent = makeAgent(url, 1, this.o.tls);
    const reading = await this.scrape(agent, url);
    if (typeof reading === 'string') {
      this.notes.push(`server event loop not read: ${reading}`);
      agent.destroy();
      return;
    }
    this.metricsAgent = agent;
    this.scrapedAt = performance.now();
  }

  /** The event-loop reading of one scrape, or why there is none. */
  private async scrape(agent: http.Agent, url: URL): Promise<EventLoopReading | string> {
    const r = await httpGet(agent, url, { timeoutMs: CHECK_TIMEOUT_MS, keepBody: true, ...(this.o.headers ? { headers: this.o.headers } : {}) });
    if (r.kind !== 'answer') return `GET ${url.href} ${r.kind === 'network' ? `failed (${r.code})` : 'was cut off'}`;
    if (r.status !== 200) return `GET ${url.href} answered ${r.status}`;
    return parseEventLoop(r.body) ?? `${url.href} has no nodejs_eventloop_lag_p99_seconds (not a Node.js server with prom-client's default metrics)`;
  }

  /** Stops the probe, reads the server's delay over the window; returns the run's `responsiveness`. */
  async end(): Promise<Responsiveness> {
    let readiness: Responsiveness['readiness'] = null;
    let probeEventLoop: Responsiveness['probeEventLoop'] = null;
    if (this.probe !== undefined) {
      const r = await this.probe.stop();
      if (r instanceof Error) this.notes.push(`readiness probe lost: ${r.message}`);
      else ({ readiness, loop: probeEventLoop } = r);
    }
    let serverEventLoop: Responsiveness['serverEventLoop'] = null;
    if (this.metricsAgent !== undefined) {
      const url = this.o.metricsUrl!;
      const reading = await this.scrape(this.metricsAgent, url);
      const windowSeconds = Math.round(performance.now() - this.scrapedAt) / 1000;
      this.metricsAgent.destroy();
      if (typeof reading === 'string') this.notes.push(`server event loop not read after the load: ${reading}`);
      else serverEventLoop = { ...reading.delay, url: url.href, family: reading.family, windowSeconds };
    }
    return { readiness, serverEventLoop, probeEventLoop, notes: this.notes };
  }
}
