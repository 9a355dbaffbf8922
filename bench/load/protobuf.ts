// Moved to src/bench/load/protobuf.ts (one copy, shared with `strata bench`).
export * from '../../src/bench/load/protobuf.js';
