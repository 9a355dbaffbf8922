/**
 * The in-memory index: per collection, id → where the value's JSON lies in
 * a mapped segment, the ids in order, and the last id. It also keeps each
 * segment's count of dead bytes, which drives compaction.
 */
import { COLLECTIONS } from './format.js';
import { opSize } from './ops-codec.js';
import type { Segment } from './segment.js';
import { SortedIds } from './sorted-ids.js';

/**
 * Where a live value's JSON lies: `len` bytes at `at` in `seg.map`. A
 * compaction moves a value by changing `seg` and `at` in place, so an
 * identity check tells whether a location is still the current one.
 */
export interface Location {
  seg: Segment;
  at: number;
  len: number;
}

/** One collection's part of the index. */
export class CollectionIndex {
  readonly byId = new Map<number, Location>();
  ids = new SortedIds();
  lastId = 0;
  readonly isLive = (id: number): boolean => this.byId.has(id);
}

export class RecordIndex {
  /** By collection code - 1 (COLLECTIONS order). */
  readonly collections = COLLECTIONS.map(() => new CollectionIndex());
  /** While true (recovery), sorted ids are built once at the end. */
  private bulk = false;

  /** Called when a sealed segment gains dead bytes. */
  onDead: (seg: Segment) => void = () => {};

  /** The part for collection `code`. */
  of(code: number): CollectionIndex {
    return this.collections[code - 1]!;
  }

  /** Starts a bulk load: sorted ids are skipped until endBulk. */
  beginBulk(): void {
    this.bulk = true;
  }

  endBulk(): void {
    this.bulk = false;
    for (const c of this.collections) c.ids = SortedIds.from(c.byId.keys());
  }

  /** Raises last ids to at least `lastIds` (COLLECTIONS order). */
  raiseLastIds(lastIds: readonly number[]): void {
    this.collections.forEach((c, i) => { c.lastId = Math.max(c.lastId, lastIds[i] ?? 0); });
  }

  /** Last ids in COLLECTIONS order. */
  lastIds(): number[] {
    return this.collections.map((c) => c.lastId);
  }

  /** Records a put of `id` whose JSON is `len` bytes at `at` in `seg`. */
  put(code: number, id: number, seg: Segment, at: number, len: number, size: number): void {
    const c = this.of(code);
    const prev = c.byId.get(id);
    if (prev !== undefined) this.kill(id, prev);
    else if (!this.bulk) c.ids.add(id);
    c.byId.set(id, { seg, at, len });
    if (id > c.lastId) c.lastId = id;
    seg.opBytes += size;
  }

  /** Records a delete of `id` written as `size` bytes in `seg`. */
  delete(code: number, id: number, seg: Segment, size: number): void {
    const c = this.of(code);
    const prev = c.byId.get(id);
    if (prev !== undefined) {
      this.kill(id, prev);
      c.byId.delete(id);
      if (!this.bulk) c.ids.remove(c.isLive);
    }
    if (id > c.lastId) c.lastId = id;
    seg.opBytes += size;
    // A compaction output keeps a delete only while an older segment may
    // hold the put it covers; elsewhere a delete is garbage once written.
    if (seg.compacted) seg.tombstoneBytes += size;
    else seg.deadBytes += size;
  }

  private kill(id: number, loc: Location): void {
    loc.seg.deadBytes += opSize(id, loc.len);
    if (loc.seg.sealed) this.onDead(loc.seg);
  }
}
