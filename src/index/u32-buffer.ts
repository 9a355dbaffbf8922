import { grown } from '../encoding/bytes.js';

/** A growable list of u32 (capacity doubling), reused across calls by `clear`. */
export class U32Buffer {
  data: Uint32Array;
  length = 0;

  constructor(capacity = 64) {
    this.data = new Uint32Array(capacity);
  }

  push(x: number): void {
    if (this.length === this.data.length) this.reserve(this.length + 1);
    this.data[this.length++] = x;
  }

  /** Makes room for `n` values in total. */
  reserve(n: number): void {
    this.data = grown(this.data, this.length, n);
  }

  clear(): void {
    this.length = 0;
  }

  /** The values; a view valid until the next push or clear. */
  view(): Uint32Array {
    return this.data.subarray(0, this.length);
  }
}
