/**
 * UTF-8 as Go and Prometheus see it: the order of strings by their UTF-8
 * bytes (label names and values, symbols, object names) and the validity of
 * bytes (what Go's utf8.Valid accepts).
 */

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

/** Whether two flat label sets ([name, value, ...]) are the same, string for string. */
export function sameLabels(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = a.length - 1; i >= 0; i--) if (a[i] !== b[i]) return false;
  return true;
}

/** Orders label sets ([name, value, ...]) as Prometheus' labels.Compare: pairwise by name, then value, by UTF-8 bytes; a prefix first. */
export function compareLabels(a: readonly string[], b: readonly string[]): number {
  const i = firstDifference(a, b);
  return i < 0 ? a.length - b.length : compareUtf8(a[i]!, b[i]!);
}

/**
 * compareLabels for label sets known to hold no surrogates, where
 * JavaScript's native string order is UTF-8 byte order: several times faster.
 */
export function compareLabelsNative(a: readonly string[], b: readonly string[]): number {
  const i = firstDifference(a, b);
  return i < 0 ? a.length - b.length : a[i]! < b[i]! ? -1 : 1;
}

/** The first index where `a` and `b` hold different strings; -1 when one is a prefix of the other. */
function firstDifference(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return -1;
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

/**
 * Per lead byte: the length of its sequence (0 where a byte never leads one:
 * a continuation byte, C0 and C1 whose 2-byte forms are overlong, F5..FF
 * past U+10FFFF) and the range of the byte after it (Go's acceptRanges: E0
 * needs A0..BF and F0 90..BF, else overlong; ED 80..9F, else a surrogate;
 * F4 80..8F, else past U+10FFFF).
 */
const SEQUENCE = new Uint8Array(256);
const SECOND_LO = new Uint8Array(256);
const SECOND_HI = new Uint8Array(256);
for (let b = 0xc2; b <= 0xf4; b++) {
  SEQUENCE[b] = b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
  SECOND_LO[b] = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
  SECOND_HI[b] = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
}

/**
 * Where [start, end) of `buf` stops being valid UTF-8: the index of the
 * first byte of the first bad sequence, or -1 when all of it is valid.
 * Valid means what Go's utf8.Valid accepts (and protobuf requires of
 * strings): no overlong forms, no surrogates (U+D800..DFFF), nothing past
 * U+10FFFF, no truncated sequence. 0xFF is never valid, which is what
 * keeps the canonical label form `name 0xFF value 0xFF` unambiguous.
 */
export function invalidUtf8At(buf: Uint8Array, start: number, end: number): number {
  // Locals: V8 reloads a module constant on every pass of a loop.
  const sequence = SEQUENCE;
  const secondLo = SECOND_LO;
  const secondHi = SECOND_HI;
  let i = start;
  while (i < end) {
    const b = buf[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const size = sequence[b]!;
    if (size === 0 || i + size > end) return i;
    const b1 = buf[i + 1]!;
    if (b1 < secondLo[b]! || b1 > secondHi[b]!) return i;
    // The third and fourth bytes, where there are any, are continuation bytes.
    if (size > 2 && ((buf[i + 2]! & 0xc0) !== 0x80 || (size > 3 && (buf[i + 3]! & 0xc0) !== 0x80))) return i;
    i += size;
  }
  return -1;
}
