/**
 * How a run ends: the first of its duration, its count (the whole load
 * sent, the requested number of calls) and Ctrl-C. The reason is kept for
 * the summary and the reports; a second Ctrl-C leaves at once.
 */
export type StopReason = 'duration' | 'load-sent' | 'requests' | 'interrupt';

/** Exit status after an interrupt (128 + SIGINT), as shells report it. */
export const EXIT_INTERRUPTED = 130;

export class RunStop {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private readonly disposers: Array<() => void> = [];
  reason: StopReason | undefined;

  /** Aborted when the run should stop taking new work. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get stopped(): boolean {
    return this.reason !== undefined;
  }

  /** Stops the run; the first reason wins. */
  stop(reason: StopReason): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.controller.abort(reason);
  }

  /** Stops with 'duration' after `ms`. */
  deadline(ms: number): void {
    this.timer = setTimeout(() => this.stop('duration'), ms);
  }

  /**
   * Ctrl-C (SIGINT) stops the run, which then prints and writes its partial
   * report; a second one exits at once with status 130.
   */
  catchInterrupt(onFirst?: () => void): void {
    const handler = (): void => {
      if (this.stopped && this.reason === 'interrupt') process.exit(EXIT_INTERRUPTED);
      onFirst?.();
      this.reason = undefined; // an interrupt overrides a stop already under way
      this.stop('interrupt');
    };
    process.on('SIGINT', handler);
    this.disposers.push(() => process.off('SIGINT', handler));
  }

  /** Clears the timer and the signal handler. */
  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    for (const d of this.disposers.splice(0)) d();
  }
}
