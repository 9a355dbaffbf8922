/**
 * Checking a commit's ops and turning them into bytes, before anything is
 * written: an invalid op fails the whole commit with nothing applied.
 */
import { invalidOp } from './errors.js';
import { collectionCode } from './format.js';
import type { EncodedOp } from './ops-codec.js';
import type { WriteOp } from './types.js';

/** The op at index `i` of a commit, encoded; throws InvalidWriteError. */
export function encodeOp(op: WriteOp, i: number): EncodedOp {
  const code = collectionCode(op.collection);
  if (code === 0) throw invalidOp(i, `unknown collection ${JSON.stringify(op.collection)}`);
  if (!Number.isSafeInteger(op.id) || op.id < 1) throw invalidOp(i, `id ${op.id} is not a positive integer`);
  if (op.op === 'delete') return { code, id: op.id, json: undefined };
  if (op.op !== 'put') throw invalidOp(i, `op ${JSON.stringify((op as { op: unknown }).op)} is neither put nor delete`);
  const value: unknown = op.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidOp(i, 'value is not a JSON object');
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw invalidOp(i, `value cannot be written as JSON: ${(err as Error).message}`);
  }
  // toJSON can turn an object into something else (a Date into a string).
  if (text === undefined || !text.startsWith('{')) throw invalidOp(i, 'value does not serialize to a JSON object');
  return { code, id: op.id, json: Buffer.from(text, 'utf8') };
}
