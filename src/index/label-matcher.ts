import { unknownMatchType } from './errors.js';
import { MatchType, type LabelMatcher, type ValueMatcher } from './types.js';
import { equalMatcher, regexMatcher } from './value-matcher.js';

/**
 * A LabelMatcher made ready to run: `NEQ` and `NRE` are the negation of
 * `EQ` and `RE` over the same values, so a series matches when
 * `values.test(value) !== negate` (a missing label counts as "").
 */
export interface CompiledMatcher {
  readonly name: string;
  readonly values: ValueMatcher;
  readonly negate: boolean;
  /** Whether the matcher accepts the empty value, hence series without the label. */
  readonly matchesEmpty: boolean;
}

/** Compiles a matcher; throws InvalidMatcherError for a bad pattern or type. */
export function compileMatcher(m: LabelMatcher): CompiledMatcher {
  let values: ValueMatcher;
  switch (m.type) {
    case MatchType.EQ:
    case MatchType.NEQ:
      values = equalMatcher(m.value);
      break;
    case MatchType.RE:
    case MatchType.NRE:
      values = regexMatcher(m.value);
      break;
    default:
      throw unknownMatchType(m.type as number, m.value);
  }
  const negate = m.type === MatchType.NEQ || m.type === MatchType.NRE;
  return { name: m.name, values, negate, matchesEmpty: values.matchesEmpty !== negate };
}

/**
 * Whether a label value satisfies the matcher; pass "" for a missing label.
 * For deciding matchers on external labels, which are not in the index.
 *
 * @example matchesValue({ type: MatchType.RE, name: 'region', value: 'eu-.*' }, 'eu-west') // true
 */
export function matchesValue(m: LabelMatcher, value: string): boolean {
  const c = compileMatcher(m);
  return c.values.test(value) !== c.negate;
}
