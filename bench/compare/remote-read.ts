// Moved to src/bench/compare/remote-read.ts (one copy, shared with `strata bench compare`).
export * from '../../src/bench/compare/remote-read.js';
