/**
 * Ascending scans over one collection that stay correct while records are
 * added and removed between steps.
 */
import type { CollectionIndex, Location } from './record-index.js';

/**
 * Yields [id, read(location)] for live ids above `afterId`, ascending. Each
 * step reads the index afresh: a record removed before it is reached is
 * skipped, one added above the last yielded id is seen.
 */
export function* scanCollection<T>(c: CollectionIndex, afterId: number, read: (loc: Location) => T): Generator<[number, T], void, undefined> {
  let version = c.ids.version;
  let pos = c.ids.firstAfter(afterId);
  let last = afterId;
  for (;;) {
    if (version !== c.ids.version) {
      version = c.ids.version;
      pos = c.ids.firstAfter(last);
    }
    if (pos >= c.ids.length) return;
    const id = c.ids.at(pos++);
    const loc = c.byId.get(id);
    if (loc === undefined) continue;
    last = id;
    yield [id, read(loc)];
  }
}
