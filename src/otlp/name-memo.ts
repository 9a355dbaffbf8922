/**
 * Names already built on this thread (label names from attribute keys,
 * metric names from name, unit and type): an exporter sends the same few
 * on every export, and building one (per-character checks, unit lookups)
 * costs more than looking it up. Bounded: emptied when full.
 */
export class NameMemo {
  private readonly names = new Map<string, string>();

  /** @param max - names kept at most */
  constructor(private readonly max: number) {}

  get(key: string): string | undefined {
    return this.names.get(key);
  }

  set(key: string, name: string): void {
    if (this.names.size >= this.max) this.names.clear();
    this.names.set(key, name);
  }
}
