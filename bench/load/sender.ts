// Moved to src/bench/load/sender.ts (one copy, shared with `strata bench`).
export * from '../../src/bench/load/sender.js';
