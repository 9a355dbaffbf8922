/**
 * The contract every source of the Store API implements: the engine
 * (engine-source.ts) today, a sidecar over a Prometheus beside it next.
 *
 * A source answers its data as it holds it: labels as stored, chunks as
 * stored. It applies no external labels, removes no replica labels, does
 * not shard and checks no limits: thin decorators over this same interface
 * do (store-stack.ts composes them), as Thanos wraps its StoreServer, and
 * store-api.ts turns the decorated source into Store API answers.
 *
 * Conventions for every method:
 * - times are milliseconds since the epoch, both ends inclusive;
 *   -Infinity / Infinity stand for open ends;
 * - a label set is a flat array [name, value, name, value, ...], names
 *   unique and sorted by UTF-8 bytes; callers never modify one;
 * - names and values answered are sorted by UTF-8 bytes, without repeats;
 * - errors a caller can fix are thrown as the typed errors of errors.ts (or
 *   InvalidMatcherError); anything else counts as the source's own fault.
 *
 * @example
 * const set = source.series({ matchers, minT, maxT, skipChunks: false, withoutReplicaLabels: [], shard: undefined, limit: 0 });
 * try {
 *   const arena = new ByteArena();
 *   for (let batch = await set.next(); batch !== undefined; batch = await set.next()) {
 *     for (const s of batch) send(s.labels, set.chunks(s, arena));
 *   }
 * } finally {
 *   set.close();
 * }
 */

import type { LabelMatcher } from '../index/index.js';
import type { ByteArena } from '../query/byte-arena.js';
import type { StoredChunk } from '../query/types.js';

/** A source of series for the Store API: see the file comment. */
export interface StoreSource {
  /**
   * The series matching every matcher (none: every series) that hold data
   * in [minT, maxT]. An invalid request throws here or, where a source
   * learns it later, from the first next(): before any series is yielded.
   * The set must be closed (SeriesSet.close) however it ends.
   */
  series(query: SeriesQuery): SeriesSet;
  /** Label names of the matching series with data in the range. */
  labelNames(query: LabelNamesQuery): Promise<readonly string[]>;
  /** Values of `query.name` among the matching series with data in the range. */
  labelValues(query: LabelValuesQuery): Promise<readonly string[]>;
  /** What Info answers: the time range held and the label sets. */
  info(): Promise<SourceInfo>;
}

/**
 * A selection of series, read batch by batch. Series come sorted by their
 * labels (UTF-8 byte order, then the shorter set first) across all
 * batches; a set may yield series with equal labels (after replica labels
 * were removed), one after the other.
 *
 * The engine answers its whole selection in the first batch (its index
 * decides it at once, without reading a chunk); an asynchronous source
 * (remote read over HTTP) yields what has arrived. Either way, chunks are
 * read per series when asked (chunks()), so a caller that streams can send
 * the first series while later ones are not read yet, and a decorator can
 * reorder series without reading their chunks.
 */
export interface SeriesSet {
  /**
   * The next batch, or undefined once the set is exhausted. A batch may be
   * empty; the array is the set's, valid until the set is closed, and not
   * to be modified. Not called again before the previous call settled.
   */
  next(): Promise<readonly SourceSeries[] | undefined>;
  /**
   * The chunks of a series this set yielded that overlap the query's
   * range, by min time, as stored (chunks may reach past the range; the
   * querier trims). Empty where the series has none left (or skipChunks).
   * A chunk's bytes are valid until the set is closed: a view of a memory
   * map held open by the set, or a copy made into `arena` (the caller's,
   * kept for as long as it keeps the chunks; a TransientArena, which
   * copies nothing, makes them valid only until the caller yields the
   * event loop). A source whose chunks arrive asynchronously fetches them
   * before yielding the batch.
   */
  chunks(series: SourceSeries, arena: ByteArena): readonly StoredChunk[];
  /**
   * Whether any label of the set may hold a UTF-16 surrogate, where the
   * native string order is not UTF-8 byte order (see compareLabelsNative).
   * A source that cannot tell answers true.
   */
  hasSurrogates(): boolean;
  /**
   * Ends the read and lets go of what it held (an engine read holds the
   * head's data and memory maps until then). Idempotent; called on every
   * path, also after an error and before the set is exhausted.
   */
  close(): void;
}

/** A series of a set; a source may hand out its own richer objects (the engine's PlannedSeries). */
export interface SourceSeries {
  readonly labels: readonly string[];
}

/** thanos.ShardInfo: which part of the answer a request wants. */
export interface ShardInfo {
  readonly shardIndex: bigint;
  readonly totalShards: bigint;
  /** true: hash only the labels named; false: all but those named. */
  readonly by: boolean;
  readonly labels: readonly string[];
}

/** A Series request, decoded. */
export interface SeriesQuery {
  readonly matchers: readonly LabelMatcher[];
  readonly minT: number;
  readonly maxT: number;
  /** Label sets only: chunks() is not called (series still need data in the range). */
  readonly skipChunks: boolean;
  // Answered by decorators; a source ignores them.
  /** without_replica_labels: labels to remove from the answer (external-labels decorator). */
  readonly withoutReplicaLabels: readonly string[];
  /** shard_info (shard decorator); undefined: not sharded. */
  readonly shard: ShardInfo | undefined;
  /** At most this many series (request-limit decorator); 0: all. */
  readonly limit: number;
  /**
   * Where a source reports what its answer lacks without failing (a
   * Prometheus beside a sidecar that did not answer): sent to the client
   * as Store API warnings. Absent: nobody listens.
   */
  readonly warn?: (message: string) => void;
}

/** A LabelNames request, decoded. */
export interface LabelNamesQuery {
  readonly matchers: readonly LabelMatcher[];
  readonly minT: number;
  readonly maxT: number;
  // Answered by decorators; a source ignores them.
  readonly withoutReplicaLabels: readonly string[];
  /** At most this many names; 0: all. */
  readonly limit: number;
  /** As SeriesQuery.warn. */
  readonly warn?: (message: string) => void;
}

/** A LabelValues request, decoded; `name` is not empty. */
export interface LabelValuesQuery extends LabelNamesQuery {
  readonly name: string;
}

/** What a source tells Info. */
export interface SourceInfo {
  /** Oldest and newest sample held; an empty source answers Infinity, -Infinity. */
  readonly minT: number;
  readonly maxT: number;
  /** The source's own labels (Store/Info's deprecated `labels`): none for a source; the external labels once decorated. */
  readonly labels: readonly string[];
  /**
   * The label sets that tell its parts apart (Info's label_sets): the
   * engine answers one per tenant, its tenant label; none when it cannot tell.
   */
  readonly labelSets: ReadonlyArray<readonly string[]>;
}

/** A set with nothing in it. */
export const EMPTY_SERIES_SET: SeriesSet = Object.freeze({
  next: () => Promise.resolve(undefined),
  chunks: () => [],
  hasSurrogates: () => false,
  close: () => {},
});
