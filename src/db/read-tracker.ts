/**
 * Reads that span turns of the event loop, by epoch. The head bumps the
 * epoch when a block is added and then waits until every read begun in an
 * earlier epoch has ended before it lets go of that block's data: such a
 * read does not see the block and still reads the head.
 */
export class ReadTracker {
  private current = 0;
  private readonly open = new Map<number, number>();
  private waiters: Array<() => void> = [];

  /** The epoch reads begin in now; moving to the next one is what `drained` is asked about. */
  get epoch(): number {
    return ++this.current;
  }

  /** Marks a read as running; call the returned function (once) when it ends. */
  hold(): () => void {
    const e = this.current;
    this.open.set(e, (this.open.get(e) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = this.open.get(e)! - 1;
      if (n === 0) this.open.delete(e);
      else this.open.set(e, n);
      const ws = this.waiters;
      this.waiters = [];
      for (const w of ws) w();
    };
  }

  /** Resolves true once no read begun before `epoch` runs, or false after `timeoutMs`. */
  async drained(epoch: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.runningBefore(epoch)) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 1000));
        t.unref();
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return true;
  }

  private runningBefore(epoch: number): boolean {
    for (const e of this.open.keys()) if (e < epoch) return true;
    return false;
  }
}
