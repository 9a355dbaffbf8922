import type { ByteArena } from '../query/byte-arena.js';
import type { StoredChunk } from '../query/types.js';
import type { SeriesSet, SourceSeries, StoreSource } from './store-source.js';

/**
 * The request's own `limit` (SeriesRequest, LabelNamesRequest and
 * LabelValuesRequest, Thanos 0.32+): at most that many series, names or
 * values, the first ones in answer order; 0 or less: all. It cuts the
 * selection as answered (sorted, sharded), before chunks are read, so a
 * series with no chunk left in the range still counts.
 */
export function withRequestLimit(source: StoreSource): StoreSource {
  return {
    series(query) {
      const inner = source.series(query);
      return query.limit > 0 ? new CutSet(inner, query.limit) : inner;
    },
    labelNames: async (query) => cut(await source.labelNames(query), query.limit),
    labelValues: async (query) => cut(await source.labelValues(query), query.limit),
    info: () => source.info(),
  };
}

function cut<T>(xs: readonly T[], limit: number): readonly T[] {
  return limit > 0 && xs.length > limit ? xs.slice(0, limit) : xs;
}

class CutSet implements SeriesSet {
  constructor(private readonly inner: SeriesSet, private left: number) {}

  async next(): Promise<readonly SourceSeries[] | undefined> {
    if (this.left <= 0) return undefined;
    const batch = await this.inner.next();
    if (batch === undefined) return undefined;
    const out = cut(batch, this.left);
    this.left -= out.length;
    return out;
  }

  chunks(series: SourceSeries, arena: ByteArena): readonly StoredChunk[] {
    return this.inner.chunks(series, arena);
  }

  hasSurrogates(): boolean {
    return this.inner.hasSurrogates();
  }

  close(): void {
    this.inner.close();
  }
}
