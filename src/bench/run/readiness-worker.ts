/**
 * The readiness probe's thread (a one-thread piscina pool started by
 * readiness-thread.ts): the probe runs here, apart from the thread that
 * sends the load, so that a busy sender does not hold its answers up.
 *
 * The task opens its connection with one GET (not counted). When that is
 * not a 200 it returns at once, saying so. Otherwise it sets `state[1]` to
 * PROBING (and notifies), probes until `state[0]` is set to STOP (checked
 * every STOP_CHECK_MS, a probe in flight then cut off) or its maxTicks
 * have passed, and returns what it saw with this thread's event-loop delay.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { makeAgent } from '../remote-write/post.js';
import type { EventLoopDelay, Readiness } from '../report/schema.js';
import { delayOf } from './event-loop-metrics.js';
import { httpGet } from './http-get.js';
import { ReadinessProbe } from './readiness-probe.js';
import type { HttpClientTls } from '../remote-write/options.js';

/** What the task is given. */
export interface ProbeTask {
  url: string;
  intervalMs: number;
  maxTicks: number;
  headers: Record<string, string>;
  tls?: HttpClientTls;
  /** Of this thread's event-loop monitor (ms). */
  resolutionMs: number;
  /** [0]: STOP when the probe should end; [1]: PROBING once it runs. */
  state: Int32Array;
}

export type ProbeTaskResult =
  | { kind: 'refused'; why: string }
  | { kind: 'done'; readiness: Readiness; loop: EventLoopDelay };

export const STOP = 1;
export const PROBING = 1;
/** How often the stop flag is looked at (ms). */
const STOP_CHECK_MS = 10;
/** The check before probing takes at most this long (ms). */
const CHECK_TIMEOUT_MS = 10_000;

export default async function probeTask(t: ProbeTask): Promise<ProbeTaskResult> {
  const url = new URL(t.url);
  // Structured cloning turns Buffers into Uint8Arrays; TLS wants Buffers.
  const tls = t.tls === undefined ? undefined : {
    ...t.tls,
    ...(t.tls.ca ? { ca: Buffer.from(t.tls.ca) } : {}),
    ...(t.tls.cert ? { cert: Buffer.from(t.tls.cert) } : {}),
    ...(t.tls.key ? { key: Buffer.from(t.tls.key) } : {}),
  };
  const agent = makeAgent(url, 1, tls);
  try {
    const first = await httpGet(agent, url, { timeoutMs: CHECK_TIMEOUT_MS, headers: t.headers });
    if (first.kind !== 'answer' || first.status !== 200) {
      return { kind: 'refused', why: first.kind === 'answer' ? `answered ${first.status}` : first.kind === 'network' ? `failed (${first.code})` : 'was cut off' };
    }
    const monitor = monitorEventLoopDelay({ resolution: t.resolutionMs });
    const probe = new ReadinessProbe({ url, agent, intervalMs: t.intervalMs, maxTicks: t.maxTicks, headers: t.headers });
    monitor.enable();
    probe.start();
    Atomics.store(t.state, 1, PROBING);
    Atomics.notify(t.state, 1);
    // Bounded: the probe ends by itself after maxTicks; the stop flag ends it sooner.
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (Atomics.load(t.state, 0) === STOP || probe.finished) {
          clearInterval(timer);
          resolve();
        }
      }, STOP_CHECK_MS);
    });
    const readiness = await probe.stop();
    monitor.disable();
    return { kind: 'done', readiness, loop: delayOf(monitor) };
  } finally {
    agent.destroy();
  }
}
