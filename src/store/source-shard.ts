import type { HeadWasm } from '../wasm/head.js';
import type { ByteArena } from '../query/byte-arena.js';
import type { StoredChunk } from '../query/types.js';
import { ShardFilter } from './shard.js';
import type { SeriesQuery, SeriesSet, SourceSeries, StoreSource } from './store-source.js';

/**
 * shard_info, as Thanos (storepb/shard_info.go): a series is answered when
 * xxHash64 of its labels (name 0xFF value 0xFF ..., the labels kept by
 * `by` / `labels`) % total_shards is shard_index; total_shards < 1 shards
 * nothing. The hash is taken over the labels exactly as they will be
 * encoded: this decorator must sit over the one that rewrites labels
 * (external labels in, replica labels out), so that replicas land in one
 * shard and deduplicate. Labels, names and values pass through.
 */
export function withSharding(source: StoreSource, wasm: HeadWasm): StoreSource {
  return {
    series(query: SeriesQuery): SeriesSet {
      const filter = ShardFilter.of(wasm, query.shard);
      if (filter === undefined) return source.series(query);
      try {
        return new ShardedSet(source.series(query), filter);
      } catch (err) {
        filter.close();
        throw err;
      }
    },
    labelNames: (query) => source.labelNames(query),
    labelValues: (query) => source.labelValues(query),
    info: () => source.info(),
  };
}

class ShardedSet implements SeriesSet {
  constructor(private readonly inner: SeriesSet, private readonly filter: ShardFilter) {}

  async next(): Promise<readonly SourceSeries[] | undefined> {
    const batch = await this.inner.next();
    return batch === undefined ? undefined : batch.filter((s) => this.filter.keeps(s.labels));
  }

  chunks(series: SourceSeries, arena: ByteArena): readonly StoredChunk[] {
    return this.inner.chunks(series, arena);
  }

  hasSurrogates(): boolean {
    return this.inner.hasSurrogates();
  }

  close(): void {
    this.filter.close();
    this.inner.close();
  }
}
