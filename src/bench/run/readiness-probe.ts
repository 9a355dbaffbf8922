/**
 * Readiness under load: GET a server's readiness endpoint (Strata and
 * Prometheus: /-/ready; VictoriaMetrics: /health) every `intervalMs`, on a
 * keep-alive connection of its own, from start() until stop(), as an
 * orchestrator's readiness probe would while the load runs. Kept: each
 * answer's latency (request start to last byte), and every failure (a
 * status other than 200, a network error, no answer within the timeout).
 *
 * One probe at a time: a probe slower than the interval makes the probe
 * skip the ticks it overlapped rather than queue them behind it, so a
 * stalled server is seen as a few slow answers, not as a pile-up the probe
 * made itself. Bounded: at most `maxTicks` ticks of the interval (skipped
 * ones count), each probe with a timeout; stop()
 * cuts a probe in flight off (not counted) and ends the loop.
 */
import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { latencyJson } from '../report/build.js';
import type { Readiness } from '../report/schema.js';
import { httpGet, type GetResult } from './http-get.js';
import { LatencyHistogram } from './latency-histogram.js';

export interface ReadinessProbeOptions {
  url: URL;
  /** The connection's agent (keep-alive, one socket; TLS as the load's). */
  agent: http.Agent;
  /** Time between two probes' starts (ms); 100 by default. */
  intervalMs?: number;
  /** A probe not answered within this fails as "timeout" (ms); 5000 by default. */
  timeoutMs?: number;
  /** The loop's bound: ticks of the interval, skipped ones included (so at most this many probes). */
  maxTicks: number;
  /** An answer slower than this is counted as slow (ms); 50 by default (issue 14's bound). */
  slowMs?: number;
  headers?: Record<string, string>;
}

/** What the probe saw: the JSON report's `responsiveness.readiness` (schema.ts). */
export type ReadinessJson = Readiness;

export const DEFAULT_PROBE_INTERVAL_MS = 100;
const DEFAULT_PROBE_TIMEOUT_MS = 5000;
const DEFAULT_SLOW_MS = 50;

/** Sleeps `ms` or until `signal` aborts; never rejects. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return;
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    // aborted: the probe is stopping
  }
}

export class ReadinessProbe {
  private readonly latency = new LatencyHistogram();
  private readonly byCode = new Map<string, number>();
  private readonly stopper = new AbortController();
  private readonly intervalMs: number;
  private readonly slowMs: number;
  private probes = 0;
  private ok = 0;
  private slow = 0;
  private loop: Promise<void> | undefined;
  private done = false;

  constructor(private readonly o: ReadinessProbeOptions) {
    this.intervalMs = o.intervalMs ?? DEFAULT_PROBE_INTERVAL_MS;
    this.slowMs = o.slowMs ?? DEFAULT_SLOW_MS;
  }

  /** Starts probing (the first probe at once). */
  start(): void {
    this.loop ??= this.run();
  }

  /** Counts one probe's result. */
  private count(r: GetResult): void {
    if (r.kind === 'aborted') return;
    this.probes++;
    if (r.kind === 'answer') {
      this.latency.record(r.ms);
      if (r.ms > this.slowMs) this.slow++;
      if (r.status === 200) {
        this.ok++;
        return;
      }
    }
    const code = r.kind === 'answer' ? String(r.status) : r.code;
    this.byCode.set(code, (this.byCode.get(code) ?? 0) + 1);
  }

  private async run(): Promise<void> {
    const signal = this.stopper.signal;
    const t0 = performance.now();
    // Bounded by maxTicks; each probe by its timeout.
    for (let tick = 0; tick < this.o.maxTicks && !signal.aborted; tick++) {
      await pause(t0 + tick * this.intervalMs - performance.now(), signal);
      if (signal.aborted) break;
      this.count(await httpGet(this.o.agent, this.o.url, { timeoutMs: this.o.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS, signal, ...(this.o.headers ? { headers: this.o.headers } : {}) }));
      // Ticks that passed while this probe waited for its answer are skipped.
      tick = Math.max(tick, Math.ceil((performance.now() - t0) / this.intervalMs) - 1);
    }
    this.done = true;
  }

  /** Whether the loop has ended by itself (after maxTicks). */
  get finished(): boolean {
    return this.done;
  }

  /** Stops probing (a probe in flight is cut off, not counted) and returns what was seen. */
  async stop(): Promise<ReadinessJson> {
    this.stopper.abort();
    await this.loop;
    return this.toJson();
  }

  toJson(): ReadinessJson {
    return {
      url: this.o.url.href,
      intervalMs: this.intervalMs,
      probes: this.probes,
      ok: this.ok,
      failures: this.probes - this.ok,
      byCode: Object.fromEntries([...this.byCode.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))),
      latencyMs: latencyJson(this.latency),
      slowMs: this.slowMs,
      slow: this.slow,
    };
  }
}
