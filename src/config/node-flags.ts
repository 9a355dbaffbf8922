/**
 * The node flags `strata serve` runs with: bin/strata.js' first line,
 * `npm start`, the README's service examples and the benchmarks' spawns
 * all pass them (a test checks they agree). V8 sizes its heap when the
 * process starts, so they cannot be set from inside.
 *
 * --max-semi-space-size=2: V8's young generation grows to 16 MiB a
 * semi-space while the modules load and never shrinks: 18 MiB of an idle
 * server's RSS, and 25-40 MiB of its peak under remote write. At 2 MiB the
 * same loads measured no more CPU a sample (2026-11-28, 100k x 30 and
 * 1M x 6).
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2'];
