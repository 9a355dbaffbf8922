/**
 * Copies of many small byte ranges into a few large blocks: one
 * ArrayBuffer per megabyte instead of one per copy, which for a query over
 * thousands of open chunks is what the garbage collector feels.
 */
export class ByteArena {
  private block = new Uint8Array(0);
  private at = 0;

  constructor(private readonly blockBytes = 1 << 20) {}

  /** A copy of src[from, to): a view of a block, valid for as long as it is held. */
  copy(src: Uint8Array, from: number, to: number): Uint8Array {
    const len = to - from;
    if (this.at + len > this.block.length) {
      this.block = new Uint8Array(Math.max(this.blockBytes, len));
      this.at = 0;
    }
    const out = this.block.subarray(this.at, this.at + len);
    out.set(src.subarray(from, to));
    this.at += len;
    return out;
  }
}
