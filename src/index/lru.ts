/**
 * A bounded map that forgets the least recently used entry first. A Map
 * keeps insertion order, so a hit re-inserts its key at the end and the
 * first key is always the oldest.
 */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K);
  }
}
