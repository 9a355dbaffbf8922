import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { exposeCollector, pageOutSoon, trimSoon } from './collect.js';
import type { TaskMessage, TaskRunner } from './task.js';

/** Run or wait times of the pool's tasks since start, in milliseconds (piscina's histogram summaries). */
export interface TimeSummary {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
}

/** The pool's state, as CodecPool.stats() answers it (read by src/metrics). */
export interface PoolStats {
  /** Worker threads running now (0 while idle). */
  threads: number;
  /** Tasks waiting for a worker. */
  queueSize: number;
  /** Tasks finished since start. */
  completed: number;
  /** Share of the pool's capacity used since start, 0 to 1. */
  utilization: number;
  runTime: TimeSummary;
  waitTime: TimeSummary;
}

export interface CodecPoolOptions {
  /** Most worker threads; defaults to the number of cores. */
  workers?: number;
  /** How long a worker with nothing to do stays before it exits (default {@link WORKER_IDLE_MS}; Infinity: never). */
  idleMs?: number;
}

/**
 * Workers start when tasks come and exit after this long without one. An
 * idle worker holds 14 MiB (its V8 heap, code and WebAssembly instance):
 * an idle store gives that back, and under load the workers stay. A task
 * that finds no worker waits for one to start (about 30 ms) once.
 */
export const WORKER_IDLE_MS = 30_000;

// The worker module (src/worker/main.ts) runs from the same tree as this
// file: .ts under tsx, .js once built. Named by URL, not imported: the pool
// itself knows no task; that module lists them (src/worker/tasks.ts).
const workerExt = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const workerUrl = new URL(`../worker/main${workerExt}`, import.meta.url);

/**
 * A piscina pool whose workers each load the WebAssembly module once and
 * run the tasks listed in src/worker/tasks.ts off the event loop. Each
 * feature calls its task through its own function over {@link TaskRunner},
 * beside the task: e.g. `parseWriteInPool(pool, bytes, opts)` in
 * src/ingest/parse-task.ts, `encodeInPool(pool, batch)` in
 * src/chunkenc/pool-tasks.ts.
 */
export class CodecPool implements TaskRunner {
  private readonly piscina: Piscina;

  constructor(options: CodecPoolOptions = {}) {
    const workers = options.workers ?? availableParallelism();
    if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`workers must be a positive integer, got ${workers}`);
    exposeCollector();
    this.piscina = new Piscina({
      filename: workerUrl.href,
      minThreads: 0,
      maxThreads: workers,
      idleTimeout: options.idleMs ?? WORKER_IDLE_MS,
    });
    this.piscina.on('workerDestroy', () => {
      trimSoon();
      pageOutSoon(() => this.piscina.threads.length === 0);
    });
  }

  /** Most worker threads the pool runs. */
  get threads(): number {
    return this.piscina.options.maxThreads;
  }

  /**
   * Runs `message` in a worker (TaskRunner.run): the buffers of
   * `transferList` are moved there, the rest is copied; the answer belongs
   * to the caller.
   */
  run<A>(message: TaskMessage, transferList: ArrayBuffer[] = []): Promise<A> {
    return this.piscina.run(message, { transferList });
  }

  /** The pool's state for metrics: threads, queue, tasks done, and piscina's run and wait time summaries (ms). */
  stats(): PoolStats {
    const p = this.piscina;
    const { runTime, waitTime } = p.histogram;
    return { threads: p.threads.length, queueSize: p.queueSize, completed: p.completed, utilization: p.utilization, runTime, waitTime };
  }

  /** Waits for running tasks, then stops the workers. */
  async close(): Promise<void> {
    await this.piscina.close();
  }
}
