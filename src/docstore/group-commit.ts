/**
 * Group commit: every write asks for a sync; all the asks that arrive
 * while a sync is in flight share the next one. The first ask after an idle
 * spell waits for setImmediate, so that the writes of one event-loop turn
 * (a burst of requests read in one poll) share a sync too.
 */

interface Round {
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class GroupCommit {
  private next: Round | undefined;
  private running: Promise<void> | undefined;
  private failure: { err: unknown } | undefined;
  /** Syncs run so far. */
  rounds = 0;

  /**
   * @param sync makes every write made before it was called durable.
   * @param onFailure told once when a sync fails; every waiter is rejected
   *   and every later ask fails too.
   */
  constructor(
    private readonly sync: () => Promise<void>,
    private readonly onFailure: (err: unknown) => void,
  ) {}

  /** Resolves after a sync that began after this call. */
  request(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure.err);
    if (this.next === undefined) {
      let resolve!: () => void;
      let reject!: (err: unknown) => void;
      const promise = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
      this.next = { promise, resolve, reject };
      if (this.running === undefined) this.running = new Promise<void>((r) => setImmediate(r)).then(() => this.run());
    }
    return this.next.promise;
  }

  /** Resolves when no sync is pending or running. */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  private async run(): Promise<void> {
    for (let round = this.next; round !== undefined; round = this.next) {
      this.next = undefined;
      try {
        await this.sync();
        this.rounds++;
      } catch (err) {
        this.failure = { err };
        round.reject(err);
        // Asks made during the failed sync fail with it.
        (this.next as Round | undefined)?.reject(err);
        this.next = undefined;
        this.running = undefined;
        this.onFailure(err);
        return;
      }
      round.resolve();
    }
    this.running = undefined;
  }
}
