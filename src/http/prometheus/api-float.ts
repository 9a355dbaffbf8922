/**
 * Sample values as the Prometheus HTTP API writes them (util/jsonutil's
 * MarshalFloat, a JSON string): Go's shortest round-trip form, plain
 * decimal unless the magnitude is below 1e-6 or at least 1e21, then
 * exponent form with at least two exponent digits; `NaN`, `+Inf`, `-Inf`.
 */
export function formatFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  // JavaScript switches to exponent form at the same magnitudes; only the
  // exponent's width differs (Go writes e-07 where JavaScript writes e-7).
  const s = String(f);
  const e = s.indexOf('e');
  if (e < 0) return s;
  const sign = s[e + 1]!;
  const digits = s.slice(e + 2);
  return `${s.slice(0, e)}e${sign}${digits.length < 2 ? `0${digits}` : digits}`;
}

/** A timestamp in ms as the API writes it: seconds, with the milliseconds as a fraction when there are any (`1700000000.5`). */
export function formatTimestamp(ms: number): string {
  const neg = ms < 0;
  const a = Math.abs(ms);
  const s = Math.floor(a / 1000);
  const frac = a - s * 1000;
  const text = frac === 0 ? String(s) : `${s}.${String(frac).padStart(3, '0')}`;
  return neg ? `-${text}` : text;
}
