/**
 * The readiness probe on a thread of its own (readiness-worker.ts, run by
 * a one-thread piscina pool), so that its requests and timers do not wait
 * behind the load's sending on this thread. start() resolves once the
 * probe's first GET answered 200 (or with why not); stop() ends the probe
 * and returns what it saw and the probe thread's own event-loop delay.
 * Bounded: starting waits at most STEP_TIMEOUT_MS; the probe itself ends
 * after its maxTicks even if never stopped.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Piscina } from 'piscina';
import type { EventLoopDelay, Readiness } from '../report/schema.js';
import { PROBING, STOP, type ProbeTask, type ProbeTaskResult } from './readiness-worker.js';

export type ProbeThreadData = Omit<ProbeTask, 'state'>;

/** Starting (the first GET included) takes at most this long (ms). */
const STEP_TIMEOUT_MS = 30_000;
/** How often the start is looked at (ms). */
const POLL_MS = 5;

// The worker module runs from the same tree as this file: .ts under tsx, .js once built
// (as the codec pool's, src/pool/codec-pool.ts).
const workerExt = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const workerUrl = new URL(`./readiness-worker${workerExt}`, import.meta.url);

export class ProbeThread {
  private constructor(private readonly pool: Piscina, private readonly state: Int32Array, private readonly task: Promise<ProbeTaskResult | Error>) {}

  /** Starts the probe; a string says why it is not probing (the thread has then ended). */
  static async start(data: ProbeThreadData): Promise<ProbeThread | string> {
    const pool = new Piscina({ filename: workerUrl.href, minThreads: 1, maxThreads: 1 });
    const state = new Int32Array(new SharedArrayBuffer(8));
    const task: Promise<ProbeTaskResult | Error> = pool.run({ ...data, state } satisfies ProbeTask).then((r: ProbeTaskResult) => r, (err: Error) => err);
    let settled: ProbeTaskResult | Error | undefined;
    void task.then((r) => { settled = r; });
    // Bounded by STEP_TIMEOUT_MS: the thread says PROBING, or the task ends (refused, failed).
    const deadline = performance.now() + STEP_TIMEOUT_MS;
    while (Atomics.load(state, 1) !== PROBING && settled === undefined && performance.now() < deadline) await sleep(POLL_MS);
    if (Atomics.load(state, 1) === PROBING) return new ProbeThread(pool, state, task);
    const first = settled;
    Atomics.store(state, 0, STOP);
    await pool.destroy();
    if (first instanceof Error) return `the probe thread failed: ${first.message}`;
    if (first?.kind === 'refused') return `GET ${data.url} ${first.why} before the load`;
    return `the probe did not start within ${STEP_TIMEOUT_MS} ms`;
  }

  /** Stops the probe; its figures, or an Error saying why there are none. */
  async stop(): Promise<{ readiness: Readiness; loop: EventLoopDelay } | Error> {
    Atomics.store(this.state, 0, STOP);
    const r = await this.task;
    await this.pool.destroy();
    if (r instanceof Error) return r;
    if (r.kind !== 'done') return new Error(`the probe thread said '${r.kind}'`);
    return { readiness: r.readiness, loop: r.loop };
  }
}
