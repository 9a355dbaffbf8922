import type { LabelDict } from './label-dict.js';
import type { U32Buffer } from './u32-buffer.js';

/**
 * Matcher types; the numbers are those of the Thanos storepb and Prometheus
 * remote-read `LabelMatcher.Type` enums, so wire values map one to one.
 */
export const MatchType = { EQ: 0, NEQ: 1, RE: 2, NRE: 3 } as const;

/** One of the four matcher types. */
export type MatchType = (typeof MatchType)[keyof typeof MatchType];

/**
 * A condition on one label: `name="value"` (EQ), `name!="value"` (NEQ),
 * `name=~"re"` (RE) or `name!~"re"` (NRE). Regular expressions use Go RE2
 * syntax and are fully anchored. A series without the label is treated as
 * having it with the empty value, as in Prometheus.
 *
 * @example { type: MatchType.RE, name: 'path', value: '/api/v1/.*' }
 */
export interface LabelMatcher {
  readonly type: MatchType;
  readonly name: string;
  readonly value: string;
}

/**
 * A compiled condition on label values. `collect` answers for a whole
 * value dictionary at once, which is how the index uses it.
 */
export interface ValueMatcher {
  /** Whether the empty string matches: then series without the label match too. */
  readonly matchesEmpty: boolean;
  test(value: string): boolean;
  /** Appends to `out` the postings list of every value of `dict` whose `test` is `want`, in no particular order. */
  collect(dict: LabelDict, want: boolean, out: U32Buffer): void;
}
