/**
 * Compares two strings by the bytes of their UTF-8 encodings (code point
 * order), as Go and Prometheus sort label names and values. JavaScript's
 * default order compares UTF-16 code units, which differs when one string
 * has a surrogate (a character above U+FFFF) where the other has a
 * character in U+E000..U+FFFF: lifting surrogates above that range fixes it.
 *
 * @example ['\uffff', '😀'].sort(compareUtf8) // ['\uffff', '😀'] (code units would put 😀 first)
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return (x >= 0xd800 ? fix(x) : x) - (y >= 0xd800 ? fix(y) : y);
  }
  return a.length - b.length;
}

/** Orders label sets ([name, value, ...]) as Prometheus' labels.Compare: pairwise by name, then value, by UTF-8 bytes; a prefix first. */
export function compareLabels(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y) return compareUtf8(x, y);
  }
  return a.length - b.length;
}

/**
 * compareLabels for label sets known to hold no surrogates, where
 * JavaScript's native string order is UTF-8 byte order: several times faster.
 */
export function compareLabelsNative(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** Surrogates (D800..DFFF) after E000..FFFF, keeping each range's own order. */
function fix(c: number): number {
  return c >= 0xe000 ? c - 0x800 : c + 0x2000;
}

/** Whether `s` holds a UTF-16 surrogate (a character above U+FFFF, or a lone half). */
export function hasSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) return true;
  }
  return false;
}

/**
 * Sorts `strings` in place by UTF-8 bytes. Without surrogates in any of
 * them, code unit order is the same and the engine's native sort (about 4x
 * faster than a comparator in JavaScript) does it.
 */
export function sortUtf8(strings: string[], surrogates: boolean): string[] {
  return surrogates ? strings.sort(compareUtf8) : strings.sort();
}

/** Merges two arrays sorted by UTF-8 bytes into a new one. */
export function mergeUtf8(a: readonly string[], b: readonly string[], surrogates: boolean): string[] {
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (surrogates ? compareUtf8(x, y) <= 0 : x <= y) {
      out[k++] = x;
      i++;
    } else {
      out[k++] = y;
      j++;
    }
  }
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}
