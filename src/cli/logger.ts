import { pino, type Logger } from 'pino';
import type { Env } from './serve-options.js';

export type { Logger };

/** JSON lines on stderr; development adds debug lines. */
export function createLogger(env: Env): Logger {
  return pino({ level: env === 'development' ? 'debug' : 'info', base: { service: 'strata' } }, pino.destination(2));
}
