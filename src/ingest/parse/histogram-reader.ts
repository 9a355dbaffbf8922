import type { HistogramFields, SideFields } from '../../chunkenc/histogram/fields.js';
import { malformedRequest } from '../../errors/errors.js';
import { WIRE, wrongWireType } from '../../encoding/wire-reader.js';
import type { WireReader } from '../../encoding/wire-reader.js';
import { HISTOGRAM_FIELD as F, SPAN_FIELD } from '../../chunkenc/histogram/proto-fields.js';

const SPAN_OFFSET = (SPAN_FIELD.offset << 3) | WIRE.varint;
const SPAN_LENGTH = (SPAN_FIELD.length << 3) | WIRE.varint;

/** The wire type each known field must have (packed repeated fields may also come length-delimited). */
const WANT: readonly number[] = [
  -1, WIRE.varint, WIRE.fixed64, WIRE.fixed64, WIRE.varint, WIRE.fixed64, WIRE.varint, WIRE.fixed64,
  WIRE.len, WIRE.varint, WIRE.fixed64, WIRE.len, WIRE.varint, WIRE.fixed64, WIRE.varint, WIRE.varint,
];

const TWO_32 = 4294967296;
/** hi words at or above this make an unsigned 64-bit value 2^53 or more. */
const HI_53 = 1 << 21;

/**
 * Reads the prometheus.Histogram at [r.pos, end) into `h` (reset first) and
 * leaves r.pos at end. As protobuf says: fields in any order, a scalar
 * given twice keeps the last value, a oneof keeps the member set last,
 * repeated numbers come packed or not, unknown fields are skipped.
 * Integers this store cannot hold exactly (2^53 or more) do not throw: they
 * set `h.problem` (or are caught by validateHistogram), refusing the one
 * histogram, not the request.
 *
 * Shape: a histogram is read once, into typed arrays reused for every
 * histogram of the request; no object per bucket or span.
 *
 * @throws MalformedRequestError when the bytes are not a valid message (a
 *   known field with the wrong wire type, a length past its message, ...).
 */
export function readHistogram(r: WireReader, end: number, h: HistogramFields): void {
  h.reset();
  let countTooBig = false;
  let zeroTooBig = false;
  let deltaTooBig = false;
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field > F.timestamp || field === 0) {
      r.skip(wire, end);
      continue;
    }
    const want = WANT[field]!;
    const packed = wire === WIRE.len && (field === F.negativeDeltas || field === F.positiveDeltas || field === F.negativeCounts || field === F.positiveCounts);
    if (wire !== want && !packed) throw wrongWireType(at, 'Histogram', field, wire, want);
    if (wire === WIRE.fixed64 && r.pos + 8 > end) throw malformedRequest(r.pos, `Histogram field ${field}: fixed64 value runs past the end of its message`);
    switch (field) {
      case F.countInt:
        r.varint64(end);
        h.float = false;
        countTooBig = r.hi >>> 0 >= HI_53;
        h.countInt = countTooBig ? 0 : (r.hi >>> 0) * TWO_32 + (r.lo >>> 0);
        break;
      case F.countFloat:
        h.float = true;
        h.countLo = r.view.getInt32(r.pos, true);
        h.countHi = r.view.getInt32(r.pos + 4, true);
        r.pos += 8;
        break;
      case F.sum:
        h.sumLo = r.view.getInt32(r.pos, true);
        h.sumHi = r.view.getInt32(r.pos + 4, true);
        r.pos += 8;
        break;
      case F.schema:
        r.varint64(end);
        h.schema = (r.lo >>> 1) ^ -(r.lo & 1); // sint32: zigzag of the low 32 bits
        break;
      case F.zeroThreshold:
        h.thresholdLo = r.view.getInt32(r.pos, true);
        h.thresholdHi = r.view.getInt32(r.pos + 4, true);
        r.pos += 8;
        break;
      case F.zeroCountInt:
        r.varint64(end);
        h.zeroFloat = false;
        zeroTooBig = r.hi >>> 0 >= HI_53;
        h.zeroInt = zeroTooBig ? 0 : (r.hi >>> 0) * TWO_32 + (r.lo >>> 0);
        break;
      case F.zeroCountFloat:
        h.zeroFloat = true;
        h.zeroLo = r.view.getInt32(r.pos, true);
        h.zeroHi = r.view.getInt32(r.pos + 4, true);
        r.pos += 8;
        break;
      case F.negativeSpans:
      case F.positiveSpans:
        readSpan(r, r.len(end), field === F.negativeSpans ? h.neg : h.pos);
        break;
      case F.negativeDeltas:
      case F.positiveDeltas: {
        const side = field === F.negativeDeltas ? h.neg : h.pos;
        if (packed) {
          const stop = r.len(end);
          while (r.pos < stop) if (!readDelta(r, stop, side)) deltaTooBig = true;
        } else if (!readDelta(r, end, side)) {
          deltaTooBig = true;
        }
        break;
      }
      case F.negativeCounts:
      case F.positiveCounts: {
        const side = field === F.negativeCounts ? h.neg : h.pos;
        if (packed) {
          const stop = r.len(end);
          if ((stop - r.pos) % 8 !== 0) throw malformedRequest(r.pos, `Histogram field ${field}: packed doubles are not a multiple of 8 bytes`);
          for (; r.pos < stop; r.pos += 8) side.addCount(r.view.getInt32(r.pos, true), r.view.getInt32(r.pos + 4, true));
        } else {
          side.addCount(r.view.getInt32(r.pos, true), r.view.getInt32(r.pos + 4, true));
          r.pos += 8;
        }
        break;
      }
      case F.resetHint:
        r.varint64(end);
        // An enum value Prometheus does not know reads as "unknown".
        h.resetHint = r.hi === 0 && r.lo >= 0 && r.lo <= 3 ? r.lo : 0;
        break;
      case F.timestamp:
        r.varint64(end);
        h.tLo = r.lo;
        h.tHi = r.hi;
        break;
    }
  }
  // Only the fields of the histogram's kind count (the other kind's are ignored).
  if (h.float) return;
  if (countTooBig) h.problem = 'count of 2^53 or more, which this store does not hold exactly';
  else if (zeroTooBig && !h.zeroFloat) h.problem = 'zero count of 2^53 or more, which this store does not hold exactly';
  else if (deltaTooBig) h.problem = 'a bucket delta of 2^53 or more in magnitude, which this store does not hold exactly';
}

/** Reads a sint64 bucket delta; false (and 0 kept) when its magnitude is 2^53 or more. */
function readDelta(r: WireReader, end: number, side: SideFields): boolean {
  r.varint64(end);
  const hi = r.hi >>> 0;
  const lo = r.lo >>> 0;
  // zigzag: half = u >>> 1, negative when u is odd.
  const half = hi * 2147483648 + (lo >>> 1);
  if (hi >= 1 << 22 || half > Number.MAX_SAFE_INTEGER - 1) {
    side.addDelta(0);
    return false;
  }
  side.addDelta((lo & 1) === 0 ? half : -(half + 1));
  return true;
}

/** A BucketSpan: offset sint32 = 1, length uint32 = 2. */
function readSpan(r: WireReader, stop: number, side: SideFields): void {
  let offset = 0;
  let length = 0;
  while (r.pos < stop) {
    const at = r.pos;
    const tag = r.tag(stop);
    if (tag === SPAN_OFFSET) {
      r.varint64(stop);
      offset = (r.lo >>> 1) ^ -(r.lo & 1);
    } else if (tag === SPAN_LENGTH) {
      r.varint64(stop);
      length = r.lo >>> 0;
    } else if (tag >>> 3 <= 2) {
      throw wrongWireType(at, 'BucketSpan', tag >>> 3, tag & 7, WIRE.varint);
    } else {
      r.skip(tag & 7, stop);
    }
  }
  side.addSpan(offset, length);
}
