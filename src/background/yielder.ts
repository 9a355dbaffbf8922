/**
 * Background work shares the event loop with requests: it yields
 * (setImmediate) whenever it has run for more than its budget, so no turn
 * of the loop is held for more than a few milliseconds.
 */
export class Yielder {
  private last = performance.now();
  private count = 0;

  /**
   * @param budgetMs longest stretch of work between yields
   * @param every units of work between clock reads (reading the clock costs too)
   */
  constructor(
    private readonly budgetMs = 4,
    private readonly every = 256,
  ) {}

  /** Counts `n` units of work; resolves after a yield when the budget is spent, else returns undefined. */
  tick(n = 1): Promise<void> | undefined {
    this.count += n;
    if (this.count < this.every) return undefined;
    this.count = 0;
    if (performance.now() - this.last < this.budgetMs) return undefined;
    return this.yieldNow();
  }

  async yieldNow(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.last = performance.now();
  }
}

/** Runs sorted natively in one go: small enough to take well under a millisecond or two. */
const RUN = 2048;

/**
 * Sorts `items` in place like Array.prototype.sort (stable), yielding to
 * the event loop as it goes: runs of RUN items sorted natively, then merged
 * pairwise, a Yielder deciding when to pause. For sorting a million label
 * sets in the background, which sort() would do in one blocking second.
 */
export async function sortYielding<T>(items: T[], compare: (a: T, b: T) => number, y = new Yielder()): Promise<T[]> {
  const n = items.length;
  for (let from = 0; from < n; from += RUN) {
    const run = items.slice(from, from + RUN).sort(compare);
    for (let i = 0; i < run.length; i++) items[from + i] = run[i]!;
    await y.tick(RUN);
  }
  if (n <= RUN) return items;
  let src = items;
  let dst: T[] = new Array<T>(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        dst[k++] = compare(src[j]!, src[i]!) < 0 ? src[j++]! : src[i++]!;
        if ((k & 1023) === 0) await y.tick(1024);
      }
      while (i < mid) dst[k++] = src[i++]!;
      while (j < hi) dst[k++] = src[j++]!;
      await y.tick(hi - lo);
    }
    [src, dst] = [dst, src];
  }
  if (src !== items) for (let i = 0; i < n; i++) items[i] = src[i]!;
  return items;
}

/**
 * Shares each turn of the event loop between writes whose appends become
 * ready together (several pool answers arrive at once): the first runs at
 * once, later ones too while less than `budgetMs` has passed since the
 * turn's first, and the rest wait for the next turn (setImmediate), so
 * timers and other requests (a readiness probe) are answered in between.
 */
export class TurnBudget {
  private turnStart = 0;
  private inTurn = false;

  constructor(private readonly budgetMs = 8) {}

  /** Undefined when the caller may go on in this turn, else a promise of the next turn. */
  take(): Promise<void> | undefined {
    const now = performance.now();
    if (!this.inTurn) {
      this.inTurn = true;
      this.turnStart = now;
      setImmediate(() => {
        this.inTurn = false;
      });
      return undefined;
    }
    if (now - this.turnStart < this.budgetMs) return undefined;
    return new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.take());
  }
}
