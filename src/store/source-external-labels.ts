import { compareLabels, compareLabelsNative } from '../encoding/utf8.js';
import { compareUtf8 } from '../index/index.js';
import type { ByteArena } from '../query/byte-arena.js';
import type { StoredChunk } from '../query/types.js';
import { invalidArgument } from '../errors/errors.js';
import { withoutLabels, type ExternalLabels } from './external-labels.js';
import {
  EMPTY_SERIES_SET,
  type LabelNamesQuery, type LabelValuesQuery, type SeriesQuery, type SeriesSet, type SourceInfo, type SourceSeries, type StoreSource,
} from './store-source.js';

/** The serve flags the external-labels decorator answers by. */
export interface ExternalLabelsOptions {
  /** --label: added to every series answered, winning over stored labels of the same name. */
  externalLabels: ExternalLabels;
  /** --replica-label: when not empty, the only labels without_replica_labels may remove. */
  replicaLabels: ReadonlySet<string>;
  /**
   * A stored label that counts as external (Thanos Receive keeps the
   * tenant label in each tenant's external labels): LabelNames leaves it
   * out when without_replica_labels names it. '' for none (a sidecar).
   */
  tenantLabel: string;
}

/**
 * The source's answers as Thanos' TSDB store gives them (pkg/store/tsdb.go):
 * - matchers on external labels are decided against them first (no match:
 *   an empty answer); a Series request with no other matcher is
 *   InvalidArgument;
 * - external labels are added to every series, to LabelNames and to
 *   LabelValues of their name;
 * - labels named in without_replica_labels (with --replica-label, only
 *   those among them) are removed from the series, the external labels
 *   and the names; LabelValues of a removed label is empty;
 * - series come sorted by their labels as answered: when labels change,
 *   the selection's label sets are re-sorted (stably: series that became
 *   equal keep their stored order) before any chunk is read.
 */
export function withExternalLabels(source: StoreSource, opts: ExternalLabelsOptions): StoreSource {
  return new ExternalLabelsSource(source, opts);
}

class ExternalLabelsSource implements StoreSource {
  private readonly ext: ExternalLabels;

  constructor(private readonly source: StoreSource, private readonly opts: ExternalLabelsOptions) {
    this.ext = opts.externalLabels;
  }

  series(query: SeriesQuery): SeriesSet {
    const drop = this.toDrop(query.withoutReplicaLabels);
    const { matches, rest } = this.ext.decide(query.matchers);
    if (!matches) return EMPTY_SERIES_SET;
    if (rest.length === 0) throw invalidArgument('no matchers specified (excluding external labels)');
    const inner = this.source.series({ ...query, matchers: rest });
    if (this.ext.size === 0 && drop.size === 0) return inner;
    return new RelabelledSet(inner, this.ext, drop);
  }

  async labelNames(query: LabelNamesQuery): Promise<readonly string[]> {
    const { matches, rest } = this.ext.decide(query.matchers);
    if (!matches) return [];
    const stored = await this.source.labelNames({ ...query, matchers: rest });
    // Names come only with data: no data in the range, no names at all.
    if (stored.length === 0) return [];
    // As Thanos' TSDB store: external labels named in without_replica_labels
    // are left out, stored names stay (the tenant label counts as external).
    const drop = this.toDrop(query.withoutReplicaLabels);
    const names = new Set(stored);
    for (const [name] of this.ext.pairs) if (!drop.has(name)) names.add(name);
    if (drop.has(this.opts.tenantLabel)) names.delete(this.opts.tenantLabel);
    return [...names].sort(compareUtf8);
  }

  async labelValues(query: LabelValuesQuery): Promise<readonly string[]> {
    // A label the answer removes has no values (Thanos' TSDB store).
    if (this.toDrop(query.withoutReplicaLabels).has(query.name)) return [];
    const { matches, rest } = this.ext.decide(query.matchers);
    if (!matches) return [];
    const value = this.ext.value(query.name);
    if (value === undefined) return this.source.labelValues({ ...query, matchers: rest });
    // Without matchers (other than on external labels) the store's own
    // value answers, data or not; with them, only when a series matches.
    const some = rest.length === 0 || (await this.anySeries(rest, query));
    return some ? [value] : [];
  }

  async info(): Promise<SourceInfo> {
    const inner = await this.source.info();
    const ext = this.ext;
    let labelSets = inner.labelSets.map((set) => ext.apply(set));
    if (labelSets.length === 0 && ext.size > 0) labelSets = [ext.apply([])];
    return { minT: inner.minT, maxT: inner.maxT, labels: ext.apply(inner.labels), labelSets };
  }

  private async anySeries(matchers: SeriesQuery['matchers'], query: LabelValuesQuery): Promise<boolean> {
    const { minT, maxT, warn } = query;
    const set = this.source.series({ matchers, minT, maxT, skipChunks: true, withoutReplicaLabels: [], shard: undefined, limit: 0, ...(warn === undefined ? {} : { warn }) });
    try {
      for (let batch = await set.next(); batch !== undefined; batch = await set.next()) if (batch.length > 0) return true;
      return false;
    } finally {
      set.close();
    }
  }

  /** The labels without_replica_labels removes: all it names, as Thanos Receive; with --replica-label, only those among them. */
  private toDrop(named: readonly string[]): Set<string> {
    const only = this.opts.replicaLabels;
    const drop = new Set<string>();
    for (const n of named) if (only.size === 0 || only.has(n)) drop.add(n);
    return drop;
  }
}

/** A series with its labels as answered, and the source's series to read chunks from. */
interface Relabelled extends SourceSeries {
  readonly inner: SourceSeries;
}

/**
 * The inner set with labels rewritten, whole and re-sorted: it reads every
 * label set of the inner set (not its chunks) before yielding one batch.
 */
class RelabelledSet implements SeriesSet {
  private done = false;

  constructor(private readonly inner: SeriesSet, private readonly ext: ExternalLabels, private readonly drop: ReadonlySet<string>) {}

  async next(): Promise<readonly SourceSeries[] | undefined> {
    if (this.done) return undefined;
    this.done = true;
    const out: Relabelled[] = [];
    for (let batch = await this.inner.next(); batch !== undefined; batch = await this.inner.next()) {
      for (const s of batch) out.push({ labels: withoutLabels(this.ext.apply(s.labels), this.drop), inner: s });
    }
    // Native string order where no label holds a surrogate: it is UTF-8 order then, and faster.
    const compare = this.hasSurrogates() ? compareLabels : compareLabelsNative;
    out.sort((a, b) => compare(a.labels, b.labels));
    return out;
  }

  chunks(series: SourceSeries, arena: ByteArena): readonly StoredChunk[] {
    return this.inner.chunks((series as Relabelled).inner, arena);
  }

  hasSurrogates(): boolean {
    return this.inner.hasSurrogates() || this.ext.hasSurrogates;
  }

  close(): void {
    this.inner.close();
  }
}
