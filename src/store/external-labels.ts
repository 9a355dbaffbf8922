import { compileMatcher, type LabelMatcher } from '../index/index.js';
import { compareUtf8 } from '../index/index.js';

/**
 * The server's own labels (--label), added to every series answered and
 * winning over a stored label of the same name. Sorted by name.
 */
export class ExternalLabels {
  private readonly byName: Map<string, string>;
  /** Whether a name or value holds a surrogate (see compareLabelsNative). */
  readonly hasSurrogates: boolean;

  constructor(readonly pairs: ReadonlyArray<readonly [string, string]>) {
    this.byName = new Map(pairs);
    this.hasSurrogates = pairs.some(([n, v]) => /[\uD800-\uDFFF]/.test(n + v));
  }

  get size(): number {
    return this.pairs.length;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  value(name: string): string | undefined {
    return this.byName.get(name);
  }

  /**
   * Splits matchers: those on external labels are decided here (all must
   * match, or `matches` is false); the rest go to the index. Every matcher
   * is compiled first, so an invalid one always throws.
   */
  decide(matchers: readonly LabelMatcher[]): { matches: boolean; rest: LabelMatcher[] } {
    const rest: LabelMatcher[] = [];
    let matches = true;
    for (const m of matchers) {
      const compiled = compileMatcher(m);
      const ext = this.byName.get(m.name);
      if (ext === undefined) {
        rest.push(m);
        continue;
      }
      if (compiled.values.test(ext) === compiled.negate) matches = false;
    }
    return { matches, rest };
  }

  /** A stored label set with the external labels merged in (they win), sorted. */
  apply(labels: readonly string[]): string[] {
    if (this.pairs.length === 0) return labels as string[];
    const out: string[] = [];
    let e = 0;
    const ext = this.pairs;
    for (let i = 0; i < labels.length; i += 2) {
      const name = labels[i]!;
      while (e < ext.length && compareUtf8(ext[e]![0], name) < 0) {
        out.push(ext[e]![0], ext[e]![1]);
        e++;
      }
      if (e < ext.length && ext[e]![0] === name) {
        out.push(name, ext[e]![1]);
        e++;
        continue;
      }
      out.push(name, labels[i + 1]!);
    }
    for (; e < ext.length; e++) out.push(ext[e]![0], ext[e]![1]);
    return out;
  }
}

/** The labels without those named in `drop` (a label not named stays). */
export function withoutLabels(labels: readonly string[], drop: ReadonlySet<string>): string[] {
  if (drop.size === 0) return labels as string[];
  const out: string[] = [];
  for (let i = 0; i < labels.length; i += 2) if (!drop.has(labels[i]!)) out.push(labels[i]!, labels[i + 1]!);
  return out;
}
