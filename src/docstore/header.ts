/**
 * The 64-byte segment header (docs/format/records.md, "Header").
 */
import { crc32c } from '@node-rs/crc32';
import { COLLECTIONS, FORMAT_VERSION, HEADER_SIZE, MAGIC } from './format.js';

/** What a header says about its file. */
export interface SegmentHeader {
  /** FLAG_* bits. */
  flags: number;
  /** The file's number, as in its name. */
  num: number;
  /** First and last segment numbers whose records the file holds. */
  first: number;
  last: number;
  /** Highest id ever written per collection (COLLECTIONS order) when the file was made. */
  lastIds: number[];
}

const LAST_IDS_AT = 24;
const CRC_AT = HEADER_SIZE - 4;
const TWO_32 = 2 ** 32;

/** The header's bytes. */
export function encodeHeader(h: SegmentHeader): Buffer {
  const buf = Buffer.alloc(HEADER_SIZE);
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeUInt16LE(FORMAT_VERSION, 4);
  buf.writeUInt16LE(h.flags, 6);
  buf.writeUInt32LE(h.num, 8);
  buf.writeUInt32LE(h.first, 12);
  buf.writeUInt32LE(h.last, 16);
  COLLECTIONS.forEach((_, i) => {
    const id = h.lastIds[i] ?? 0;
    buf.writeUInt32LE(id % TWO_32, LAST_IDS_AT + i * 8);
    buf.writeUInt32LE(Math.floor(id / TWO_32), LAST_IDS_AT + i * 8 + 4);
  });
  buf.writeUInt32LE(crc32c(buf.subarray(0, CRC_AT)), CRC_AT);
  return buf;
}

/** The header in `buf` (at least HEADER_SIZE bytes), or why it is not one. */
export function decodeHeader(buf: Uint8Array): SegmentHeader | string {
  const b = Buffer.from(buf.buffer, buf.byteOffset, HEADER_SIZE);
  if (b.readUInt32LE(0) !== MAGIC) return 'bad magic number (not a record segment)';
  const version = b.readUInt16LE(4);
  if (version !== FORMAT_VERSION) return `unsupported format version ${version} (this build reads ${FORMAT_VERSION})`;
  if (crc32c(b.subarray(0, CRC_AT)) !== b.readUInt32LE(CRC_AT)) return 'header checksum mismatch';
  const lastIds = COLLECTIONS.map((_, i) =>
    b.readUInt32LE(LAST_IDS_AT + i * 8) + b.readUInt32LE(LAST_IDS_AT + i * 8 + 4) * TWO_32);
  if (lastIds.some((id) => id > Number.MAX_SAFE_INTEGER)) return 'last id beyond 2^53';
  const h = { flags: b.readUInt16LE(6), num: b.readUInt32LE(8), first: b.readUInt32LE(12), last: b.readUInt32LE(16), lastIds };
  if (h.first > h.last || h.last > h.num) return `bad segment range ${h.first}..${h.last} in file ${h.num}`;
  return h;
}
