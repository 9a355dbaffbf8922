// Moved to src/bench/compare/proc.ts (one copy, shared with `strata bench compare`).
export * from '../../src/bench/compare/proc.js';
