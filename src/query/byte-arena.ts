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
    return this.own(src, from, to);
  }

  /**
   * Always a copy, as copy() (a TransientArena too): for bytes whose source
   * is reused at once, as a read's merge output in the codec's memory.
   */
  own(src: Uint8Array, from: number, to: number): Uint8Array {
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

/**
 * An arena that copies nothing: copy() answers a view of the source bytes
 * (the head's open chunk in its memory), valid only until the head next
 * changes. For a caller that uses the chunks before it yields the event
 * loop, as the Store API's Series encoder does (src/store/store-api.ts:
 * each series' chunks are written into its frame as soon as they are read).
 * The open chunks then go from the head straight into the frame, one copy
 * instead of two: for 10,000 series of 120 samples that was about 4 ms of
 * the 21 ms a read cost the server (bench/RESULTS.md, 2026-11-27).
 * Whoever keeps chunks longer (the limits decorator reads the whole
 * selection first) must use a ByteArena of its own.
 */
export class TransientArena extends ByteArena {
  override copy(src: Uint8Array, from: number, to: number): Uint8Array {
    return src.subarray(from, to);
  }
}
