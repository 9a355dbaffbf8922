/**
 * Durations as Prometheus and Thanos write them: Prometheus'
 * `model.Duration` (flags such as --storage.tsdb.retention.time, every
 * `*_timeout` of Thanos' http_config),
 * units y, w, d, h, m, s, ms, largest first, each at most once, integers
 * only: `1m30s`, `2m`, `10s`, `500ms`, and `0`. Go's own `time.Duration`
 * syntax (`1.5h`, `300us`) is refused by Thanos and so here too.
 */
const DURATION = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?$/;
const UNIT_MS = [365 * 86_400_000, 7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000, 1];

/** Milliseconds of `text`, or undefined when it is not such a duration. */
export function parseModelDuration(text: string): number | undefined {
  if (text === '0') return 0;
  if (text === '') return undefined;
  const m = DURATION.exec(text);
  if (m === null) return undefined;
  let ms = 0;
  for (let i = 0; i < UNIT_MS.length; i++) {
    const n = m[i + 1];
    if (n !== undefined) ms += Number(n) * UNIT_MS[i]!;
  }
  // Prometheus refuses what overflows an int64 of nanoseconds.
  if (!Number.isSafeInteger(ms) || ms > 9_223_372_036_854) return undefined;
  return ms;
}
