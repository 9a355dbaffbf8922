/**
 * Pino's JSON lines rewritten as logfmt, the way Thanos' go-kit logger
 * writes them: `ts=2026-11-28T23:00:00.000Z level=info msg="..." key=value`.
 * Nested objects become dotted keys (`err.code=EADDRINUSE`), arrays their
 * JSON text. Logs are not on a hot path: one JSON.parse a line is fine.
 */

/** Keys written first, in this order; the rest follow in the line's order. */
const FIRST = ['ts', 'level', 'msg'] as const;

/** One pino JSON line (ending in a newline) as one logfmt line. */
export function toLogfmt(jsonLine: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    // Not a record (never expected from pino): passed on untouched rather than lost.
    return jsonLine;
  }
  const out: string[] = [];
  for (const key of FIRST) if (key in record) pair(out, key, record[key]);
  for (const [key, value] of Object.entries(record)) {
    if (!(FIRST as readonly string[]).includes(key)) pair(out, key, value);
  }
  return `${out.join(' ')}\n`;
}

function pair(out: string[], key: string, value: unknown): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) pair(out, `${key}.${k}`, v);
    return;
  }
  out.push(`${key}=${text(value)}`);
}

/** go-logfmt quotes a value that is empty or holds a space, '=', '"' or a control character. */
function text(value: unknown): string {
  const s = typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
  return s === '' || /[\s="\\\u0000-\u001f\u007f]/.test(s) ? JSON.stringify(s) : s;
}
