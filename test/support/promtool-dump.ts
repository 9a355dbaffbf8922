/**
 * Reading what Prometheus 2.42's `promtool tsdb dump` prints, shared by the
 * tests that check blocks through promtool (test/blocks/promtool.test.ts,
 * test/e2e/blocks-promtool.test.ts).
 *
 * A dump line is `{name="value", ...} <value> <timestamp ms>`: labels as
 * Prometheus' labels.String() writes them (values through Go's
 * strconv.Quote), the value through Go's `%g` (shortest text that reads
 * back as the same float64; every NaN prints as `NaN`, so a stale marker is
 * told from another NaN only by other means).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

/** Whether `binary` is on the PATH. */
export function onPath(binary: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' }).status === 0;
}

/** Runs promtool with `args` (at most `timeoutMs`) and returns its stdout; throws with its output otherwise. */
export function runPromtool(args: string[], timeoutMs = 60_000): string {
  const r = spawnSync('promtool', args, { encoding: 'utf8', maxBuffer: 512 << 20, timeout: timeoutMs });
  if (r.status !== 0) throw new Error(`promtool ${args.join(' ')} exited with ${r.status ?? r.signal}:\n${r.stderr}\n${r.stdout.slice(0, 2000)}`);
  return r.stdout;
}

/** Go's strconv.Unquote of a double-quoted string starting at `at`; returns the string and the offset after it. */
export function goUnquote(s: string, at: number): [string, number] {
  assert.equal(s[at], '"', `quote expected at ${at} of ${s}`);
  let out = '';
  let i = at + 1;
  for (;;) {
    const c = s[i++];
    if (c === undefined) throw new Error(`unterminated string in ${s}`);
    if (c === '"') return [out, i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = s[i++]!;
    const simple: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', '"': '"' };
    if (e in simple) out += simple[e];
    else if (e === 'x') {
      out += String.fromCharCode(parseInt(s.slice(i, i + 2), 16));
      i += 2;
    } else if (e === 'u') {
      out += String.fromCodePoint(parseInt(s.slice(i, i + 4), 16));
      i += 4;
    } else if (e === 'U') {
      out += String.fromCodePoint(parseInt(s.slice(i, i + 8), 16));
      i += 8;
    } else throw new Error(`unknown escape \\${e} in ${s}`);
  }
}

/** A line of `promtool tsdb dump`: `{name="value", ...} <%g value> <ms>`. */
export function parseDumpLine(line: string): { labels: string[]; value: number; t: number } {
  const labels: string[] = [];
  let i = 1;
  assert.equal(line[0], '{', line);
  while (line[i] !== '}') {
    const eq = line.indexOf('=', i);
    labels.push(line.slice(i, eq));
    const [value, after] = goUnquote(line, eq + 1);
    labels.push(value);
    i = after;
    if (line.startsWith(', ', i)) i += 2;
  }
  const [v, t] = line.slice(i + 2).split(' ') as [string, string];
  return { labels, value: goFloat(v), t: Number(t) };
}

/** A float as Go's `%g` prints it (`+Inf`, `-Inf`, `NaN` included). */
export function goFloat(v: string): number {
  if (v === '+Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  if (v === 'NaN') return NaN;
  const n = Number(v);
  assert.ok(!Number.isNaN(n), `float ${v}`);
  return n;
}

/** Equal floats, -0 told from 0, any NaN equal to any NaN (the dump cannot tell NaNs apart). */
export function sameFloat(a: number, b: number): boolean {
  return Number.isNaN(a) ? Number.isNaN(b) : Object.is(a, b);
}

/** A whole dump: per series (key: JSON of its [name, value, ...] labels) its samples in printed order. */
export function parseDump(text: string): Map<string, { labels: string[]; samples: Array<{ t: number; value: number }> }> {
  const out = new Map<string, { labels: string[]; samples: Array<{ t: number; value: number }> }>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const p = parseDumpLine(line);
    const key = JSON.stringify(p.labels);
    let s = out.get(key);
    if (s === undefined) out.set(key, (s = { labels: p.labels, samples: [] }));
    s.samples.push({ t: p.t, value: p.value });
  }
  return out;
}
