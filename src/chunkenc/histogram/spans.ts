import type { Span } from './types.js';

// Bucket layout arithmetic of Prometheus 2.42 (tsdb/chunkenc/histogram_meta.go
// and histogram.go): walking the bucket indices spans describe, the inserts
// that widen one layout to another, and counter-reset detection per bucket.
// Used by the chunker (what Prometheus' head does on append) and by the
// encoders' layout checks.

/** Total buckets the spans describe (countSpans). */
export function countSpans(spans: readonly Span[]): number {
  let n = 0;
  for (const s of spans) n += s.length;
  return n;
}

/**
 * Yields the absolute bucket indices of a span list in order, as Go's
 * bucketIterator: zero-length spans add their offset and nothing else.
 */
export class BucketIndices {
  private span = 0;
  private bucket = -1;
  private idx = -1;

  constructor(private readonly spans: readonly Span[]) {
    if (spans.length > 0) this.idx += spans[0]!.offset;
  }

  /** The next index, or undefined past the last bucket. */
  next(): number | undefined {
    const spans = this.spans;
    if (this.span >= spans.length) return undefined;
    if (this.bucket < spans[this.span]!.length - 1) {
      this.bucket++;
      return ++this.idx;
    }
    while (this.span < spans.length - 1) {
      this.span++;
      this.idx += spans[this.span]!.offset + 1;
      this.bucket = 0;
      if (spans[this.span]!.length === 0) {
        this.idx--;
        continue;
      }
      return this.idx;
    }
    return undefined;
  }
}

/** True when both span lists describe the same bucket indices (however split). */
export function sameBuckets(a: readonly Span[], b: readonly Span[]): boolean {
  if (a.length === b.length && a.every((s, i) => s.offset === b[i]!.offset && s.length === b[i]!.length)) return true;
  const ai = new BucketIndices(a);
  const bi = new BucketIndices(b);
  for (;;) {
    const x = ai.next();
    if (x !== bi.next()) return false;
    if (x === undefined) return true;
  }
}

/** `num` new buckets go before the `pos`-th bucket of the original list (chunkenc.Insert). */
export interface Insert {
  pos: number;
  num: number;
}

/**
 * expandSpansForward: the inserts that widen layout `a` to layout `b`, or
 * undefined when `b` lacks a bucket of `a`.
 */
export function expandSpansForward(a: readonly Span[], b: readonly Span[]): Insert[] | undefined {
  const ai = new BucketIndices(a);
  const bi = new BucketIndices(b);
  const inserts: Insert[] = [];
  let pos = 0;
  let num = 0;
  let av = ai.next();
  let bv = bi.next();
  for (;;) {
    if (av !== undefined && bv !== undefined) {
      if (av === bv) {
        if (num > 0) inserts.push({ pos, num });
        num = 0;
        av = ai.next();
        bv = bi.next();
        pos++;
      } else if (av < bv) {
        return undefined;
      } else {
        num++;
        bv = bi.next();
      }
    } else if (av !== undefined) {
      return undefined;
    } else if (bv !== undefined) {
      num++;
      bv = bi.next();
    } else {
      if (num > 0) inserts.push({ pos, num });
      return inserts;
    }
  }
}

/** What expandSpansBothWays returns: inserts that widen each layout to their union, and the union. */
export interface BothWays {
  forward: Insert[];
  backward: Insert[];
  merged: Span[];
}

/**
 * expandSpansBothWays: `forward` widens `a` to the union of both layouts,
 * `backward` widens `b` to it, `merged` describes it as Go writes it.
 */
export function expandSpansBothWays(a: readonly Span[], b: readonly Span[]): BothWays {
  const ai = new BucketIndices(a);
  const bi = new BucketIndices(b);
  const forward: Insert[] = [];
  const backward: Insert[] = [];
  const merged: Span[] = [];
  let lastBucket = 0;
  const addBucket = (idx: number): void => {
    let offset = idx - lastBucket - 1;
    if (offset === 0 && merged.length > 0) {
      merged[merged.length - 1]!.length++;
    } else {
      if (merged.length === 0) offset++;
      merged.push({ offset, length: 1 });
    }
    lastBucket = idx;
  };
  const f = { pos: 0, num: 0 };
  const bk = { pos: 0, num: 0 };
  const flush = (into: Insert[], ins: { pos: number; num: number }): void => {
    if (ins.num > 0) {
      into.push({ pos: ins.pos, num: ins.num });
      ins.num = 0;
    }
  };
  let av = ai.next();
  let bv = bi.next();
  for (;;) {
    if (av !== undefined && bv !== undefined) {
      if (av === bv) {
        flush(forward, f);
        flush(backward, bk);
        addBucket(av);
        av = ai.next();
        bv = bi.next();
        f.pos++;
        bk.pos++;
      } else if (av < bv) {
        bk.num++;
        flush(forward, f);
        addBucket(av);
        f.pos++;
        av = ai.next();
      } else {
        f.num++;
        flush(backward, bk);
        addBucket(bv);
        bk.pos++;
        bv = bi.next();
      }
    } else if (av !== undefined) {
      bk.num++;
      addBucket(av);
      av = ai.next();
    } else if (bv !== undefined) {
      f.num++;
      addBucket(bv);
      bv = bi.next();
    } else {
      flush(forward, f);
      flush(backward, bk);
      return { forward, backward, merged };
    }
  }
}

/**
 * insert: `values` widened by `inserts` into a new array of `size` buckets.
 * New buckets count 0: with `deltas` (integer histograms, each bucket a
 * delta to the one before) the bucket after an insert absorbs the change.
 */
export function insertBuckets(values: readonly number[], size: number, inserts: readonly Insert[], deltas: boolean): number[] {
  const out = new Array<number>(size).fill(0);
  let oi = 0;
  let v = 0; // the last absolute value seen (deltas only)
  let ii = 0;
  for (let i = 0; i < values.length; i++) {
    const d = values[i]!;
    if (ii < inserts.length && i === inserts[ii]!.pos) {
      out[oi] = deltas ? -v : 0;
      oi += inserts[ii]!.num;
      ii++;
      out[oi++] = deltas ? d + v : d;
      v += d;
      continue;
    }
    out[oi++] = d;
    v += d;
  }
  if (ii === inserts.length - 1) {
    out[oi] = deltas ? -v : 0;
  } else if (ii !== inserts.length) {
    throw new Error('insertBuckets: inserts past the end of the buckets');
  }
  // Tidy -0 (from -v with v = 0) to 0, as Go's int64 has no -0.
  if (deltas) for (let i = 0; i < out.length; i++) if (out[i] === 0) out[i] = 0;
  return out;
}

/**
 * counterResetInAnyBucket: true when a bucket present in both layouts
 * dropped. Call it only when `newSpans` covers every bucket of `oldSpans`.
 * Compares absolute counts (integer buckets are summed from their deltas).
 * Go's version mis-walks zero-length spans (and can panic on them); this
 * one walks bucket indices, which is the same for every other layout.
 */
export function counterResetInAnyBucket(
  oldBuckets: readonly number[], newBuckets: readonly number[],
  oldSpans: readonly Span[], newSpans: readonly Span[], deltas: boolean,
): boolean {
  if (oldSpans.length === 0 || oldBuckets.length === 0) return false;
  const oi = new BucketIndices(oldSpans);
  const ni = new BucketIndices(newSpans);
  let nIdx = ni.next();
  let nPos = 0;
  let nVal = nIdx === undefined ? 0 : newBuckets[0]!;
  let oVal = 0;
  for (let oPos = 0; oPos < oldBuckets.length; oPos++) {
    const oIdx = oi.next();
    if (oIdx === undefined) break;
    oVal = deltas ? oVal + oldBuckets[oPos]! : oldBuckets[oPos]!;
    while (nIdx !== undefined && nIdx < oIdx) {
      nIdx = ni.next();
      nPos++;
      if (nIdx !== undefined) nVal = deltas ? nVal + newBuckets[nPos]! : newBuckets[nPos]!;
    }
    if (nIdx === oIdx && nVal < oVal) return true;
  }
  return false;
}
