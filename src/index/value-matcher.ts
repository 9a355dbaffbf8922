import type { RE2JS } from 're2js';
import type { LabelDict } from './label-dict.js';
import { Lru } from './lru.js';
import { UNSURE } from '../wasm/layout.js';
import { isLiteralSet, recognise, shapeMatchesEmpty, type RegexShape } from './regex-shape.js';
import { compileRe2, Re2Matcher } from './re2-matcher.js';
import { encodeProgram } from './scan-program.js';
import type { U32Buffer } from './u32-buffer.js';
import type { ValueMatcher } from './types.js';
import { threadValueScanner } from './value-scan.js';

/** Compiled patterns kept (least recently used dropped first): dashboards repeat theirs every refresh. */
export const REGEX_CACHE_SIZE = 1000;
const cache = new Lru<string, ValueMatcher>(REGEX_CACHE_SIZE);

/**
 * The matcher for a Go RE2 pattern, fully anchored as Prometheus 2.x does
 * (`^(?:` + pattern + `)$`, `.` not matching a newline). Cached by pattern.
 * Throws InvalidMatcherError for a pattern RE2 rejects.
 *
 * @example regexMatcher('a|b').test('a') // true; .test('ab') // false
 */
export function regexMatcher(pattern: string): ValueMatcher {
  let m = cache.get(pattern);
  if (m === undefined) {
    m = compile(pattern);
    cache.set(pattern, m);
  }
  return m;
}

/** The matcher for exactly one value (an EQ matcher). */
export function equalMatcher(value: string): ValueMatcher {
  return new LiteralMatcher([value]);
}

function compile(pattern: string): ValueMatcher {
  const shape = recognise(pattern);
  if (shape === undefined) return new Re2Matcher(pattern);
  if (isLiteralSet(shape)) return new LiteralMatcher([...new Set(shape.terms.map((t) => t.literal))]);
  return new ScanMatcher(pattern, shape);
}

/** A set of literal values: each one is a dictionary lookup, no scan. */
class LiteralMatcher implements ValueMatcher {
  readonly matchesEmpty: boolean;
  private readonly set: ReadonlySet<string>;

  constructor(private readonly literals: readonly string[]) {
    this.set = new Set(literals);
    this.matchesEmpty = this.set.has('');
  }

  test(value: string): boolean {
    return this.set.has(value);
  }

  collect(dict: LabelDict, want: boolean, out: U32Buffer): void {
    const found: number[] = [];
    for (const lit of this.literals) {
      const i = dict.find(lit);
      if (i >= 0) found.push(i);
    }
    if (want) {
      for (const i of found) out.push(dict.list(i));
      return;
    }
    found.sort((a, b) => a - b);
    let f = 0;
    for (let i = 0; i < dict.size; i++) {
      if (found[f] === i) f++;
      else out.push(dict.list(i));
    }
  }
}

/** A recognised shape, matched over the dictionary's bytes in WebAssembly. */
class ScanMatcher implements ValueMatcher {
  readonly matchesEmpty: boolean;
  private readonly program: Uint8Array;
  private re: RE2JS | undefined;

  constructor(private readonly pattern: string, shape: RegexShape) {
    this.matchesEmpty = shapeMatchesEmpty(shape);
    this.program = encodeProgram(shape);
  }

  test(value: string): boolean {
    return this.re2().test(value);
  }

  collect(dict: LabelDict, want: boolean, out: U32Buffer): void {
    const hits = threadValueScanner().scan(dict, this.program, want);
    for (let j = 0; j < hits.length; j++) {
      const h = hits[j]!;
      if ((h & UNSURE) === 0) out.push(dict.list(h));
      else if (this.re2().test(dict.value(h & ~UNSURE)) === want) out.push(dict.list(h & ~UNSURE));
    }
  }

  private re2(): RE2JS {
    this.re ??= compileRe2(this.pattern);
    return this.re;
  }
}
