import { RE2JS, RE2JSException } from 're2js';
import { invalidRegex } from './errors.js';
import type { LabelDict } from './label-dict.js';
import type { U32Buffer } from './u32-buffer.js';
import type { ValueMatcher } from './types.js';

/**
 * Compiles `pattern` with RE2 (re2js: linear time, no backtracking) the way
 * Prometheus does: the text `^(?:` + pattern + `)$`, searched, so even odd
 * inputs such as `a)|(b` mean what they mean there. Throws
 * InvalidMatcherError when RE2 rejects it.
 */
export function compileRe2(pattern: string): RE2JS {
  try {
    return RE2JS.compile(`^(?:${pattern})$`);
  } catch (err) {
    if (err instanceof RE2JSException) throw invalidRegex(pattern, err.message.replace(/^error parsing regexp: /, ''));
    throw err;
  }
}

/** Dictionaries smaller than this are not worth timing: the anchored search runs. */
const TIMED_MIN = 4096;

/**
 * Any pattern without a fast path: RE2 on each value of the dictionary.
 *
 * When the pattern also compiles on its own, the text `^(?:p)$` is just p in
 * a group, so "p matches the whole value" (testExact, which runs re2js's
 * lazily built DFA) gives the same answers as searching the anchored text
 * (its NFA). Which is faster depends on the pattern, by up to 4x either way:
 * the DFA costs little per byte once its states exist but reads every byte,
 * the NFA often gives up after a few. So the first large dictionary runs the
 * DFA and times its second half (its states built by then), the next one
 * times the NFA on its first values, and the faster is kept. Only speed
 * depends on the timing, never an answer.
 */
export class Re2Matcher implements ValueMatcher {
  readonly matchesEmpty: boolean;
  private readonly bare: RE2JS | undefined;
  /** Measured ms per value of each engine, once known. */
  private bareCost: number | undefined;
  private anchoredCost: number | undefined;

  constructor(pattern: string, private readonly anchored: RE2JS = compileRe2(pattern)) {
    this.matchesEmpty = anchored.test('');
    try {
      this.bare = RE2JS.compile(pattern);
    } catch {
      this.bare = undefined;
    }
  }

  test(value: string): boolean {
    return this.anchored.test(value);
  }

  collect(dict: LabelDict, want: boolean, out: U32Buffer): void {
    const n = dict.size;
    if (this.bare === undefined || n < TIMED_MIN) return this.run(this.anchored, false, dict, want, out, 0, n);
    if (this.bareCost === undefined) {
      const half = n >>> 1;
      this.run(this.bare, true, dict, want, out, 0, half);
      const t = performance.now();
      this.run(this.bare, true, dict, want, out, half, n);
      this.bareCost = (performance.now() - t) / (n - half);
      return;
    }
    let from = 0;
    if (this.anchoredCost === undefined) {
      from = TIMED_MIN >>> 1;
      const t = performance.now();
      this.run(this.anchored, false, dict, want, out, 0, from);
      this.anchoredCost = (performance.now() - t) / from;
    }
    const useBare = this.bareCost < this.anchoredCost;
    this.run(useBare ? this.bare : this.anchored, useBare, dict, want, out, from, n);
  }

  private run(re: RE2JS, exact: boolean, dict: LabelDict, want: boolean, out: U32Buffer, from: number, to: number): void {
    if (exact) {
      for (let i = from; i < to; i++) if (re.testExact(dict.value(i)) === want) out.push(dict.list(i));
    } else {
      for (let i = from; i < to; i++) if (re.test(dict.value(i)) === want) out.push(dict.list(i));
    }
  }
}
