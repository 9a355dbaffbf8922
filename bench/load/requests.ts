// Moved to src/bench/load/requests.ts (one copy, shared with `strata bench`).
export * from '../../src/bench/load/requests.js';
