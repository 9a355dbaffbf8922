import type { HeadWasm } from '../wasm/head.js';

/** Which part of the answer a request wants (thanos.ShardInfo). */
export interface ShardSpec {
  index: bigint;
  total: bigint;
  /** true: hash only the labels named; false: hash all but those named. */
  by: boolean;
  labels: ReadonlySet<string>;
}

/**
 * Decides shard membership as Thanos does: xxHash64 (seed 0) of
 * name 0xFF value 0xFF ... over the kept labels in label order; the series
 * belongs to shard hash % total.
 */
export class ShardFilter {
  private buf = Buffer.alloc(1024);
  private ptr = 0;
  private cap = 0;

  constructor(private readonly wasm: HeadWasm, private readonly spec: ShardSpec) {}

  /** A filter, or undefined when the request is not sharded (no info, or total < 1). */
  static of(wasm: HeadWasm, info: { shardIndex: bigint; totalShards: bigint; by: boolean; labels: readonly string[] } | undefined): ShardFilter | undefined {
    if (info === undefined || info.totalShards < 1n) return undefined;
    return new ShardFilter(wasm, { index: info.shardIndex, total: info.totalShards, by: info.by, labels: new Set(info.labels) });
  }

  /** Whether the series (its full labels, external ones included) is in this shard. */
  keeps(labels: readonly string[]): boolean {
    return this.hash(labels) % this.spec.total === this.spec.index;
  }

  hash(labels: readonly string[]): bigint {
    let len = 0;
    for (let i = 0; i < labels.length; i += 2) {
      const name = labels[i]!;
      if (this.spec.labels.has(name) !== this.spec.by) continue;
      const need = len + Buffer.byteLength(name) + Buffer.byteLength(labels[i + 1]!) + 2;
      if (need > this.buf.length) {
        const next = Buffer.alloc(need * 2);
        this.buf.copy(next, 0, 0, len);
        this.buf = next;
      }
      len += this.buf.write(name, len, 'utf8');
      this.buf[len++] = 0xff;
      len += this.buf.write(labels[i + 1]!, len, 'utf8');
      this.buf[len++] = 0xff;
    }
    if (len > this.cap) {
      if (this.ptr !== 0) this.wasm.free(this.ptr);
      this.cap = Math.max(1024, len * 2);
      this.ptr = this.wasm.alloc(this.cap);
    }
    new Uint8Array(this.wasm.memory.buffer, this.ptr, len).set(this.buf.subarray(0, len));
    return BigInt.asUintN(64, this.wasm.xxh64(this.ptr, len, 0n));
  }

  close(): void {
    if (this.ptr !== 0) this.wasm.free(this.ptr);
    this.ptr = 0;
  }
}
