import type { Logger } from './logger.js';

/** Exit status when start-up fails on something the operator must fix. */
export const EXIT_STARTUP = 1;

/**
 * Logs a start-up failure as one line in the logger's format, naming the
 * cause (and its code: EADDRINUSE, EACCES, ...), and gives the exit status.
 * The stack is logged only at debug level (`--env development`): the
 * operator needs the cause, not where in Strata it surfaced.
 */
export function startupFailed(log: Logger, err: unknown): number {
  const e = err as (Error & { code?: unknown }) | undefined;
  const message = e?.message ?? String(err);
  const detail: Record<string, unknown> = { type: e?.name ?? typeof err };
  if (typeof e?.code === 'string') detail.code = e.code;
  if (log.isLevelEnabled('debug') && e?.stack !== undefined) detail.stack = e.stack;
  log.error({ err: detail }, `start-up failed: ${message}`);
  return EXIT_STARTUP;
}
