/**
 * A chunk segment entry's header (docs/format/chunks-head.md): series id,
 * min time, max time - min time, encoding, data length. Varints keep it
 * near 15 bytes where fixed fields took 25: on disk that is most of what a
 * 120-sample chunk costs beyond its samples.
 */

/** Longest header: id (5), min time (10), span (10), encoding (1), length (5). */
export const MAX_ENTRY_HEADER = 31;

export interface EntryHeader {
  id: number;
  minT: number;
  maxT: number;
  encoding: number;
  /** Offset of the data in the buffer read, and its length. */
  dataAt: number;
  dataLen: number;
}

/** Writes a header at `at`; returns where the data goes. */
export function writeEntryHeader(b: Uint8Array, at: number, id: number, minT: number, maxT: number, encoding: number, dataLen: number): number {
  at = writeUvarint(b, at, id);
  at = writeUvarint(b, at, minT >= 0 ? minT * 2 : -minT * 2 - 1);
  at = writeUvarint(b, at, maxT - minT);
  b[at++] = encoding;
  return writeUvarint(b, at, dataLen);
}

/**
 * Reads the header at `at`, not past `end`, into `h`. Returns false when it
 * is cut short or malformed (a varint too long, a negative span).
 */
export function readEntryHeader(b: Uint8Array, at: number, end: number, h: EntryHeader): boolean {
  let p = at;
  const id = readUvarint(b, p, end);
  if (id < 0) return false;
  p = varEnd;
  const zz = readUvarint(b, p, end);
  if (zz < 0) return false;
  p = varEnd;
  const span = readUvarint(b, p, end);
  if (span < 0 || p >= end) return false;
  p = varEnd;
  if (p >= end) return false;
  const encoding = b[p++]!;
  const len = readUvarint(b, p, end);
  if (len < 0) return false;
  h.id = id;
  h.minT = zz % 2 === 0 ? zz / 2 : -(zz + 1) / 2;
  h.maxT = h.minT + span;
  h.encoding = encoding;
  h.dataAt = varEnd;
  h.dataLen = len;
  return true;
}

function writeUvarint(b: Uint8Array, at: number, n: number): number {
  while (n >= 128) {
    b[at++] = (n % 128) | 0x80;
    n = Math.floor(n / 128);
  }
  b[at++] = n;
  return at;
}

let varEnd = 0;

/**
 * A varint of at most 8 bytes, or -1; sets varEnd. Values up to 2^54 are
 * taken: a zigzag time of magnitude up to 2^52 ms is even there, hence exact.
 */
function readUvarint(b: Uint8Array, at: number, end: number): number {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 8 && at < end; i++) {
    const byte = b[at++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      varEnd = at;
      return value <= 2 ** 54 ? value : -1;
    }
    scale *= 128;
  }
  return -1;
}
