import type { HashExports, HeadExports, MemoryExports, SeriesKeysExports, XorExports } from './exports.js';
import { instantiateStrataWasm } from './module.js';

/**
 * The module as the head and the write path use it: the head's functions,
 * the hashes of batches and request keys, and the XOR appender state of
 * its series slots.
 */
export type HeadWasm = MemoryExports & XorExports & HashExports & SeriesKeysExports & HeadExports;

/** A new module instance for one head (its memory holds every open chunk). */
export function instantiateHeadWasm(): HeadWasm {
  return instantiateStrataWasm();
}
