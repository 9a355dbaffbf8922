/**
 * The encoded labels of number-point series already translated on this
 * thread, by what they were made from: the resource's and scope's labels
 * (and the settings that shape labels), the metric family, and the
 * point's attribute bytes as sent. A cumulative exporter sends every
 * series again on each export, the same attribute bytes each time: those
 * points skip decoding, sanitizing, sorting and encoding their labels.
 * Same inputs, same labels: a hit is what a miss would have made.
 *
 * Two levels, so that a point costs one lookup of its attribute bytes
 * (a string made once, its hash computed once), not of a key joined per
 * point: the family's table is found once per metric.
 */

/**
 * Labels kept at most; all are let go when full. Bounded memory: with label
 * sets of about 200 bytes (key and encoded labels each), some 15 MiB a worker.
 */
const MAX_ENTRIES = 32_768;

/** A family's labels in one context, by attribute bytes. */
export type FamilyLabels = Map<string, Uint8Array>;

const families = new Map<string, FamilyLabels>();
let count = 0;

/** The table of `family`'s labels under `context` (resource, scope, settings). */
export function familyLabels(context: string, family: string): FamilyLabels {
  const key = `${context}\u0000${family}`;
  let t = families.get(key);
  if (t === undefined) {
    t = new Map();
    families.set(key, t);
  }
  return t;
}

/** Keeps the encoded labels (repeated prometheus.Label fields) made from `attributeBytes`. */
export function keepLabels(table: FamilyLabels, attributeBytes: string, labels: Uint8Array): void {
  if (count >= MAX_ENTRIES) {
    // Tables already handed out are emptied too: none keeps growing past the bound.
    for (const t of families.values()) t.clear();
    families.clear();
    count = 0;
  }
  table.set(attributeBytes, labels);
  count++;
}
