/**
 * Latencies in log-spaced buckets: 1% relative precision from 1 µs to
 * about 17 minutes in a fixed 2,100 buckets, so a run of any length keeps
 * the same small memory (an HDR histogram's idea; written here rather than
 * taken as a dependency because it is 50 lines and the tool may add only
 * one runtime dependency, its charting library).
 */

/** Smallest latency told apart (ms); anything below counts here. */
const MIN_MS = 0.001;
/** Each bucket is this much wider than the one before: 1% precision. */
const RATIO = 1.01;
const LOG_RATIO = Math.log(RATIO);
const BUCKETS = 2100; // 0.001 ms * 1.01^2100 ≈ 1.2e6 ms

export class LatencyHistogram {
  private readonly counts = new Float64Array(BUCKETS);
  count = 0;
  sum = 0;
  max = 0;

  /** Counts one latency (ms). */
  record(ms: number): void {
    const i = ms <= MIN_MS ? 0 : Math.min(BUCKETS - 1, Math.floor(Math.log(ms / MIN_MS) / LOG_RATIO));
    this.counts[i]!++;
    this.count++;
    this.sum += ms;
    if (ms > this.max) this.max = ms;
  }

  /** The latency (ms) at quantile q (0..1), to 1%; NaN when empty. */
  quantile(q: number): number {
    if (this.count === 0) return NaN;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < BUCKETS; i++) {
      seen += this.counts[i]!;
      // The bucket's middle (geometric), but never past the largest seen.
      if (seen >= rank) return Math.min(this.max, MIN_MS * RATIO ** (i + 0.5));
    }
    return this.max;
  }

  mean(): number {
    return this.count === 0 ? NaN : this.sum / this.count;
  }

  /** Empties it for reuse. */
  clear(): void {
    this.counts.fill(0);
    this.count = 0;
    this.sum = 0;
    this.max = 0;
  }
}
