/**
 * The encoded labels of number-point series already translated on this
 * thread, by what they were made from: the resource's and scope's labels,
 * the metric family, and the point's attribute bytes as sent. A cumulative
 * exporter sends every series again on each export, the same attribute
 * bytes each time: those points skip decoding, sanitizing, sorting and
 * encoding their labels. Same inputs, same labels: a hit is what a miss
 * would have made.
 */

/** Entries kept at most; the cache is emptied when full (bounded memory, a few MiB). */
const MAX_ENTRIES = 32_768;

const entries = new Map<string, Uint8Array>();

/** The key of a point's labels: `context` names the resource, scope and settings, `attributeBytes` the point's attribute fields. */
export function labelKey(context: string, family: string, attributeBytes: string): string {
  return `${context}\u0000${family}\u0000${attributeBytes}`;
}

/** The encoded labels made for `key` (repeated prometheus.Label fields), if kept. */
export function cachedLabels(key: string): Uint8Array | undefined {
  return entries.get(key);
}

/** Keeps the encoded labels made for `key`. */
export function keepLabels(key: string, labels: Uint8Array): void {
  if (entries.size >= MAX_ENTRIES) entries.clear();
  entries.set(key, labels);
}
