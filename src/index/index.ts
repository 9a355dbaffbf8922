/**
 * The label index of the head: postings per label name and value, value
 * dictionaries, and selection of series by Prometheus matchers (Go RE2
 * regular expressions), with the set algebra and the common regular
 * expression shapes in WebAssembly (assembly/postings.ts, assembly/matcher.ts).
 */
export { MatchType, type LabelMatcher, type ValueMatcher } from './types.js';
export { InvalidMatcherError } from './errors.js';
export { PostingsIndex } from './postings-index.js';
export { PostingsAlgebra } from './set-ops.js';
export { compileMatcher, matchesValue, type CompiledMatcher } from './label-matcher.js';
export { regexMatcher, REGEX_CACHE_SIZE } from './value-matcher.js';
export { compareLabels, compareLabelsNative, compareUtf8 } from '../encoding/utf8.js';
