import type { MatcherExports, MemoryExports } from './exports.js';
import { instantiateStrataWasm } from './module.js';

/** The module as the postings algebra and the value scanner use it. */
export type MatcherWasm = MemoryExports & MatcherExports;

let instance: MatcherWasm | undefined;

/**
 * This thread's matcher module instance (its own memory, apart from the
 * codec's), created on first use. Not shared between threads.
 */
export function threadMatcherWasm(): MatcherWasm {
  instance ??= instantiateStrataWasm();
  return instance;
}
