import { malformedRequest, type MalformedRequestError } from '../errors/errors.js';

/** Protobuf wire types (the low three bits of a tag). */
export const WIRE = { varint: 0, fixed64: 1, len: 2, startGroup: 3, endGroup: 4, fixed32: 5 } as const;

const WIRE_NAMES = ['varint', 'fixed64', 'length-delimited', 'start group', 'end group', 'fixed32'];

/**
 * A bounds-checked cursor over protobuf bytes. Every read takes the end of
 * the enclosing message: a field never reads past its parent, and a short
 * or corrupt input throws MalformedRequestError with the offset, never
 * yields `undefined` bytes as zeros.
 *
 * A 64-bit varint is returned as two signed 32-bit halves (`lo`, `hi`) so
 * that timestamps reach an Int32Array view of an i64 column without a
 * BigInt or a lossy double per sample.
 */
export class WireReader {
  /** Next byte to read. */
  pos = 0;
  /** Low 32 bits of the last varint64() (two's complement, as an int32). */
  lo = 0;
  /** High 32 bits of the last varint64(). */
  hi = 0;
  /** Where the last tag() began (for errors about its wire type). */
  tagAt = 0;
  readonly view: DataView;

  constructor(readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  /** Reads a tag (field number << 3 | wire type); field 0 is malformed. */
  tag(end: number): number {
    const p = this.pos;
    this.tagAt = p;
    if (p < end) {
      const b = this.buf[p]!;
      // One-byte tags (fields 1..15) are all this parser meets on its hot path.
      if (b < 0x80) {
        if (b < 8) throw malformedRequest(p, `field number 0 (tag byte 0x${b.toString(16).padStart(2, '0')})`);
        this.pos = p + 1;
        return b;
      }
    }
    const tag = this.uint32(end, 'tag');
    if (tag < 8) throw malformedRequest(p, 'field number 0');
    return tag;
  }

  /**
   * Reads a length prefix and returns where the delimited bytes end
   * (`pos` is then their start); a length past `end` is malformed.
   */
  len(end: number): number {
    const p = this.pos;
    let n: number;
    const b = p < end ? this.buf[p]! : 0x80;
    if (b < 0x80) {
      n = b;
      this.pos = p + 1;
    } else {
      n = this.uint32(end, 'length');
    }
    const stop = this.pos + n;
    if (stop > end) throw pastMessageEnd(p, `length ${n}`, end - this.pos);
    return stop;
  }

  /**
   * Reads a varint of up to 10 bytes into `lo` and `hi`. The shape (28 bits
   * into lo, then a split byte, then hi) is protobuf's own: shifts stay
   * within 32-bit integer arithmetic, which V8 keeps unboxed. The one
   * varint loop outside encoding/varint.ts: every timestamp of a write
   * passes here, and as a call into a function of its own it took about
   * 15% longer per varint.
   */
  varint64(end: number): void {
    const buf = this.buf;
    const start = this.pos;
    let p = start;
    let lo = 0;
    let hi = 0;
    let b = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (p >= end) throw pastMessageEnd(start, 'varint', end - start);
      b = buf[p++]!;
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.pos = p;
        this.lo = lo;
        this.hi = 0;
        return;
      }
    }
    // Fifth byte: 4 bits finish lo, 3 bits start hi.
    if (p >= end) throw pastMessageEnd(start, 'varint', end - start);
    b = buf[p++]!;
    lo |= (b & 0x0f) << 28;
    hi = (b & 0x7f) >>> 4;
    if (b >= 0x80) {
      for (let shift = 3; shift < 31; shift += 7) {
        if (p >= end) throw pastMessageEnd(start, 'varint', end - start);
        b = buf[p++]!;
        hi |= (b & 0x7f) << shift;
        if (b < 0x80) break;
      }
      if (b >= 0x80) {
        // Tenth byte: only bit 63 is left; anything more overflows 64 bits.
        if (p >= end) throw pastMessageEnd(start, 'varint', end - start);
        b = buf[p++]!;
        if (b > 1) throw malformedRequest(start, 'varint longer than 64 bits');
        hi |= b << 31;
      }
    }
    this.pos = p;
    this.lo = lo;
    this.hi = hi;
  }

  /** Reads a varint that must fit in 32 unsigned bits (tags, lengths). */
  uint32(end: number, what: string): number {
    const p = this.pos;
    this.varint64(end);
    if (this.hi !== 0) throw malformedRequest(p, `${what} does not fit in 32 bits`);
    return this.lo >>> 0;
  }

  /** Reads an int64 varint as a JS number (exact up to 2^53; for small fields such as replica). */
  int64Number(end: number): number {
    this.varint64(end);
    return this.hi * 4294967296 + (this.lo >>> 0);
  }

  /** Skips the value of the field whose tag was just read; groups and wire types 6 and 7 are malformed. */
  skip(wireType: number, end: number): void {
    const p = this.pos;
    switch (wireType) {
      case WIRE.varint:
        this.varint64(end);
        return;
      case WIRE.fixed64:
        if (p + 8 > end) throw malformedRequest(p, 'fixed64 value runs past the end of its message');
        this.pos = p + 8;
        return;
      case WIRE.len:
        this.pos = this.len(end);
        return;
      case WIRE.fixed32:
        if (p + 4 > end) throw malformedRequest(p, 'fixed32 value runs past the end of its message');
        this.pos = p + 4;
        return;
      case WIRE.startGroup:
      case WIRE.endGroup:
        throw groupsRefused(this.tagAt);
      default:
        throw malformedRequest(this.tagAt, `invalid wire type ${wireType}`);
    }
  }
}

/** A known field carrying the wrong wire type (the gogo parsers of Thanos and Prometheus refuse it too). */
export function wrongWireType(offset: number, message: string, field: number, got: number, want: number): MalformedRequestError {
  if (got === WIRE.startGroup || got === WIRE.endGroup) return groupsRefused(offset);
  if (got > WIRE.fixed32) return malformedRequest(offset, `invalid wire type ${got}`);
  return malformedRequest(offset, `${message} field ${field} has wire type ${WIRE_NAMES[got]}, expected ${WIRE_NAMES[want]}`);
}

function groupsRefused(offset: number): MalformedRequestError {
  return malformedRequest(offset, 'groups (wire types 3 and 4) are not used by remote write');
}

/** A length or varint at `offset` that runs past the end of its message, which has `left` bytes left. */
function pastMessageEnd(offset: number, what: string, left: number): MalformedRequestError {
  return malformedRequest(offset, `${what} runs past the end of its message (${left} bytes left)`);
}
