/**
 * Object names: flat strings with `/` separating "directories", as in
 * Thanos. Both buckets return iter's names in UTF-8 byte order, the order
 * S3 lists keys in, so that FILESYSTEM and S3 answer alike.
 */

/** Sorts `names` in place in UTF-8 byte order (JavaScript's default sort is UTF-16 order). */
export function sortNames(names: string[]): string[] {
  const keyed = names.map((n) => ({ n, b: Buffer.from(n, 'utf8') }));
  keyed.sort((x, y) => Buffer.compare(x.b, y.b));
  for (let i = 0; i < keyed.length; i++) names[i] = keyed[i]!.n;
  return names;
}

/** `dir` as a listing prefix: `''` for the top, otherwise ending in exactly one `/`. */
export function dirPrefix(dir: string): string {
  const d = dir.replace(/\/+$/, '');
  return d === '' ? '' : `${d}/`;
}
