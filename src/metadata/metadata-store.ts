import { compareUtf8 } from '../index/index.js';
import type { MetricMetadataEntry } from './metric-metadata.js';

/** Metadata as Prometheus' API answers it: type, help, unit. */
export interface Meta {
  type: string;
  help: string;
  unit: string;
}

/**
 * How many metric families (over all tenants) are remembered. A
 * node_exporter exposes about 300, a Kubernetes cluster's targets a few
 * thousand; past this the family told about least recently is forgotten.
 * About 200 bytes a family: 20 MB at most.
 */
export const MAX_METADATA_FAMILIES = 100_000;

/** One family's metadata as held: what it was last told to be. */
export interface HeldMetadata {
  readonly tenant: string;
  readonly family: string;
  readonly type: string;
  readonly help: string;
  readonly unit: string;
}

/**
 * Metric metadata from remote write, per tenant and metric family: the
 * latest told wins (senders repeat it, every minute in 1.0 and with every
 * series in 2.0), and at most `maxFamilies` are held, the least recently
 * told forgotten first. In memory only: it does not survive a restart,
 * and senders tell it again within their metadata interval.
 */
export class MetadataStore {
  /** By tenant + "\xff" + family, in the order last told (Map order: delete and set again moves to the end). */
  private readonly byKey = new Map<string, HeldMetadata>();

  constructor(private readonly maxFamilies = MAX_METADATA_FAMILIES) {}

  get size(): number {
    return this.byKey.size;
  }

  /** Records what `entries` say, for `tenant`. */
  update(tenant: string, entries: readonly MetricMetadataEntry[]): void {
    for (const e of entries) {
      const key = `${tenant}\xff${e.family}`;
      const held = this.byKey.get(key);
      if (held !== undefined) {
        if (held.type === e.type && held.help === e.help && held.unit === e.unit) {
          this.byKey.delete(key);
          this.byKey.set(key, held);
          continue;
        }
        this.byKey.delete(key);
      }
      this.byKey.set(key, { tenant, family: e.family, type: e.type, help: e.help, unit: e.unit });
      if (this.byKey.size > this.maxFamilies) this.byKey.delete(this.byKey.keys().next().value!);
    }
  }

  /**
   * Families (of `tenant`, or of every tenant when undefined; only
   * `metric` when given) by name, sorted, each with its distinct metadata;
   * at most `limit` families (none when negative, as Prometheus' API).
   */
  byFamily(opts: { tenant?: string; metric?: string; limit: number }): Map<string, Meta[]> {
    const byFamily = new Map<string, Meta[]>();
    const query = { ...(opts.tenant === undefined ? {} : { tenant: opts.tenant }), ...(opts.metric === undefined ? {} : { family: opts.metric }) };
    for (const m of this.entries(query)) {
      let list = byFamily.get(m.family);
      if (list === undefined) byFamily.set(m.family, (list = []));
      if (!list.some((x) => x.type === m.type && x.help === m.help && x.unit === m.unit)) list.push({ type: m.type, help: m.help, unit: m.unit });
    }
    const names = [...byFamily.keys()].sort(compareUtf8);
    const kept = opts.limit >= 0 ? names.slice(0, opts.limit) : names;
    return new Map(kept.map((n) => [n, byFamily.get(n)!]));
  }

  /** Every family held (of `tenant` only, when given), optionally only `family`; in no particular order. */
  *entries(opts: { tenant?: string; family?: string } = {}): IterableIterator<HeldMetadata> {
    const { tenant, family } = opts;
    if (tenant !== undefined && family !== undefined) {
      const held = this.byKey.get(`${tenant}\xff${family}`);
      if (held !== undefined) yield held;
      return;
    }
    for (const held of this.byKey.values()) {
      if (tenant !== undefined && held.tenant !== tenant) continue;
      if (family !== undefined && held.family !== family) continue;
      yield held;
    }
  }
}
