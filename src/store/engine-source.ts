import type { Db } from '../db/db.js';
import type { ByteArena } from '../query/byte-arena.js';
import type { Querier } from '../query/querier.js';
import type { PlannedSeries, StoredChunk } from '../query/types.js';
import type {
  LabelNamesQuery, LabelValuesQuery, SeriesQuery, SeriesSet, SourceInfo, SourceSeries, StoreSource,
} from './store-source.js';

/**
 * The engine as a Store API source: its blocks and head through one
 * querier, labels as stored (the tenant label is stored with each series).
 */
export class EngineSource implements StoreSource {
  /** `tenantLabel`: --tenant-label-name; Info answers one label set per tenant. */
  constructor(private readonly db: Db, private readonly tenantLabel: string) {}

  /**
   * Plans the whole selection at once (labels only: the index decides it)
   * and yields it as one batch; chunks are read per series as asked. The
   * read holds the head's data (db.holdRead()) from here until close():
   * the answer streams over many turns of the event loop, and blocks
   * written meanwhile must not take data away from it.
   */
  series(query: SeriesQuery): SeriesSet {
    const release = this.db.holdRead();
    try {
      const querier = this.db.querier();
      return new EngineSeriesSet(querier, querier.plan(query.matchers, query.minT, query.maxT), query.minT, query.maxT, release);
    } catch (err) {
      release();
      throw err;
    }
  }

  // The label calls answer within this turn of the event loop: a querier
  // alone suffices, no read is held.
  labelNames(query: LabelNamesQuery): Promise<readonly string[]> {
    return Promise.resolve(this.db.querier().labelNames(query.matchers, query.minT, query.maxT));
  }

  labelValues(query: LabelValuesQuery): Promise<readonly string[]> {
    return Promise.resolve(this.db.querier().labelValues(query.name, query.matchers, query.minT, query.maxT));
  }

  info(): Promise<SourceInfo> {
    const tenants = this.db.querier().labelValues(this.tenantLabel, [], -Infinity, Infinity);
    return Promise.resolve({
      minT: this.db.minTime,
      maxT: this.db.maxTime,
      labels: [],
      labelSets: tenants.map((t) => [this.tenantLabel, t]),
    });
  }
}

/** One engine read: the planned series (PlannedSeries are SourceSeries), their chunks on demand. */
class EngineSeriesSet implements SeriesSet {
  private done = false;
  private released = false;

  constructor(
    private readonly querier: Querier,
    private readonly planned: PlannedSeries[],
    private readonly minT: number,
    private readonly maxT: number,
    private readonly release: () => void,
  ) {}

  next(): Promise<readonly SourceSeries[] | undefined> {
    if (this.done) return Promise.resolve(undefined);
    this.done = true;
    return Promise.resolve(this.planned);
  }

  chunks(series: SourceSeries, arena: ByteArena): readonly StoredChunk[] {
    return this.querier.chunksOf(series as PlannedSeries, this.minT, this.maxT, arena);
  }

  hasSurrogates(): boolean {
    return this.querier.hasSurrogates();
  }

  close(): void {
    if (this.released) return;
    this.released = true;
    this.release();
  }
}
