/**
 * The live progress of a run: on a terminal one line updated in place
 * (done/total, rate, p50/p99, errors, ETA), otherwise a plain line every
 * --progress-interval. Drawn from the recorder on a timer (unref'd, so it
 * never keeps the process alive), stopped with the run.
 */
import { Progress } from './progress.js';
import type { Recorder } from './recorder.js';
import { fmt, ms, seconds } from './format.js';

export interface LiveOptions {
  phase: string;
  recorder: Recorder;
  /** What an item is, plural ("samples", "series"). */
  unit: string;
  /** Requests planned (undefined: bounded by time only). */
  total?: number;
  durationMs: number;
  plainEveryMs: number;
  out?: NodeJS.WriteStream;
}

/** How often the line is redrawn on a terminal. */
const TTY_TICK_MS = 250;

export class LiveProgress {
  private readonly progress: Progress;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: LiveOptions) {
    this.progress = new Progress(o.out ?? process.stderr, o.plainEveryMs);
  }

  /** The status text now. */
  status(): string {
    const { recorder: r, total, durationMs, unit } = this.o;
    r.advance();
    const elapsed = r.elapsed();
    const recent = r.recentRate();
    const rate = Number.isFinite(recent.items) ? recent.items : r.items / Math.max(elapsed, 1e-3);
    const requestRate = Number.isFinite(recent.requests) ? recent.requests : r.requests / Math.max(elapsed, 1e-3);
    const done = r.requests;
    const parts = [total === undefined ? `${fmt(done)} requests` : `${fmt(done)}/${fmt(total)} requests (${fmt((100 * done) / Math.max(total, 1))}%)`];
    parts.push(`${fmt(rate)} ${unit}/s`);
    parts.push(`p50 ${ms(r.latency.quantile(0.5))} ms, p99 ${ms(r.latency.quantile(0.99))} ms`);
    parts.push(`errors ${fmt(r.answers.errors)}`);
    let eta = durationMs / 1000 - elapsed;
    if (total !== undefined && requestRate > 0) eta = Math.min(eta, (total - done) / requestRate);
    parts.push(`ETA ${seconds(Math.max(0, eta))}`);
    return parts.join(', ');
  }

  start(): void {
    const tick = (): void => this.progress.update(this.o.phase, this.status());
    this.timer = setInterval(tick, Math.min(TTY_TICK_MS, this.o.plainEveryMs));
    this.timer.unref();
  }

  /** Stops updating and clears the live line. */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.progress.log(`${this.o.phase}: ${this.status()}`);
  }

  /** Prints a line of its own (clearing the live line first). */
  log(text: string): void {
    this.progress.log(text);
  }
}
