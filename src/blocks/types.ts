/**
 * The contract of a block: what is written into one and what is read back.
 * Formats (Prometheus TSDB 2.x, byte-compatible): docs/format/block.md.
 *
 * Times are int64 milliseconds carried as JS numbers (exact within
 * ±2^53). Label sets are flat [name0, value0, name1, value1, ...] arrays,
 * names sorted by UTF-8 bytes and unique, values never empty.
 */

/** One chunk as stored: its encoding and bytes, never re-encoded. */
export interface BlockChunk {
  /** Time of the first and the last sample, inclusive. */
  minT: number;
  maxT: number;
  /** Prometheus' number, as on disk: ENCODING_XOR, ENCODING_HISTOGRAM or ENCODING_FLOAT_HISTOGRAM (src/chunkenc/encoding.ts). */
  encoding: number;
  /**
   * The chunk's bytes. From a reader: a view of a memory map, valid while
   * held (the map outlives the file's deletion), read-only.
   */
  data: Uint8Array;
}

/** A series to write: sorted labels and its chunks in time order, not overlapping. */
export interface BlockSeriesInput {
  labels: readonly string[];
  chunks: readonly BlockChunk[];
}

/** meta.json, "compaction" (Prometheus' BlockMetaCompaction). */
export interface BlockCompaction {
  level: number;
  /** ULIDs of the level-1 blocks this block's data comes from. */
  sources: string[];
  /** Blocks compacted into this one (absent for level 1). */
  parents?: Array<{ ulid: string; minTime: number; maxTime: number }>;
  /** Set by Prometheus when a compaction failed on this block. */
  failed?: boolean;
  deletable?: boolean;
  /** Prometheus' compaction hints, e.g. "from-out-of-order" (sorted). */
  hints?: string[];
}

/** meta.json, "thanos" (Thanos' metadata.Thanos). */
export interface ThanosMeta {
  version?: number;
  labels: Record<string, string>;
  downsample: { resolution: number };
  source: string;
  segment_files?: string[];
  files?: Array<{ rel_path: string; size_bytes?: number }>;
  index_stats?: { series_max_size?: number; chunk_max_size?: number };
  /** When the block was uploaded (RFC 3339 with nanoseconds, UTC), as Thanos' shipper stamps it. */
  upload_time?: string;
}

/** meta.json of a block (version 1), as Prometheus and Thanos write it. */
export interface BlockMeta {
  ulid: string;
  /** First sample's time, inclusive. */
  minTime: number;
  /** Exclusive upper bound: every sample is < maxTime. */
  maxTime: number;
  stats: { numSamples: number; numSeries: number; numChunks: number; numTombstones?: number; numFloatSamples?: number; numHistogramSamples?: number };
  compaction: BlockCompaction;
  version: 1;
  thanos?: ThanosMeta;
}
