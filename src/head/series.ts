/**
 * A series of the head, as the host sees it. Its open chunk and append
 * state live in module memory at `slot`; its closed chunks live in chunk
 * segment files, listed in `chunks` as triples [ref, minT, maxT] in time
 * order (one flat array of numbers: no object per chunk).
 */
export interface Series {
  readonly id: number;
  /** [name, value, ...] in name order, strings interned. */
  readonly labels: readonly string[];
  /** Module memory address of the series slot; fixed for the series' life. */
  readonly slot: number;
  chunks: number[];
}

/** Compares two strings by their UTF-8 bytes (code point order), as Go compares strings. */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (code points past U+FFFF) sort after every BMP character in UTF-8.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/** Orders label sets as Prometheus' labels.Compare: pairwise by name, then value. */
export function compareLabels(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareUtf8(a[i]!, b[i]!);
    if (c !== 0) return c;
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
