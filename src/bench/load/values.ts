/**
 * Sample values and timestamps of the node_exporter-like load, scrape by
 * scrape, deterministically: the same catalogue, seed and start give the
 * same bytes on every run and for every server.
 */
import { Model, type Catalogue } from './catalogue.js';

/** Prometheus' usual scrape interval for node_exporter. */
export const SCRAPE_INTERVAL_MS = 15_000;

/** mulberry32: a small, fast, well-mixed 32-bit generator; enough for load shapes. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit mix of two integers (for per-host, per-scrape decisions without state). */
function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h >>> 0;
}

/**
 * The scrape time of `host`'s scrape number `scrape` (ms): the hosts are
 * spread over the interval as Prometheus spreads its targets; a scrape is
 * exactly one interval after the previous one, except that about one in 20
 * starts 1-25 ms late (Prometheus aligns scrape timestamps that are within
 * a small tolerance, so most deltas are exact; the rest cost bits).
 */
export function scrapeTime(start: number, host: number, scrape: number, intervalMs = SCRAPE_INTERVAL_MS): number {
  const phase = mix(host, 0x5eed) % intervalMs;
  const h = mix(host, scrape + 1);
  const late = h % 20 === 0 ? 1 + ((h >>> 8) % 25) : 0;
  return start + scrape * intervalMs + phase + late;
}

/** A value in state units shown as the exporter shows it: ticks / 100, not ticks * 0.01. */
function scaled(state: number, scale: number): number {
  return scale < 1 ? state / Math.round(1 / scale) : state * scale;
}

/**
 * Steps every series' value one scrape at a time. State is kept in state
 * units (value = state * scale), so counters of centiseconds or pages stay
 * exact integers as the kernel reports them.
 */
export class ValueStepper {
  private readonly state: Float64Array;
  private readonly random: () => number;
  private scrape = 0;

  /** `intervalMs`: the time between two scrapes of a target (Prometheus' scrape_interval). */
  constructor(private readonly cat: Catalogue, seed = 42, private readonly intervalMs = SCRAPE_INTERVAL_MS) {
    this.random = mulberry32(seed);
    this.state = new Float64Array(cat.count);
    for (let i = 0; i < cat.count; i++) this.reset(i);
  }

  /** Gives series i a fresh start value (a new series in its slot: churn). */
  reset(i: number): void {
    const { cat } = this;
    const lo = cat.lo[i]!;
    const hi = cat.hi[i]!;
    switch (cat.model[i] as Model) {
      case Model.Counter: this.state[i] = lo + Math.floor(this.random() * lo); break;
      case Model.FloatCounter: this.state[i] = lo * (1 + this.random()); break;
      case Model.Gauge: this.state[i] = lo + Math.floor(this.random() * (hi - lo + 1)); break;
      case Model.FloatGauge: this.state[i] = lo + this.random() * (hi - lo); break;
      default: this.state[i] = lo;
    }
  }

  /**
   * Writes the values of the next scrape into `values` (one per series) and
   * the scrape time of each series' host into `times`.
   */
  next(start: number, values: Float64Array, times: Float64Array): void {
    const { cat, state, random } = this;
    const scrape = this.scrape++;
    const hostTime = new Float64Array(cat.hosts);
    for (let h = 0; h < cat.hosts; h++) hostTime[h] = scrapeTime(start, h, scrape, this.intervalMs);
    for (let i = 0; i < cat.count; i++) {
      const t = hostTime[cat.hostOf[i]!]!;
      times[i] = t;
      const step = cat.step[i]!;
      switch (cat.model[i] as Model) {
        case Model.Counter:
          if (scrape > 0 && step > 0) state[i] = state[i]! + Math.round(step * (0.5 + random()));
          values[i] = scaled(state[i]!, cat.scale[i]!);
          break;
        case Model.FloatCounter:
          if (scrape > 0) state[i] = state[i]! + step * (0.5 + random());
          values[i] = state[i]!;
          break;
        case Model.Gauge:
          if (scrape > 0) state[i] = Math.min(cat.hi[i]!, Math.max(cat.lo[i]!, state[i]! + Math.round(step * (2 * random() - 1))));
          values[i] = scaled(state[i]!, cat.scale[i]!);
          break;
        case Model.FloatGauge:
          if (scrape > 0) state[i] = Math.min(cat.hi[i]!, Math.max(cat.lo[i]!, state[i]! + step * (2 * random() - 1)));
          values[i] = state[i]!;
          break;
        case Model.Clock:
          values[i] = t / 1000;
          break;
        default:
          values[i] = scaled(state[i]!, cat.scale[i]!);
      }
    }
  }
}
