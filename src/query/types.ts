import type { ByteArena } from './byte-arena.js';
import type { LabelMatcher } from '../index/types.js';

/** A chunk as stored: raw bytes in their encoding, never re-encoded. */
export interface StoredChunk {
  /** Times of the first and last sample, inclusive. */
  minT: number;
  maxT: number;
  /** Prometheus' chunk encoding number (1 XOR, 2 histogram, 3 float histogram); absent means XOR. */
  encoding?: number;
  /**
   * The chunk's bytes, read-only. For a closed chunk a view of a memory
   * map, readable for as long as it is held (a map outlives the deletion
   * of its file); for the head's open chunk a copy.
   */
  data: Uint8Array;
}

/** A series with its chunks read. */
export interface SelectedSeries {
  /** [name, value, ...] in name order. */
  labels: readonly string[];
  /** Chunks overlapping the range, by min time; empty with skipChunks. */
  chunks: StoredChunk[];
}

export interface SelectOptions {
  /** Labels only: chunks are not read (series still need data in the range). */
  skipChunks?: boolean;
}

/**
 * One reader's part of a series: what the reader needs to read its chunks
 * later. Valid while the reader is (blocks: until closed; the head: until
 * the series leaves it, after which it reads as no chunks).
 */
export interface SeriesPart {
  readonly reader: SeriesReader;
  readonly handle: unknown;
}

/**
 * A series of a reader, labels as stored, with the reader itself: the
 * querier plans a series held by one reader as this very object.
 */
export interface ReaderSeries {
  labels: readonly string[];
  reader: SeriesReader;
  handle: unknown;
}

/**
 * A source of series over a time range: the head or one block. Every
 * method answers from one consistent moment (one writer, same thread).
 */
export interface SeriesReader {
  /** Oldest and newest sample times held, inclusive; Infinity / -Infinity when empty. */
  readonly minTime: number;
  readonly maxTime: number;
  /** Whether label strings may hold surrogates (then native string order is not UTF-8 byte order). */
  hasSurrogates(): boolean;
  /**
   * Series matching every matcher (none: every series) that hold a chunk
   * overlapping [minT, maxT], sorted by labels (UTF-8 byte order). Throws
   * InvalidMatcherError before any work for a bad matcher.
   */
  series(matchers: readonly LabelMatcher[], minT: number, maxT: number): ReaderSeries[];
  /**
   * The chunks of a series of this reader overlapping [minT, maxT], in
   * time order; copies of open chunks go to `arena` (a TransientArena
   * answers views instead, valid until the event loop turns).
   */
  chunks(handle: unknown, minT: number, maxT: number, arena: ByteArena): StoredChunk[];
  /** Label names of the matching series with data in the range, sorted by UTF-8 bytes. */
  labelNames(matchers: readonly LabelMatcher[], minT: number, maxT: number): string[];
  /**
   * Values of `name` among the matching series with data in the range,
   * sorted by UTF-8 bytes. Not to be modified: a reader may answer its own
   * cached array (frozen), the same one for as long as it holds.
   */
  labelValues(name: string, matchers: readonly LabelMatcher[], minT: number, maxT: number): readonly string[];
}

/**
 * A series of the merged view: its labels and its parts, oldest reader
 * first. The first part is held in the object itself: a series only one
 * reader holds is planned as that reader's ReaderSeries, so a read of ten
 * thousand series allocates no more objects to plan them.
 */
export interface PlannedSeries extends ReaderSeries {
  /** The parts of newer readers, oldest first; absent when only one reader holds the series. */
  more?: SeriesPart[];
}
