/**
 * The payload of a record (docs/format/records.md, "Payload"):
 *
 *   kind u8 (KIND_OPS) | count uvarint | op × count
 *   op = tag u8 (collection code << 4 | OP_PUT or OP_DELETE) | id uvarint
 *        [ | length uvarint | JSON bytes ]   (puts only)
 */
import { collectionOf, FRAME_HEADER_SIZE, KIND_OPS, OP_DELETE, OP_PUT } from './format.js';
import { sealFrame } from './frame.js';
import { putUvarint, readUvarint, uvarintSize, type VarintRead } from '../encoding/varint.js';

/** One op ready to be written: JSON bytes for a put, none for a delete. */
export interface EncodedOp {
  code: number;
  id: number;
  json: Uint8Array | undefined;
}

/** Bytes `op` takes in a payload. */
export function opSize(id: number, jsonLength: number | undefined): number {
  return 1 + uvarintSize(id) + (jsonLength === undefined ? 0 : uvarintSize(jsonLength) + jsonLength);
}

/** Bytes a frame holding `ops` takes. */
export function frameSize(ops: readonly EncodedOp[]): number {
  let size = FRAME_HEADER_SIZE + 1 + uvarintSize(ops.length);
  for (const op of ops) size += opSize(op.id, op.json?.length);
  return size;
}

/**
 * One sealed frame holding `ops`, and where each put's JSON starts in it
 * (-1 for deletes), so the index can point at the bytes once written.
 */
export function encodeOpsFrame(ops: readonly EncodedOp[]): { frame: Buffer; valueAt: number[] } {
  const frame = Buffer.allocUnsafe(frameSize(ops));
  const valueAt: number[] = [];
  let at = FRAME_HEADER_SIZE;
  frame[at++] = KIND_OPS;
  at = putUvarint(frame, at, ops.length);
  for (const op of ops) {
    frame[at++] = (op.code << 4) | (op.json === undefined ? OP_DELETE : OP_PUT);
    at = putUvarint(frame, at, op.id);
    if (op.json === undefined) {
      valueAt.push(-1);
      continue;
    }
    at = putUvarint(frame, at, op.json.length);
    valueAt.push(at);
    frame.set(op.json, at);
    at += op.json.length;
  }
  return { frame: sealFrame(frame), valueAt };
}

/**
 * Called per op, in order. `valueAt`/`valueLength` locate a put's JSON in
 * the buffer (-1/0 for deletes); `size` is the op's bytes in the payload.
 */
export type OpVisitor = (code: number, put: boolean, id: number, valueAt: number, valueLength: number, size: number) => void;

/**
 * Walks the ops of the payload in [start, end) of `buf`. Returns undefined,
 * or why the payload is malformed (then no op has been visited: a record is
 * applied whole or not at all).
 */
export function decodeOps(buf: Uint8Array, start: number, end: number, visit: OpVisitor): string | undefined {
  const problem = walk(buf, start, end, undefined);
  if (problem !== undefined) return problem;
  walk(buf, start, end, visit);
  return undefined;
}

function walk(buf: Uint8Array, start: number, end: number, visit: OpVisitor | undefined): string | undefined {
  const vr: VarintRead = { value: 0, next: 0 };
  if (buf[start] !== KIND_OPS) return `unknown record kind ${buf[start]}`;
  if (readUvarint(buf, start + 1, end, vr).next < 0) return 'bad op count';
  const count = vr.value;
  let at = vr.next;
  for (let i = 0; i < count; i++) {
    const opStart = at;
    if (at >= end) return `payload ends before op ${i} of ${count}`;
    const tag = buf[at++]!;
    const code = tag >> 4;
    const kind = tag & 0x0f;
    if (collectionOf(code) === undefined || (kind !== OP_PUT && kind !== OP_DELETE)) return `bad op tag 0x${tag.toString(16)} in op ${i}`;
    if (readUvarint(buf, at, end, vr).next < 0 || vr.value < 1) return `bad id in op ${i}`;
    const id = vr.value;
    at = vr.next;
    if (kind === OP_DELETE) {
      visit?.(code, false, id, -1, 0, at - opStart);
      continue;
    }
    if (readUvarint(buf, at, end, vr).next < 0 || vr.value > end - vr.next) return `bad value length in op ${i}`;
    const valueAt = vr.next;
    const len = vr.value;
    at = valueAt + len;
    visit?.(code, true, id, valueAt, len, at - opStart);
  }
  return at === end ? undefined : `${end - at} bytes after the last op`;
}
