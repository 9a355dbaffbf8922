/**
 * When compactions run: at most one at a time, in the background once a
 * sealed segment passes the garbage ratio, or now when asked.
 */
import { compactWindow, pickWindow, worthCompacting, type CompactionHost } from './compaction.js';
import type { Segment } from './segment.js';

export class Compactor {
  private running: Promise<void> | undefined;
  /** After a failure, wait for the next roll rather than retry in a loop. */
  private paused = false;
  /** Compactions finished. */
  done = 0;

  constructor(private readonly host: CompactionHost, private readonly failed: () => boolean) {}

  /** Starts a background run if `seg` (sealed) is worth compacting. */
  consider(seg: Segment): void {
    if (worthCompacting(seg, seg === this.host.segments[0], this.host.opts.compactRatio)) this.schedule();
  }

  /** A segment was sealed: retry after a failure, and consider it. */
  sealed(seg: Segment): void {
    this.paused = false;
    this.consider(seg);
  }

  /** Starts a background run (it ends at once if nothing is worth it). */
  schedule(): void {
    const { opts } = this.host;
    if (this.running || this.paused || this.host.closing || opts.compactRatio > 1) return;
    this.running = this.run(opts.compactRatio)
      .catch((err: unknown) => {
        this.paused = true;
        opts.logger.error({ err }, 'records: compaction failed');
      })
      .finally(() => { this.running = undefined; });
  }

  /** Compacts every sealed segment holding any garbage, after any run in progress. */
  async now(): Promise<void> {
    // Check and start in one synchronous step, so no background run slips in between.
    while (this.running) await this.running.catch(() => {});
    if (this.host.closing) return;
    this.running = this.run(0);
    try {
      await this.running;
    } finally {
      this.running = undefined;
    }
  }

  /** Resolves when no compaction runs (one in progress sees `closing` and stops early). */
  async idle(): Promise<void> {
    while (this.running) await this.running.catch(() => {});
  }

  private async run(ratio: number): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    // Each pass frees what it finds; under a steady stream of writes there
    // may always be more, so one run stops after about one pass per segment.
    for (let passes = this.host.segments.length + 1; passes > 0; passes--) {
      if (this.host.closing || this.failed()) return;
      const window = pickWindow(this.host.segments, ratio, this.host.opts.segmentBytes);
      if (window === undefined) return;
      if (!(await compactWindow(this.host, window))) return;
      this.done++;
    }
  }
}
