// Moved to src/bench/run/progress.ts (one copy, shared with `strata bench`).
export * from '../../src/bench/run/progress.js';
