import { PrometheusApiError, prometheusLowestTimestamp, prometheusStatus, type PrometheusStatus } from './prometheus-client.js';

export interface PeerLog {
  info(o: object, msg: string): void;
  warn(o: object, msg: string): void;
}

/**
 * What the sidecar knows of the Prometheus beside it, kept current by a
 * heartbeat as Thanos' sidecar keeps it: every interval its configuration
 * (external labels), flags and oldest sample are read again; a failed read
 * marks Prometheus down (the sidecar not ready) until one succeeds, while
 * the last labels read stay in use.
 */
export class PrometheusPeer {
  private status: PrometheusStatus | undefined;
  private lowest: number | undefined;
  private up = false;
  private why = 'Prometheus has not answered yet';
  private timer: NodeJS.Timeout | undefined;
  private readonly changeListeners: Array<(labels: ReadonlyArray<readonly [string, string]>) => void> = [];

  constructor(readonly url: string, private readonly log: PeerLog, private readonly timeoutMs: number) {}

  /** Whether the last read succeeded. */
  get prometheusUp(): boolean {
    return this.up;
  }

  /** Why Prometheus counts as down (meaningless while up). */
  get reason(): string {
    return this.why;
  }

  /** The last status read; undefined before the first success. */
  get last(): PrometheusStatus | undefined {
    return this.status;
  }

  /** Prometheus' external labels as last read, sorted by name. */
  get externalLabels(): ReadonlyArray<readonly [string, string]> {
    return this.status?.externalLabels ?? [];
  }

  /** Prometheus' oldest sample (ms) as last read. */
  get lowestTimestamp(): number | undefined {
    return this.lowest;
  }

  /** Called when the external labels read differ from the ones before. */
  onLabelsChange(fn: (labels: ReadonlyArray<readonly [string, string]>) => void): void {
    this.changeListeners.push(fn);
  }

  /** One read; resolves with whether it succeeded. */
  async refresh(): Promise<boolean> {
    try {
      const signal = AbortSignal.timeout(this.timeoutMs);
      const [status, lowest] = await Promise.all([prometheusStatus(this.url, signal), prometheusLowestTimestamp(this.url, signal)]);
      const before = this.status?.externalLabels;
      this.status = status;
      this.lowest = lowest;
      if (!this.up) this.log.info({ prometheus: this.url, externalLabels: Object.fromEntries(status.externalLabels) }, 'Prometheus answers');
      this.up = true;
      if (before !== undefined && JSON.stringify(before) !== JSON.stringify(status.externalLabels)) {
        this.log.warn({ before: Object.fromEntries(before), now: Object.fromEntries(status.externalLabels) }, 'Prometheus\' external labels changed');
        for (const fn of this.changeListeners) fn(status.externalLabels);
      }
      return true;
    } catch (err) {
      const message = err instanceof PrometheusApiError ? err.message : `${(err as Error).message}${(err as { cause?: Error }).cause ? `: ${(err as { cause: Error }).cause.message}` : ''}`;
      if (this.up || !this.why.endsWith(message)) this.log.warn({ prometheus: this.url, err: message }, 'Prometheus does not answer');
      this.up = false;
      this.why = `Prometheus at ${this.url} does not answer: ${message}`;
      return false;
    }
  }

  /** Reads again every `intervalMs` until stop(). */
  start(intervalMs: number): void {
    const tick = (): void => {
      void this.refresh().finally(() => {
        if (this.timer !== undefined) this.timer = setTimeout(tick, intervalMs).unref();
      });
    };
    this.timer = setTimeout(tick, intervalMs).unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
