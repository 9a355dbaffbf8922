// Deterministic record payloads, shared by the tests and the crash child
// (which must not import node:test).

/** `size` bytes that depend on `seq` at every position, so a record swapped or cut is noticed. */
export function payloadFor(seq: number, size: number): Buffer {
  const b = Buffer.allocUnsafe(size);
  let x = (seq * 2654435761) >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  if (size >= 4) b.writeUInt32BE(seq, 0);
  return b;
}

/** Payload size of record `seq` in the crash test: mostly small, now and then tens of KB (several pages). */
export function crashPayloadSize(seq: number): number {
  const h = Math.imul(seq + 1, 0x9e3779b1) >>> 0;
  return h % 10 === 0 ? 8192 + (h % 40_000) : 8 + (h % 2000);
}

/** Record types of the crash test: one record appended, and (in checkpoints) a range of them. */
export const CRASH_DATA = 1;
export const CRASH_RANGE = 2;
