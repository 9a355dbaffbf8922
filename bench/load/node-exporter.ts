// Moved to src/bench/load/node-exporter.ts (one copy, shared with `strata bench`).
export * from '../../src/bench/load/node-exporter.js';
