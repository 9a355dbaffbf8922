import type { LabelMatcher } from '../index/types.js';

/**
 * What the head needs of the inverted index (src/index): postings by label
 * pair, kept sorted by series id, and selection by matchers.
 */
export interface LabelIndex {
  /**
   * Adds a series from its canonical label bytes (`bytes[from, to)`, each
   * name and value ended by 0xFF); ids come in ascending order.
   */
  addBytes(id: number, bytes: Uint8Array, from: number, to: number): void;
  /** Replaces each name and value of `labels` the index holds with its own shared copy. */
  share(labels: string[]): void;
  /** Removes these series (sorted ids). */
  delete(ids: Uint32Array): void;
  /** delete() in steps, calling `tick` as it goes (it returns a promise to pause on). */
  deleteAsync(ids: Uint32Array, tick: (work: number) => Promise<void> | undefined): Promise<void>;
  /** Visits every name's values with their sorted ids (a view valid during the call). */
  forEachPostings(visit: (name: string, value: string, ids: Uint32Array) => void): void;
  /** Loads a value new to `name` with its sorted ids, into an index holding no series yet. */
  loadPostings(name: string, value: string, ids: Uint32Array): void;
  /** Ends a load: every series' id, ascending. */
  loadAll(ids: Uint32Array): void;
  /** Ids of the series matching every matcher, ascending. */
  select(matchers: readonly LabelMatcher[]): Uint32Array;
  labelNames(): string[];
  /** Every series id, ascending; a view valid until the next change. */
  allPostings(): Uint32Array;
  /** Whether any name or value holds a surrogate (then native string order is not byte order). */
  hasSurrogates(): boolean;
  /** Values of `name`, sorted by UTF-8 bytes: a frozen array, the same one until the values change. */
  labelValues(name: string): readonly string[];
  /** Number of series with label `name` = `value`, at once (per-tenant head series limits ask on every write). */
  count(name: string, value: string): number;
}
