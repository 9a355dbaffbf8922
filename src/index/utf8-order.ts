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

/** Surrogates (D800..DFFF) after E000..FFFF, keeping each range's own order. */
function fix(c: number): number {
  return c >= 0xe000 ? c - 0x800 : c + 0x2000;
}
