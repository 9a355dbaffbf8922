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
 * @param memo the strings of the series decoded before (one memo an answer)
 * @returns whether a label of the answer so far (the messages decoded
 *   with `memo`) holds a character outside the BMP (a surrogate pair in JS)
 */
export function decodeChunkedReadResponse(body: Buffer, onSeries: (s: DecodedSeries) => void, memo = new LabelMemo()): boolean {
  const r = new WireReader(body);
  const end = body.length;
  while (r.pos < end) {
    const tag = r.tag(end);
    if (tag === ((1 << 3) | WIRE.len)) {
      const stop = r.len(end);
      onSeries(readSeries(r, body, stop, memo));
      r.pos = stop;
    } else {
      r.skip(tag & 7, end);
    }
  }
  return memo.fourByteUtf8;
}

/**
 * The label strings of the series decoded last, by position, and where
 * their bytes were. Series of one answer share most of them (every label
 * name, job, often instance): a string whose bytes equal the one at the
 * same position before is taken again rather than decoded anew, which
 * spares an allocation per string (10,000 series of 10 labels: 200,000
 * strings a call, most alike) and so garbage collection.
 */
export class LabelMemo {
  body: Buffer = Buffer.alloc(0);
  at: number[] = [];
  strings: string[] = [];
  /** Offsets of the series being decoded (start, end per string), swapped in when it is done. */
  next: number[] = [];
  /**
   * Whether a string decoded with this memo had a 4-byte UTF-8 sequence
   * (its lead byte 0xF0 or above). A string taken again from the memo was
   * scanned when first decoded, so this holds for every string it gave.
   */
  fourByteUtf8 = false;
}

/** The string of body[start, stop) at position `j` of its series' labels. */
function labelString(m: LabelMemo, body: Buffer, start: number, stop: number, j: number): string {
  // By position, not pushed: a label's value may come before its name, or either be missing.
  m.next[2 * j] = start;
  m.next[2 * j + 1] = stop;
  const ps = m.at[2 * j];
  if (ps !== undefined && m.at[2 * j + 1]! - ps === stop - start) {
    const prev = m.body;
    let k = 0;
    // A loop in JS: labels are a few bytes, shorter than a native call's cost.
    while (k < stop - start && prev[ps + k] === body[start + k]) k++;
    if (k === stop - start) return m.strings[j]!;
  }
  if (!m.fourByteUtf8) for (let i = start; i < stop; i++) if (body[i]! >= 0xf0) m.fourByteUtf8 = true;
  return body.toString('utf8', start, stop);
}

function readSeries(r: WireReader, body: Buffer, end: number, m: LabelMemo): DecodedSeries {
  const labels: string[] = [];
  const chunks: StoredChunk[] = [];
  while (r.pos < end) {
    const tag = r.tag(end);
    if (tag === ((1 << 3) | WIRE.len)) {
      const stop = r.len(end);
      readLabel(r, body, stop, labels, m);
      r.pos = stop;
    } else if (tag === ((2 << 3) | WIRE.len)) {
      const stop = r.len(end);
      chunks.push(readChunk(r, body, stop));
      r.pos = stop;
    } else {
      r.skip(tag & 7, end);
    }
  }
  m.body = body;
  [m.at, m.next] = [m.next, m.at];
  m.next.length = 0;
  m.strings = labels;
  return { labels, chunks };
}

function readLabel(r: WireReader, body: Buffer, end: number, out: string[], m: LabelMemo): void {
  let name = '';
  let value = '';
  while (r.pos < end) {
    const tag = r.tag(end);
    if (tag === ((1 << 3) | WIRE.len) || tag === ((2 << 3) | WIRE.len)) {
      const stop = r.len(end);
      if (tag >>> 3 === 1) name = labelString(m, body, r.pos, stop, out.length);
      else value = labelString(m, body, r.pos, stop, out.length + 1);
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
