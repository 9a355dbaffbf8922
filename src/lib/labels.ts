/** Label sets between the library's shapes and the engine's flat [name, value, ...] arrays. */
import { compareUtf8 } from '../index/index.js';
import { InvalidArgumentError } from './errors.js';
import type { Labels, LabelsInput } from './types.js';

/**
 * The pairs of a label set, sorted by name (UTF-8 byte order, as the
 * store keeps them). A repeated name is an InvalidArgumentError with
 * `unique`; otherwise the repeats stay, adjacent, for the write path to
 * refuse as remote write does. Throws InvalidArgumentError, naming
 * `where`, for anything but strings.
 */
export function labelPairs(input: LabelsInput, where: string, unique = false): Array<[string, string]> {
  let pairs: Array<[string, string]>;
  if (Array.isArray(input)) {
    pairs = (input as ReadonlyArray<readonly [string, string]>).map((p) => {
      if (!Array.isArray(p) || p.length !== 2) throw new InvalidArgumentError(`${where}: expected [name, value] pairs`);
      return [p[0], p[1]];
    });
  } else if (typeof input === 'object' && input !== null) {
    pairs = Object.entries(input);
  } else {
    throw new InvalidArgumentError(`${where}: expected an object of labels or [name, value] pairs`);
  }
  for (const [name, value] of pairs) {
    if (typeof name !== 'string' || typeof value !== 'string') {
      throw new InvalidArgumentError(`${where}: label ${JSON.stringify(name)} is not a pair of strings`);
    }
  }
  pairs.sort((a, b) => compareUtf8(a[0], b[0]));
  for (let i = 1; unique && i < pairs.length; i++) {
    if (pairs[i]![0] === pairs[i - 1]![0]) throw new InvalidArgumentError(`${where}: '${pairs[i]![0]}' given twice`);
  }
  return pairs;
}

/** A flat, sorted [name, value, ...] array as an object (own properties, `__proto__` included). */
export function labelsObject(flat: readonly string[]): Labels {
  const entries: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) entries.push([flat[i]!, flat[i + 1]!]);
  return Object.fromEntries(entries);
}
