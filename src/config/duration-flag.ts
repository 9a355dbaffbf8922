import { UsageError } from './usage-error.js';
import { parseModelDuration } from './duration.js';

/**
 * Parses a duration as Prometheus writes them: units ms, s, m, h, d, w, y,
 * largest first, e.g. `15d`, `1h30m`, `500ms`. Returns milliseconds.
 */
export function parseDuration(flag: string, value: string): number {
  const ms = parseModelDuration(value);
  if (ms === undefined) throw new UsageError(`--${flag}: '${value}' is not a duration such as 15d, 1h30m or 500ms`);
  return ms;
}
