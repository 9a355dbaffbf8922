/**
 * Checks of the integers a writer takes from its caller: a value that is not
 * one is a RangeError naming the field, never the bytes of another number.
 */

/** Throws a RangeError unless `value` is an integer in 0..2^53-1; `what` names it. */
export function checkUnsigned(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${what}: ${value} is not an integer in 0..2^53-1`);
  }
}

/** Throws a RangeError unless `value` is an integer in ±(2^53-1); `what` names it. */
export function checkSigned(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`${what}: ${value} is not an integer in ±(2^53-1)`);
  }
}
