/**
 * Bit writer and reader, most significant bit first, as Prometheus' bstream.
 * Fields are at most 32 bits so everything stays in JS int32 arithmetic.
 */
export class BitWriter {
  bytes: Uint8Array;
  pos = 0;

  constructor(capacity = 128) {
    this.bytes = new Uint8Array(capacity);
  }

  /** Writes the low `n` (0..32) bits of `v`. */
  write(v: number, n: number): void {
    if ((this.pos + n + 7) >>> 3 > this.bytes.length) this.grow();
    while (n > 0) {
      const free = 8 - (this.pos & 7);
      const take = free < n ? free : n;
      const bits = (v >>> (n - take)) & ((1 << take) - 1);
      this.bytes[this.pos >>> 3]! |= bits << (free - take);
      this.pos += take;
      n -= take;
    }
  }

  /** The written bytes, the last one zero padded. */
  finish(): Uint8Array {
    return this.bytes.slice(0, (this.pos + 7) >>> 3);
  }

  private grow(): void {
    const next = new Uint8Array(this.bytes.length * 2 + 16);
    next.set(this.bytes);
    this.bytes = next;
  }
}

export class BitReader {
  pos = 0;
  readonly end: number;

  constructor(readonly bytes: Uint8Array, startBit = 0) {
    this.pos = startBit;
    this.end = bytes.length * 8;
  }

  /** Bits left to read. */
  left(): number {
    return this.end - this.pos;
  }

  /** Reads `n` (0..32) bits as an unsigned number; callers check `left()` first. */
  read(n: number): number {
    let v = 0;
    while (n > 0) {
      const avail = 8 - (this.pos & 7);
      const take = avail < n ? avail : n;
      const byte = this.bytes[this.pos >>> 3]!;
      v = v * (1 << take) + ((byte >>> (avail - take)) & ((1 << take) - 1));
      this.pos += take;
      n -= take;
    }
    return v;
  }
}
