/**
 * `--log.level` and `--log.format`, named, valued and defaulted as
 * Thanos' (cmd/thanos/main.go): levels error, warn, info, debug; formats
 * logfmt (the default) and json. Thanos' third format, journald, is not
 * offered: it is refused by name.
 */
import { UsageError } from '../config/usage-error.js';

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
export type LogFormat = 'logfmt' | 'json';

/** What the logger is made with. */
export interface LogConfig {
  level: LogLevel;
  format: LogFormat;
}

/** The flags, for node:util parseArgs (the level's default depends on --env). */
export const logFlags = {
  'log.level': { type: 'string' },
  'log.format': { type: 'string', default: 'logfmt' },
} as const;

/** Their lines of a subcommand's --help. */
export const logHelp = `  --log.level LEVEL         log filtering level: error, warn, info or debug (default info; debug with --env development)
  --log.format FORMAT       log format: logfmt or json (default logfmt)`;

const LEVELS: readonly string[] = ['error', 'warn', 'info', 'debug'];

/** Parses the flags. Throws UsageError on a value Thanos would not take. */
export function parseLogFlags(values: { 'log.level'?: string | undefined; 'log.format': string }, env: 'development' | 'production'): LogConfig {
  const level = values['log.level'] ?? (env === 'development' ? 'debug' : 'info');
  if (!LEVELS.includes(level)) throw new UsageError(`--log.level: '${level}' is not error, warn, info or debug`);
  const format = values['log.format'];
  if (format === 'journald') throw new UsageError("--log.format: 'journald' is not supported by Strata (logfmt or json)");
  if (format !== 'logfmt' && format !== 'json') throw new UsageError(`--log.format: '${format}' is not logfmt or json`);
  return { level: level as LogLevel, format };
}
