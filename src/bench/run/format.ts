/** Number formatting shared by the progress line, the summary and the reports. */

/** `n` with thousands separators and `digits` decimals; "n/a" when not finite. */
export function fmt(n: number, digits = 0): string {
  return Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a';
}

/** Bytes in MiB with one decimal. */
export function mib(bytes: number): string {
  return `${fmt(bytes / 2 ** 20, 1)} MiB`;
}

/** A latency in ms with a precision that suits it (0.123, 1.23, 12.3, 123). */
export function ms(x: number): string {
  if (!Number.isFinite(x)) return 'n/a';
  return fmt(x, x < 1 ? 3 : x < 10 ? 2 : x < 100 ? 1 : 0);
}

/** Seconds as "4.2 s", "42.0 s", "3 min 20 s" or "1 h 05 min" (not rounded up to a whole second under a minute). */
export function seconds(s: number): string {
  if (!Number.isFinite(s) || s < 0) return 'n/a';
  if (s < 60) return `${fmt(s, 1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(Math.floor(s % 60)).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}
