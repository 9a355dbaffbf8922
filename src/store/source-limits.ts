import { ByteArena } from '../query/byte-arena.js';
import type { StoredChunk } from '../query/types.js';
import { limitExceeded } from '../errors/errors.js';
import type { SeriesSet, SourceSeries, StoreSource } from './store-source.js';

/** --store.limits.request-series and --store.limits.request-samples; 0 means no limit. */
export interface SeriesLimits {
  seriesLimit: number;
  samplesLimit: number;
}

/**
 * Series requests over a limit end ResourceExhausted, naming the limit,
 * before the first frame: the whole selection is read first (every chunk,
 * to count samples), the series with no chunk in the range left out, then
 * both limits are checked, and the answer is all or nothing. Thanos'
 * limiter fails mid-stream instead; ours says how much the request asked
 * for. Without limits this decorator is not there at all, and chunks are
 * read as the answer streams.
 */
export function withLimits(source: StoreSource, limits: SeriesLimits): StoreSource {
  if (!(limits.seriesLimit > 0) && !(limits.samplesLimit > 0)) return source;
  return {
    series: (query) => new LimitedSet(source.series(query), query.skipChunks, limits),
    labelNames: (query) => source.labelNames(query),
    labelValues: (query) => source.labelValues(query),
    info: () => source.info(),
  };
}

/** A series with its chunks read. */
interface ReadSeries extends SourceSeries {
  readonly chunks: readonly StoredChunk[];
}

const NO_CHUNKS: readonly StoredChunk[] = [];

class LimitedSet implements SeriesSet {
  private done = false;

  constructor(private readonly inner: SeriesSet, private readonly skipChunks: boolean, private readonly limits: SeriesLimits) {}

  async next(): Promise<readonly SourceSeries[] | undefined> {
    if (this.done) return undefined;
    this.done = true;
    const arena = new ByteArena();
    const out: ReadSeries[] = [];
    for (let batch = await this.inner.next(); batch !== undefined; batch = await this.inner.next()) {
      for (const s of batch) {
        const chunks = this.skipChunks ? NO_CHUNKS : this.inner.chunks(s, arena);
        if (chunks.length > 0 || this.skipChunks) out.push({ labels: s.labels, chunks });
      }
    }
    this.check(out);
    return out;
  }

  chunks(series: SourceSeries): readonly StoredChunk[] {
    return (series as ReadSeries).chunks;
  }

  hasSurrogates(): boolean {
    return this.inner.hasSurrogates();
  }

  close(): void {
    this.inner.close();
  }

  private check(series: readonly ReadSeries[]): void {
    const { seriesLimit, samplesLimit } = this.limits;
    if (seriesLimit > 0 && series.length > seriesLimit) {
      throw limitExceeded(`exceeded series limit: the request selects ${series.length} series, more than the limit of ${seriesLimit} (--store.limits.request-series)`);
    }
    if (samplesLimit > 0) {
      // A chunk's sample count is its first two bytes (big-endian), in every encoding.
      let samples = 0;
      for (const s of series) for (const c of s.chunks) samples += (c.data[0]! << 8) | c.data[1]!;
      if (samples > samplesLimit) {
        throw limitExceeded(`exceeded samples limit: the request selects ${samples} samples, more than the limit of ${samplesLimit} (--store.limits.request-samples)`);
      }
    }
  }
}
