import { ANY_NONE, ANY_PLUS, ANY_STAR } from '../wasm/layout.js';

// Recognises the regular expressions that the WebAssembly fast paths can
// match exactly: fully anchored alternations of terms [lead] literal [trail]
// with lead and trail each nothing, `.*` or `.+`, optionally in one group,
// optionally after a leading `(?i)`. Anything else, including every valid
// pattern this small recogniser is unsure of, is left to the RE2 engine:
// the fast path must never answer differently.

/** What a term's wildcard on one side is: nothing, `.*` or `.+` (the scan program's kinds, assembly/matcher.ts). */
export const Any = { NONE: ANY_NONE, STAR: ANY_STAR, PLUS: ANY_PLUS } as const;
export type Any = (typeof Any)[keyof typeof Any];

/** One alternative: `lead literal trail`. */
export interface ShapeTerm {
  readonly lead: Any;
  /** The literal text, escapes resolved; lower case when `foldCase`. */
  readonly literal: string;
  readonly trail: Any;
}

/** A recognised pattern: it matches a value when any term matches the whole value. */
export interface RegexShape {
  /** `(?i)` was given: ASCII literals compare case-insensitively. */
  readonly foldCase: boolean;
  readonly terms: readonly ShapeTerm[];
}

// Characters with a meaning in RE2 syntax; a literal is made of anything else.
const META = new Set('\\.+*?()|[]{}^$');
// After a backslash, RE2 (as Go) takes any ASCII punctuation as itself.
const ESCAPABLE = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');

/**
 * The shape of `pattern` if it is one the fast paths handle exactly, else
 * undefined. Examples: `a|b|c`, `(?:a|b)`, `(a|b)`, `foo.*`, `.*foo`,
 * `.*foo.*`, `.+`, `abc.*|.*xyz`, `(?i)get|post`.
 */
export function recognise(pattern: string): RegexShape | undefined {
  if (hasLoneSurrogate(pattern)) return undefined;
  let s = pattern;
  let foldCase = false;
  if (s.startsWith('(?i)')) {
    foldCase = true;
    s = s.slice(4);
  }
  let i = 0;
  let end = s.length;
  if (s.startsWith('(')) {
    // One group around everything: `(?:...)` or a capturing `(...)`. Any
    // other parenthesis inside makes the alternatives below fail.
    const open = s.startsWith('(?:') ? 3 : s.startsWith('(?') ? -1 : 1;
    if (open < 0 || !s.endsWith(')') || s.endsWith('\\)') || s.length < open + 1) return undefined;
    i = open;
    end = s.length - 1;
  }
  const terms: ShapeTerm[] = [];
  for (;;) {
    const lead = wildcard(s, i, end);
    if (lead !== Any.NONE) i += 2;
    let literal = '';
    while (i < end) {
      const c = s[i]!;
      if (c === '\\') {
        const next = s[i + 1];
        if (next === undefined || i + 1 >= end || !ESCAPABLE.has(next)) return undefined;
        literal += next;
        i += 2;
      } else if (META.has(c)) {
        break;
      } else {
        literal += c;
        i++;
      }
    }
    const trail = wildcard(s, i, end);
    if (trail !== Any.NONE) i += 2;
    const term = shapeTerm(lead, literal, trail, foldCase);
    if (term === undefined) return undefined;
    terms.push(term);
    if (i === end) return { foldCase, terms };
    if (s[i] !== '|') return undefined;
    i++;
  }
}

/** Whether `s` holds a UTF-16 surrogate that is not half of a pair (not valid text for RE2). */
function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c > 0xdbff) return true;
    const d = s.charCodeAt(i + 1);
    if (!(d >= 0xdc00 && d <= 0xdfff)) return true;
    i++;
  }
  return false;
}

function wildcard(s: string, i: number, end: number): Any {
  if (i + 2 > end || s[i] !== '.') return Any.NONE;
  const op = s[i + 1];
  return op === '*' ? Any.STAR : op === '+' ? Any.PLUS : Any.NONE;
}

function shapeTerm(lead: Any, literal: string, trail: Any, foldCase: boolean): ShapeTerm | undefined {
  // Wildcards never match a newline; the wasm relies on literals of
  // wildcard terms having none, and folding is only ASCII.
  if ((lead !== Any.NONE || trail !== Any.NONE) && literal.includes('\n')) return undefined;
  // The wasm counts bytes; `.+.+` needs two characters, which may be more than two bytes.
  if (lead === Any.PLUS && trail === Any.PLUS && literal === '') return undefined;
  if (foldCase) {
    for (let i = 0; i < literal.length; i++) if (literal.charCodeAt(i) > 0x7f) return undefined;
    literal = literal.toLowerCase();
  }
  return { lead, literal, trail };
}

/** Whether the shape matches the empty string. */
export function shapeMatchesEmpty(shape: RegexShape): boolean {
  return shape.terms.some((t) => t.literal === '' && t.lead !== Any.PLUS && t.trail !== Any.PLUS);
}

/** Whether the shape is a plain set of literals: matched by dictionary lookups, no scan. */
export function isLiteralSet(shape: RegexShape): boolean {
  return !shape.foldCase && shape.terms.every((t) => t.lead === Any.NONE && t.trail === Any.NONE);
}
