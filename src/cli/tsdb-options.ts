/**
 * `strata serve`'s sample-time flags, named and defaulted as Thanos
 * Receive's (cmd/thanos/receive.go), so that a configuration carries over:
 * `--tsdb.out-of-order.time-window` and `--tsdb.too-far-in-future.time-window`.
 */
import { parseDuration } from '../config/duration-flag.js';

/** The flags, for node:util parseArgs. */
export const tsdbFlags = {
  'tsdb.out-of-order.time-window': { type: 'string', default: '0s' },
  'tsdb.too-far-in-future.time-window': { type: 'string', default: '0s' },
} as const;

/** Their lines of `strata serve --help`. */
export const tsdbHelp = `  --tsdb.out-of-order.time-window DUR  accept samples out of order back to the newest sample held minus DUR,
                                       kept exactly and merged into their blocks (default 0s: refused)
  --tsdb.too-far-in-future.time-window DUR  refuse samples newer than now + DUR (default 0s: no limit)`;

/** What the flags configure (ms; 0: off), as Db.open takes it. */
export interface TsdbConfig {
  outOfOrderWindowMs: number;
  tooFarInFutureMs: number;
}

/** The flags' values as parseArgs gives them. */
interface Values {
  'tsdb.out-of-order.time-window': string;
  'tsdb.too-far-in-future.time-window': string;
}

/** Parses the flags. Throws UsageError on a bad duration. */
export function parseTsdbFlags(values: Values): TsdbConfig {
  return {
    outOfOrderWindowMs: parseDuration('tsdb.out-of-order.time-window', values['tsdb.out-of-order.time-window']),
    tooFarInFutureMs: parseDuration('tsdb.too-far-in-future.time-window', values['tsdb.too-far-in-future.time-window']),
  };
}
