import { WIRE, WireReader } from '../encoding/wire-reader.js';
import type { StoredChunk } from '../query/types.js';

/** Prometheus' XOR chunk encoding (prompb Chunk.Encoding 1): left off a StoredChunk, as the default. */
const XOR = 1;

/** One ChunkedSeries as decoded: labels flat (name, value, ...), chunks with their bytes as views of the frame. */
export interface DecodedSeries {
  labels: string[];
  chunks: StoredChunk[];
}

/**
 * Decodes one ChunkedReadResponse (prompb/remote.proto) by hand: the
 * generated decoder made a BigInt per timestamp and an object per label
 * and chunk before the sidecar made its own; here each chunk's bytes stay
 * a view of `body` (valid as long as `body`) and each series comes out
 * once, as the sidecar keeps it. Unknown fields are skipped, as protobuf
 * wants. Throws MalformedRequestError (with the offset) on broken bytes.
 *
 * @param onSeries called with each series in the order of the message
 * @returns whether a label holds a character outside the BMP (a surrogate pair in JS)
 */
export function decodeChunkedReadResponse(body: Buffer, onSeries: (s: DecodedSeries) => void): boolean {
  fourByteUtf8 = false;
  const r = new WireReader(body);
  const end = body.length;
  while (r.pos < end) {
    const tag = r.tag(end);
    if (tag === ((1 << 3) | WIRE.len)) {
      const stop = r.len(end);
      onSeries(readSeries(r, body, stop));
      r.pos = stop;
    } else {
      r.skip(tag & 7, end);
    }
  }
  return fourByteUtf8;
}

/** Whether the message being decoded had a 4-byte UTF-8 sequence in a label (its lead byte is 0xF0 or above). */
let fourByteUtf8 = false;

function readSeries(r: WireReader, body: Buffer, end: number): DecodedSeries {
  const labels: string[] = [];
  const chunks: StoredChunk[] = [];
  while (r.pos < end) {
    const tag = r.tag(end);
    if (tag === ((1 << 3) | WIRE.len)) {
      const stop = r.len(end);
      readLabel(r, body, stop, labels);
      r.pos = stop;
    } else if (tag === ((2 << 3) | WIRE.len)) {
      const stop = r.len(end);
      chunks.push(readChunk(r, body, stop));
      r.pos = stop;
    } else {
      r.skip(tag & 7, end);
    }
  }
  return { labels, chunks };
}

function readLabel(r: WireReader, body: Buffer, end: number, out: string[]): void {
  let name = '';
  let value = '';
  while (r.pos < end) {
    const tag = r.tag(end);
    if (tag === ((1 << 3) | WIRE.len) || tag === ((2 << 3) | WIRE.len)) {
      const stop = r.len(end);
      if (!fourByteUtf8) for (let i = r.pos; i < stop; i++) if (body[i]! >= 0xf0) fourByteUtf8 = true;
      const s = body.toString('utf8', r.pos, stop);
      if (tag >>> 3 === 1) name = s;
      else value = s;
      r.pos = stop;
    } else {
      r.skip(tag & 7, end);
    }
  }
  out.push(name, value);
}

function readChunk(r: WireReader, body: Buffer, end: number): StoredChunk {
  let minT = 0;
  let maxT = 0;
  let type = 0;
  let data: Uint8Array = EMPTY;
  while (r.pos < end) {
    const tag = r.tag(end);
    switch (tag) {
      case (1 << 3) | WIRE.varint:
        minT = r.int64Number(end);
        break;
      case (2 << 3) | WIRE.varint:
        maxT = r.int64Number(end);
        break;
      case (3 << 3) | WIRE.varint:
        r.varint64(end);
        type = r.lo;
        break;
      case (4 << 3) | WIRE.len: {
        const stop = r.len(end);
        data = body.subarray(r.pos, stop);
        r.pos = stop;
        break;
      }
      default:
        r.skip(tag & 7, end);
    }
  }
  const chunk: StoredChunk = { minT, maxT, data };
  if (type !== XOR) chunk.encoding = type;
  return chunk;
}

const EMPTY = new Uint8Array(0);
