// Moved to src/bench/compare/disk.ts (one copy, shared with `strata bench compare`).
export * from '../../src/bench/compare/disk.js';
