// Random label sets, values and RE2 patterns for the index's differential
// tests, and the straightforward references they are checked against.
// Deterministic: every generator takes a seeded random source (rng).
import { RE2JS } from 're2js';
import { MatchType, type LabelMatcher } from '../../src/index/types.js';

export type Next = () => number;

export function pick<T>(next: Next, xs: readonly T[]): T {
  return xs[Math.floor(next() * xs.length)]!;
}

/** Pieces values are made of: ASCII, case pairs, the two non-ASCII (?i) folds of k and s, other scripts, a newline. */
const PIECES = [
  'a', 'b', 'c', 'ab', 'abc', 'foo', 'bar', 'Foo', 'FOO', 'x', 'y', 'z', '/api', '/v1', '-', '_', '.', '1', '42', '007',
  'k', 'K', 's', 'S', 'ks', '\u212a', '\u017f', 'é', 'É', '日本', '😀', '\uffff', '\ue000', ' ', '\n',
];

/** A random label value of 1..4 pieces (newlines rare). */
export function randomValue(next: Next): string {
  let v = '';
  const n = 1 + Math.floor(next() * 4);
  for (let i = 0; i < n; i++) {
    let p = pick(next, PIECES);
    if (p === '\n' && next() < 0.7) p = 'n';
    v += p;
  }
  return v;
}

const NAMES = ['a', 'b', 'c', 'job', 'path', 'pod', 'zone', 'é'];

/** Flattened, sorted label sets: a few low-cardinality names, some high, some often missing. */
export function randomSeries(next: Next, count: number, valuesPerName = [3, 5, 40, 8, 300, 2000, 4, 20]): string[][] {
  const pools = NAMES.map((_, i) => Array.from({ length: valuesPerName[i] ?? 10 }, () => randomValue(next)));
  const out: string[][] = [];
  for (let s = 0; s < count; s++) {
    const labels: string[] = [];
    NAMES.forEach((name, i) => {
      if (next() < 0.25) return; // label missing
      labels.push(name, pick(next, pools[i]!));
    });
    out.push(sortFlat(labels));
  }
  return out;
}

function sortFlat(flat: string[]): string[] {
  const pairs: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
  pairs.sort((x, y) => Buffer.compare(Buffer.from(x[0]), Buffer.from(y[0])));
  return pairs.flat();
}

/** A literal for a pattern: plain pieces, escaped metacharacters, non-ASCII. */
function randomLiteral(next: Next): string {
  const r = next();
  if (r < 0.1) return pick(next, ['\\.', '\\-', '\\/', '\\+', '\\(']);
  if (r < 0.15) return '';
  let s = pick(next, PIECES.filter((p) => p !== '\n' && p !== '.'));
  if (next() < 0.3) s += pick(next, ['a', 'b', 'o', 'k', 's', '1']);
  return s;
}

function atom(next: Next, depth: number): string {
  const r = next();
  if (r < 0.35) return randomLiteral(next);
  if (r < 0.45) return pick(next, ['.', '.*', '.+', '.?']);
  if (r < 0.6) return pick(next, ['[a-c]', '[^a]', '\\d', '\\w', '\\s', '[[:alpha:]]', '\\pL', '\\p{Han}', '[kK]', '\\D', '[é-ê]', '\\Qa.b\\E']);
  if (r < 0.7 && depth < 2) return `(?:${randomPatternBody(next, depth + 1)})${pick(next, ['', '?', '*', '+', '{1,2}'])}`;
  if (r < 0.75 && depth < 2) return `(${randomPatternBody(next, depth + 1)})?`;
  return pick(next, ['a', 'b', 'k', 'é', '😀', 'o']) + pick(next, ['*', '+', '?']);
}

function randomPatternBody(next: Next, depth: number): string {
  const alts = 1 + Math.floor(next() * 3);
  const out: string[] = [];
  for (let a = 0; a < alts; a++) {
    let s = '';
    const n = 1 + Math.floor(next() * 3);
    for (let i = 0; i < n; i++) s += atom(next, depth);
    out.push(s);
  }
  return out.join('|');
}

/**
 * A random pattern: mostly the shapes with fast paths (literals and their
 * alternations, prefix, suffix, contains, .* and .+, (?i), one group), the
 * rest from a small RE2 grammar (classes, groups, repeats, optional parts).
 * Any of them may turn out invalid; callers check against RE2.
 */
export function randomPattern(next: Next): string {
  const fold = next() < 0.2 ? '(?i)' : '';
  if (next() < 0.6) {
    const terms: string[] = [];
    const n = 1 + Math.floor(next() * 4);
    for (let i = 0; i < n; i++) {
      terms.push(pick(next, ['', '', '.*', '.+']) + randomLiteral(next) + pick(next, ['', '', '.*', '.+']));
    }
    const body = terms.join('|');
    const wrap = next();
    return fold + (wrap < 0.15 ? `(?:${body})` : wrap < 0.25 ? `(${body})` : body);
  }
  return fold + randomPatternBody(next, 0);
}

/** RE2 as Prometheus uses it, compiled here independently of the code under test. */
export function referenceRegex(pattern: string): RE2JS | undefined {
  try {
    return RE2JS.compile(`^(?:${pattern})$`);
  } catch {
    return undefined;
  }
}

/** Whether `labels` (flattened) satisfy every matcher: the reference, one series at a time. */
export function referenceMatches(labels: readonly string[], matchers: readonly LabelMatcher[], res: Map<string, RE2JS>): boolean {
  for (const m of matchers) {
    let value = '';
    for (let i = 0; i < labels.length; i += 2) if (labels[i] === m.name) value = labels[i + 1]!;
    let ok: boolean;
    if (m.type === MatchType.EQ || m.type === MatchType.NEQ) ok = value === m.value;
    else ok = res.get(m.value)!.test(value);
    if (ok === (m.type === MatchType.NEQ || m.type === MatchType.NRE)) return false;
  }
  return true;
}

/** Sorted, duplicate-free random ids: about `n` of them (fewer where draws collide) in [base, base + span). */
export function randomIds(next: Next, n: number, span: number, base = 0): Uint32Array {
  const draws = new Float64Array(n);
  for (let i = 0; i < n; i++) draws[i] = base + Math.floor(next() * span);
  draws.sort();
  const out = new Uint32Array(n);
  let k = 0;
  for (let i = 0; i < n; i++) if (k === 0 || draws[i] !== out[k - 1]) out[k++] = draws[i]!;
  return out.slice(0, k);
}
