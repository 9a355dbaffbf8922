// Moved to src/bench/compare/processes.ts (one copy, shared with `strata bench compare`).
export * from '../../src/bench/compare/processes.js';
