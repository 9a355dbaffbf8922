import type { Logger } from 'pino';
import type { StrataLogger } from './options.js';

const nothing = (): void => {};

/** The logger of a store given none: every line dropped. */
export const SILENT_LOGGER: StrataLogger = Object.freeze({ debug: nothing, info: nothing, warn: nothing, error: nothing });

/**
 * The logger as the HTTP front end's type names it (pino's Logger): the
 * front end calls only debug, info, warn and error, which every
 * StrataLogger has (checked when the store opens).
 */
export function asPino(log: StrataLogger): Logger {
  return log as unknown as Logger;
}
