import { compileMatcher, type CompiledMatcher, type LabelMatcher } from './index.js';

/**
 * A test of whole label sets ([name, value, ...], name order) against
 * matchers, all of which must hold; a missing label counts as the empty
 * value. For stores that hold label sets rather than postings (the
 * exemplar store): Prometheus' matchesSomeMatcherSet, one set.
 *
 * @throws InvalidMatcherError for a bad regular expression or match type
 */
export function seriesMatcher(matchers: readonly LabelMatcher[]): (labels: readonly string[]) => boolean {
  const compiled: CompiledMatcher[] = matchers.map(compileMatcher);
  return (labels) => {
    for (const m of compiled) {
      let value = '';
      for (let i = 0; i < labels.length; i += 2) {
        if (labels[i] === m.name) {
          value = labels[i + 1]!;
          break;
        }
      }
      if (m.values.test(value) === m.negate) return false;
    }
    return true;
  };
}
