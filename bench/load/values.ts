// Moved to src/bench/load/values.ts (one copy, shared with `strata bench`).
export * from '../../src/bench/load/values.js';
