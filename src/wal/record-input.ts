/**
 * Checks a record handed to the WAL and views its payload as parts.
 */
import { badRecordType, payloadTooLarge } from './errors.js';
import { MAX_PAYLOAD_BYTES, MAX_RECORD_TYPE, MIN_RECORD_TYPE } from './format.js';

/** A record payload: one buffer, or several written back to back as one record. */
export type WalPayload = Uint8Array | readonly Uint8Array[];

/** A record as checkpoint() takes it. */
export interface WalRecord {
  type: number;
  payload: WalPayload;
}

/** Throws a WalError unless `type` is an integer in 1..255. */
export function checkRecordType(type: number): void {
  if (!Number.isInteger(type) || type < MIN_RECORD_TYPE || type > MAX_RECORD_TYPE) throw badRecordType(type);
}

/** Total bytes of `payload`; throws a WalError past MAX_PAYLOAD_BYTES. */
export function payloadLength(payload: WalPayload): number {
  let n = 0;
  if (payload instanceof Uint8Array) n = payload.byteLength;
  else for (const p of payload) n += p.byteLength;
  if (n > MAX_PAYLOAD_BYTES) throw payloadTooLarge(n, MAX_PAYLOAD_BYTES);
  return n;
}

/** The parts of `parts` left after the first `skip` bytes, for resuming a short write. */
export function partsAfter(parts: readonly Uint8Array[], skip: number): Uint8Array[] {
  const rest: Uint8Array[] = [];
  for (const p of parts) {
    if (skip >= p.byteLength) {
      skip -= p.byteLength;
      continue;
    }
    rest.push(skip > 0 ? p.subarray(skip) : p);
    skip = 0;
  }
  return rest;
}
