/**
 * What a run measured: every answered request's latency, outcome and work
 * (samples written, or series, frames and bytes received), in total and
 * over time in fixed buckets (one second unless the run is long), from
 * which the progress display, the summary and the reports are drawn.
 * Memory is fixed: two latency histograms and one small record a bucket.
 */
import { performance } from 'node:perf_hooks';
import { Answers, type Outcome } from './answers.js';
import { LatencyHistogram } from './latency-histogram.js';

/** The work one request did; each field counts only what the target took or sent. */
export interface Work {
  /** Remote write: samples (float and histogram) the target took; Store API: series received. */
  items?: number;
  /** Remote write: histogram samples among the items. */
  histograms?: number;
  /** Store API: frames (messages) received. */
  frames?: number;
  /** Bytes sent (remote write) or received (Store API). */
  bytes?: number;
}

/** One bucket of the timeline; counts are of the bucket, `t` is its end in seconds since the start. */
export interface TimelinePoint {
  t: number;
  requests: number;
  errors: number;
  items: number;
  frames: number;
  bytes: number;
  /** Latency percentiles (ms) of the requests answered in the bucket; null when none were. */
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

/** Most buckets a timeline keeps: a run longer than this many seconds gets wider buckets. */
const MAX_BUCKETS = 3600;

/** The bucket width (ms) for a run planned to last `durationMs`. */
export function bucketMsFor(durationMs: number): number {
  return Math.max(1000, Math.ceil(durationMs / MAX_BUCKETS / 1000) * 1000);
}

const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;
const orNull = (x: number): number | null => (Number.isFinite(x) ? round(x) : null);

export class Recorder {
  readonly answers = new Answers();
  readonly latency = new LatencyHistogram();
  readonly timeline: TimelinePoint[] = [];
  requests = 0;
  items = 0;
  histograms = 0;
  frames = 0;
  bytes = 0;
  /** performance.now() at the start (set by start()). */
  t0 = 0;
  /** performance.now() of the last answer. */
  last = 0;
  private readonly bucketLatency = new LatencyHistogram();
  private bucket: TimelinePoint | undefined;
  private bucketIndex = 0;

  constructor(readonly bucketMs = 1000) {}

  start(now = performance.now()): void {
    this.t0 = now;
    this.last = now;
    this.bucket = this.emptyBucket(0);
  }

  private emptyBucket(index: number): TimelinePoint {
    return { t: ((index + 1) * this.bucketMs) / 1000, requests: 0, errors: 0, items: 0, frames: 0, bytes: 0, p50: null, p90: null, p99: null };
  }

  /** Closes the buckets that ended before `now` (also when nothing was answered in them). */
  advance(now = performance.now()): void {
    if (this.bucket === undefined) return;
    const index = Math.floor((now - this.t0) / this.bucketMs);
    // Bounded by the elapsed buckets.
    while (this.bucketIndex < index) {
      this.closeBucket();
      this.bucketIndex++;
      this.bucket = this.emptyBucket(this.bucketIndex);
    }
  }

  private closeBucket(): void {
    const b = this.bucket!;
    const h = this.bucketLatency;
    b.p50 = orNull(h.quantile(0.5));
    b.p90 = orNull(h.quantile(0.9));
    b.p99 = orNull(h.quantile(0.99));
    h.clear();
    this.timeline.push(b);
  }

  /** Counts one answered (or failed) request that took `ms`. */
  record(ms: number, outcome: Outcome, work: Work = {}, now = performance.now()): void {
    this.advance(now);
    const cls = this.answers.count(outcome);
    if (cls === 'aborted') return;
    this.requests++;
    this.last = now;
    this.latency.record(ms);
    this.bucketLatency.record(ms);
    const b = this.bucket!;
    b.requests++;
    if (cls !== 'ok') b.errors++;
    const items = work.items ?? 0;
    const frames = work.frames ?? 0;
    const bytes = work.bytes ?? 0;
    this.items += items;
    this.histograms += work.histograms ?? 0;
    this.frames += frames;
    this.bytes += bytes;
    b.items += items;
    b.frames += frames;
    b.bytes += bytes;
  }

  /** Closes the last, partial bucket; `t` of that bucket becomes the run's end. */
  finish(now = performance.now()): void {
    this.advance(now);
    if (this.bucket === undefined) return;
    const partial = this.bucket;
    this.bucket = undefined;
    if (partial.requests > 0 || this.timeline.length === 0) {
      const h = this.bucketLatency;
      partial.t = round((now - this.t0) / 1000);
      partial.p50 = orNull(h.quantile(0.5));
      partial.p90 = orNull(h.quantile(0.9));
      partial.p99 = orNull(h.quantile(0.99));
      h.clear();
      this.timeline.push(partial);
    }
  }

  /** Seconds from the start to `now`. */
  elapsed(now = performance.now()): number {
    return (now - this.t0) / 1000;
  }

  /** Items a second over the last `seconds` of closed buckets (the live rate). */
  recentRate(seconds = 5): { items: number; requests: number } {
    const n = Math.max(1, Math.round((seconds * 1000) / this.bucketMs));
    const tail = this.timeline.slice(-n);
    if (tail.length === 0) return { items: NaN, requests: NaN };
    // Each point's t is its end; the last one may be partial (finish()), so
    // the span is measured, not counted in whole buckets.
    const before = this.timeline.length > tail.length ? this.timeline[this.timeline.length - tail.length - 1]!.t : 0;
    const span = tail[tail.length - 1]!.t - before;
    if (span <= 0) return { items: NaN, requests: NaN };
    let items = 0;
    let requests = 0;
    for (const p of tail) {
      items += p.items;
      requests += p.requests;
    }
    return { items: items / span, requests: requests / span };
  }
}
