// Moved to src/bench/compare/peers.ts (one copy, shared with `strata bench compare`).
export * from '../../src/bench/compare/peers.js';
