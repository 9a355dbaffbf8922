/**
 * `strata serve`'s write-limit flags: Thanos Receive's limits
 * configuration (`--receive.limits-config-file`, `--receive.limits-config`,
 * `--receive.limits-config-reload-timer`) and Strata's memory rule
 * (`--receive.heap-limit-ratio`, `--receive.memory-limit`).
 */
import { existsSync } from 'node:fs';
import { loadLimitsFile, loadLimitsText, type WriteLimitsOptions } from '../ingest/limits/index.js';
import { parseBytes } from '../config/bytes.js';
import { parseDuration } from '../config/duration-flag.js';
import { UsageError } from '../config/usage-error.js';

/** The flags, for node:util parseArgs. */
export const writeLimitsFlags = {
  'receive.limits-config-file': { type: 'string' },
  'receive.limits-config': { type: 'string' },
  'receive.limits-config-reload-timer': { type: 'string', default: '1s' },
  'receive.heap-limit-ratio': { type: 'string', default: '0.9' },
  'receive.memory-limit': { type: 'string', default: '0' },
} as const;

/** Their lines of `strata serve --help`. */
export const writeLimitsHelp = `  --receive.limits-config-file FILE  per-tenant write limits, Thanos Receive's YAML; reloaded when it changes
  --receive.limits-config YAML       the same configuration given inline (not reloaded)
  --receive.limits-config-reload-timer DUR  how often the file is checked for changes (default 1s)
  --receive.heap-limit-ratio R       answer writes 503 while the JavaScript heap uses more than R of its limit (default 0.9; 0: off)
  --receive.memory-limit SIZE        answer writes 503 while anonymous resident memory is above SIZE (e.g. 6GB; default 0: off)`;

/** Everything but the tenant label (another flag), as startWriteLimits takes it. */
export type WriteLimitsConfig = Omit<WriteLimitsOptions, 'tenantLabel'>;

/** The flags' values as parseArgs gives them. */
interface Values {
  'receive.limits-config-file'?: string | undefined;
  'receive.limits-config'?: string | undefined;
  'receive.limits-config-reload-timer': string;
  'receive.heap-limit-ratio': string;
  'receive.memory-limit': string;
}

/** Parses the flags; the configuration is read and checked now. Throws UsageError on any mistake (exit status 2). */
export function parseWriteLimitsFlags(values: Values): WriteLimitsConfig {
  const file = values['receive.limits-config-file'];
  const inline = values['receive.limits-config'];
  if (file !== undefined && inline !== undefined) {
    throw new UsageError('--receive.limits-config-file and --receive.limits-config: give one of them, not both');
  }
  const out: WriteLimitsConfig = {
    reloadIntervalMs: interval('receive.limits-config-reload-timer', values['receive.limits-config-reload-timer']),
    memory: {
      heapRatio: ratio('receive.heap-limit-ratio', values['receive.heap-limit-ratio']),
      anonBytes: parseBytes('receive.memory-limit', values['receive.memory-limit']),
    },
  };
  if (file !== undefined) {
    if (!existsSync(file)) throw new UsageError(`--receive.limits-config-file: '${file}' does not exist`);
    out.source = { loaded: load('receive.limits-config-file', () => loadLimitsFile(file)), file };
  } else if (inline !== undefined) {
    out.source = { loaded: load('receive.limits-config', () => loadLimitsText(inline)) };
  }
  return out;
}

function load<T>(flag: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw new UsageError(`--${flag}: ${(err as Error).message}`);
  }
}

function interval(flag: string, value: string): number {
  const ms = parseDuration(flag, value);
  if (ms <= 0) throw new UsageError(`--${flag}: must be longer than 0`);
  return ms;
}

function ratio(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || !(n >= 0 && n <= 1)) throw new UsageError(`--${flag}: '${value}' is not a number from 0 to 1`);
  return n;
}
