/**
 * OTLP attribute values as strings, as Prometheus takes them (pcommon's
 * Value.AsString in the OpenTelemetry Collector's pdata): strings as they
 * are, booleans `true`/`false`, integers in decimal, doubles as Go's
 * strconv.FormatFloat(v, 'g', -1, 64), bytes as standard base64, arrays
 * and maps as JSON.
 */

/** A double as Go's FormatFloat(v, 'g', -1, 64): shortest digits, exponent form when the exponent is below -4 or 6 and above. */
export function goFloatString(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const e = v.toExponential();
  const at = e.indexOf('e');
  const exp = Number(e.slice(at + 1));
  // Go's %g with the shortest digits switches to exponent form when the exponent is < -4 or >= 6 (eprec = 6).
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const digits = String(Math.abs(exp)).padStart(2, '0');
    return `${e.slice(0, at)}e${sign}${digits}`;
  }
  return v.toString();
}

/**
 * A double as Go's FormatFloat(v, 'f', -1, 64), which Prometheus uses for
 * the `le` and `quantile` labels: shortest digits, never an exponent.
 */
export function goFloatFixed(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  const s = v.toString();
  if (!s.includes('e')) return s;
  const e = v.toExponential();
  const at = e.indexOf('e');
  const exp = Number(e.slice(at + 1));
  const neg = e.startsWith('-');
  const digits = e.slice(neg ? 1 : 0, at).replace('.', '');
  let out: string;
  if (exp < 0) out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  else out = digits.length > exp + 1 ? `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}` : digits + '0'.repeat(exp + 1 - digits.length);
  return neg ? `-${out}` : out;
}

/** Bytes as standard base64 (Go's base64.StdEncoding, which pcommon uses for bytes values). */
export function bytesString(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
}

/** Bytes as lower-case hex (trace and span ids of exemplars). */
export function hexString(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}
