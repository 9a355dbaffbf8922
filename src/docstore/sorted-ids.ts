/**
 * The ids of one collection in ascending order, for scans. Ids are handed
 * out increasing, so adding is almost always a push; removing only counts,
 * and the array is swept of removed ids once they are half of it. Readers
 * check membership in the collection's map, so a removed id that is still
 * here is skipped.
 */
export class SortedIds {
  private ids: number[] = [];
  private removed = 0;
  /** Bumped whenever positions shift (a sweep or an insert before the end). */
  version = 0;

  /** Builds from ids in any order, without duplicates. */
  static from(ids: Iterable<number>): SortedIds {
    const s = new SortedIds();
    s.ids = Array.from(ids).sort((a, b) => a - b);
    return s;
  }

  get length(): number {
    return this.ids.length;
  }

  /** The id at `index` (0 <= index < length). */
  at(index: number): number {
    return this.ids[index]!;
  }

  /** Adds `id`; a no-op when it is here already (possibly as a removed id). */
  add(id: number): void {
    const n = this.ids.length;
    if (n === 0 || id > this.ids[n - 1]!) {
      this.ids.push(id);
      return;
    }
    const i = this.firstAfter(id - 1);
    if (this.ids[i] === id) {
      this.removed = Math.max(0, this.removed - 1);
      return;
    }
    this.ids.splice(i, 0, id);
    this.version++;
  }

  /** Notes that an id left; `isLive` sweeps the array when many have. */
  remove(isLive: (id: number) => boolean): void {
    if (++this.removed * 2 <= this.ids.length || this.ids.length < 64) return;
    this.ids = this.ids.filter(isLive);
    this.removed = 0;
    this.version++;
  }

  /** Index of the first id greater than `id` (length when none). */
  firstAfter(id: number): number {
    let lo = 0;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ids[mid]! <= id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
