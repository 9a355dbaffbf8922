/** Resource ids in paths. */
import { badRequest } from './errors.js';

/**
 * Parses a path id: decimal digits, 1 to 2^53-1. Anything else is answered
 * 400 (a malformed id names no resource, so it is not a 404).
 */
export function parseId(text: string): number {
  const n = text.length;
  if (n === 0 || n > 16) throw badId(text);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) throw badId(text);
  }
  const id = Number(text);
  if (id < 1 || id > Number.MAX_SAFE_INTEGER) throw badId(text);
  return id;
}

function badId(text: string) {
  return badRequest(`'${text}' is not an id: ids are positive integers`, [{ field: 'id', message: 'must be a positive integer' }]);
}
