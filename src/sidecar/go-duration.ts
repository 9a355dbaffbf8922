const UNIT_MS: Record<string, number> = {
  ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, y: 365 * 86_400_000,
};

/**
 * A duration as Go (time.ParseDuration: `1h30m`, `1.5s`, `300ms`) or
 * Prometheus (model.Duration adds `d`, `w`, `y`) print them; milliseconds,
 * or undefined when it is not one.
 */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d|w|y)/y;
  let at = 0;
  let ms = 0;
  const sign = text.startsWith('-') ? -1 : 1;
  if (text.startsWith('-') || text.startsWith('+')) at = 1;
  if (at >= text.length) return undefined;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (m === null) return undefined;
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
    at = re.lastIndex;
  }
  return sign * Math.round(ms);
}
