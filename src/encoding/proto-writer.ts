/**
 * Just enough of the protobuf wire format to write the Store API's large
 * answers without building message objects: sizes first, then bytes into
 * one buffer. Field tags are single bytes (field numbers below 16); the
 * varints are varint.ts' (uvarint for uint64 and lengths, uvarint64 for
 * int64, varint for sint64).
 */
import { uvarintSize } from './varint.js';

/** Bytes of a length-delimited field of `len` bytes, tag included. */
export function lenFieldSize(len: number): number {
  return 1 + uvarintSize(len) + len;
}

/** Writes a tag byte: field number and wire type. */
export function writeTag(b: Uint8Array, at: number, field: number, wireType: number): number {
  b[at] = (field << 3) | wireType;
  return at + 1;
}

export const WIRE_VARINT = 0;
export const WIRE_LEN = 2;
