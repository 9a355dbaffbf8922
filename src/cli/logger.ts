import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogConfig } from './log-options.js';
import { toLogfmt } from './logfmt.js';

export type { Logger };

/** Pino's level names as go-kit's: its four, with trace under debug and fatal under error. */
const GO_LEVEL: Readonly<Record<string, string>> = { trace: 'debug', debug: 'debug', info: 'info', warn: 'warn', error: 'error', fatal: 'error' };

/**
 * The logger `strata serve` and `strata sidecar` write to stderr with, in
 * Thanos' shapes: `ts` an RFC 3339 UTC time, `level` a name, `msg`; as
 * logfmt lines or JSON objects (--log.format). Writes are pino's
 * synchronous ones to fd 2, as before: a log line is never lost on exit.
 */
export function createLogger(config: LogConfig): Logger {
  const fd2 = pino.destination(2);
  const dest: DestinationStream = config.format === 'json' ? fd2 : { write: (line: string) => fd2.write(toLogfmt(line)) };
  return pino({
    level: config.level,
    base: null,
    timestamp: () => `,"ts":"${new Date().toISOString()}"`,
    formatters: { level: (label) => ({ level: GO_LEVEL[label] ?? label }) },
  }, dest);
}
