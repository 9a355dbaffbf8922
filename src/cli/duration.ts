import { UsageError } from './usage-error.js';

const UNIT_MS: Record<string, number> = {
  ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, y: 365 * 86_400_000,
};

/**
 * Parses a duration as Prometheus writes them: units ms, s, m, h, d, w, y,
 * largest first, e.g. `15d`, `1h30m`, `500ms`. Returns milliseconds.
 */
export function parseDuration(flag: string, value: string): number {
  const m = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/.exec(value);
  if (m === null || value === '') throw new UsageError(`--${flag}: '${value}' is not a duration such as 15d, 1h30m or 500ms`);
  const units = ['y', 'w', 'd', 'h', 'm', 's', 'ms'];
  let ms = 0;
  units.forEach((u, i) => {
    if (m[i + 1] !== undefined) ms += Number(m[i + 1]) * UNIT_MS[u]!;
  });
  if (!Number.isSafeInteger(ms)) throw new UsageError(`--${flag}: '${value}' is too long`);
  return ms;
}
