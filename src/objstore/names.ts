/**
 * Object names: flat strings with `/` separating "directories", as in
 * Thanos. Both buckets return iter's names in UTF-8 byte order, the order
 * S3 lists keys in, so that FILESYSTEM and S3 answer alike.
 */
import { hasSurrogate, sortUtf8 } from '../encoding/utf8.js';

/** Sorts `names` in place in UTF-8 byte order (JavaScript's default sort is UTF-16 order). */
export function sortNames(names: string[]): string[] {
  return sortUtf8(names, names.some(hasSurrogate));
}

/** `dir` as a listing prefix: `''` for the top, otherwise ending in exactly one `/`. */
export function dirPrefix(dir: string): string {
  const d = dir.replace(/\/+$/, '');
  return d === '' ? '' : `${d}/`;
}
