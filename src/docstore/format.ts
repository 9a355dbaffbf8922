/**
 * Constants of the record segment format, version 1. docs/format/records.md
 * is the specification; change both together and bump FORMAT_VERSION.
 */
import type { Collection } from './types.js';

/** "SRec": the first four bytes of every segment file. */
export const MAGIC = 0x63655253;

/** Format version written in every header. */
export const FORMAT_VERSION = 1;

/** Fixed header size: room for four collections' last ids and a checksum. */
export const HEADER_SIZE = 64;

/** Header flag: the file is a compaction output covering several segments. */
export const FLAG_COMPACTED = 1;

/** A frame is crc32c (u32 LE) then payload length (u32 LE), then the payload. */
export const FRAME_HEADER_SIZE = 8;

/**
 * Largest payload a frame may declare. Bodies are capped at 1 MiB by the
 * HTTP layer; 256 MiB leaves room for big multi-op commits while letting
 * recovery reject absurd lengths read from damaged bytes.
 */
export const MAX_PAYLOAD = 256 * 1024 * 1024;

/** Record kind byte: a group of ops applied together (the only kind in v1). */
export const KIND_OPS = 1;

/** Low nibble of an op's tag byte. */
export const OP_PUT = 1;
export const OP_DELETE = 2;

/** Collection codes (high nibble of an op's tag; header slot = code - 1). */
export const COLLECTIONS: readonly Collection[] = ['tasks', 'users', 'discussions', 'comments'];

const codes = new Map<string, number>(COLLECTIONS.map((c, i) => [c, i + 1]));

/** The code of `collection`, or 0 when it is not one the format knows. */
export function collectionCode(collection: string): number {
  return codes.get(collection) ?? 0;
}

/** The collection of `code`, or undefined for an unknown code. */
export function collectionOf(code: number): Collection | undefined {
  return COLLECTIONS[code - 1];
}

/** Segment file name: the file number, 10 decimal digits, then `.seg`. */
export function segmentFileName(num: number): string {
  return `${String(num).padStart(10, '0')}.seg`;
}

/** The file number in a segment file name, or undefined for other names. */
export function parseSegmentFileName(name: string): number | undefined {
  const m = /^(\d{10})\.seg$/.exec(name);
  return m ? Number(m[1]) : undefined;
}

/** Suffix of a compaction output before it is renamed into place. */
export const TEMP_SUFFIX = '.tmp';
