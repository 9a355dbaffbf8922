import type { LabelDict } from './label-dict.js';
import { compileMatcher } from './label-matcher.js';
import type { ListSource, PostingsAlgebra, Resident } from './set-ops.js';
import type { LabelMatcher } from './types.js';
import { U32Buffer } from './u32-buffer.js';

/** Postings lists by number: the head's PostingsLists, or a block's lists read from its index. */
export interface PostingsSource extends ListSource {
  /** The list's ids, ascending; a view the caller does not keep past the call. */
  view(list: number): Uint32Array;
}

/** What selection reads from an index: the head's, or a block's. */
export interface IndexReader {
  /** The values of a label name, each with the number of its postings list. */
  dict(name: string): LabelDict | undefined;
  readonly lists: PostingsSource;
  /** The postings list of every series. */
  readonly allList: number;
}

const NOTHING = new Uint32Array(0);

/**
 * Sorted ids of the series that satisfy every matcher, with the semantics
 * of Prometheus 2.x PostingsForMatchers: a series lacking a label has it
 * with the empty value, so a matcher that accepts "" also selects series
 * without the label.
 *
 * Plan: a matcher that rejects "" is positive: the union of the postings of
 * the values it accepts. The positive sets are intersected (all series if
 * there are none). A matcher that accepts "" is negative: the postings of
 * the values it rejects are subtracted from that. Values are matched
 * against each label's value dictionary, never per series. No matchers
 * select nothing, as in Prometheus (callers reject such requests).
 *
 * Every matcher is compiled (and validated) before any work.
 */
export function selectPostings(ix: IndexReader, matchers: readonly LabelMatcher[], algebra: PostingsAlgebra): Uint32Array {
  if (matchers.length === 0) return NOTHING;
  const compiled = matchers.map(compileMatcher);
  const positive: Uint32Array[] = [];
  const negative = new U32Buffer();
  for (const c of compiled) {
    const dict = ix.dict(c.name);
    if (!c.matchesEmpty) {
      // No series has a value it accepts: nothing can match.
      if (dict === undefined) return NOTHING;
      const lists = new U32Buffer();
      c.values.collect(dict, !c.negate, lists);
      if (lists.length === 0) return NOTHING;
      positive.push(lists.view());
    } else if (dict !== undefined) {
      c.values.collect(dict, c.negate, negative);
    }
  }
  if (positive.length === 0) positive.push(Uint32Array.of(ix.allList));
  // One stored list and nothing to subtract: no WebAssembly round trip.
  if (positive.length === 1 && positive[0]!.length === 1 && negative.length === 0) {
    return ix.lists.view(positive[0]![0]!).slice();
  }
  const ws = algebra.workspace();
  try {
    const sets: Resident[] = positive.map((lists) => ws.fromLists(ix.lists, lists));
    let result = ws.intersect(sets);
    if (result.length > 0 && negative.length > 0) result = ws.subtract(result, ws.fromLists(ix.lists, negative.view()));
    return ws.toArray(result);
  } finally {
    ws.release();
  }
}
