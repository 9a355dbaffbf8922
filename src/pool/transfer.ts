/**
 * How buffers cross between the caller's thread and a worker: moved (the
 * sender's views become empty), never copied on the hot paths.
 */
import { move, transferableSymbol, valueSymbol } from 'piscina';

/** Buffers of `views` that can be moved: only those the views cover whole. */
export function transferable(...views: ArrayBufferView[]): ArrayBuffer[] {
  const seen = new Set<ArrayBuffer>();
  for (const v of views) {
    if (v.buffer instanceof ArrayBuffer && v.byteOffset === 0 && v.byteLength === v.buffer.byteLength) seen.add(v.buffer);
  }
  return [...seen];
}

/** A task's answer that is one buffer, moved back to the caller (in a worker only). */
export function moved(buffer: ArrayBuffer): unknown {
  return move(buffer);
}

/**
 * A task's answer `value`, with `buffer` (reachable from `value`; or each
 * of several) moved rather than copied: piscina transfers what a movable
 * value lists under transferableSymbol (its transfer list is concatenated
 * with it, so a list of buffers works too) and posts what it has under
 * valueSymbol.
 */
export function movedWith(value: object, buffer: ArrayBuffer | readonly ArrayBuffer[]): unknown {
  return move({ [transferableSymbol]: buffer, [valueSymbol]: value });
}
