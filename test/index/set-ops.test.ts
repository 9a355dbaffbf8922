import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { threadMatcherWasm } from '../../src/wasm/matcher.js';
import { OUT_SLACK, DICT_SLACK, PROG_SLACK, UNSURE, PROG_FOLD, PROG_UNSURE_NON_ASCII, ANY_PLUS, ANY_STAR } from '../../src/wasm/layout.js';
import { PostingsAlgebra } from '../../src/index/set-ops.js';
import { rng } from '../support/series.js';
import { randomIds, type Next } from './random-labels.js';

const algebra = new PostingsAlgebra();
const ids = (...xs: number[]) => Uint32Array.from(xs);

function refIntersect(lists: readonly Uint32Array[]): number[] {
  if (lists.length === 0) return [];
  const sets = lists.slice(1).map((l) => new Set(l));
  return [...lists[0]!].filter((x) => sets.every((s) => s.has(x)));
}

function refUnion(lists: readonly Uint32Array[]): number[] {
  return [...new Set(lists.flatMap((l) => [...l]))].sort((a, b) => a - b);
}

function refSubtract(a: Uint32Array, b: Uint32Array): number[] {
  const s = new Set(b);
  return [...a].filter((x) => !s.has(x));
}

/** Random list sizes, including empty lists, singletons and huge/small ratios. */
function randomSize(next: Next): number {
  return pick([0, 1, 2, 3, 4, 5, 7, 8, 31, 100, 1000, 5000, 20_000], next);
}

/** Compares as typed arrays: one buffer comparison instead of a walk over boxed numbers. */
function same(got: Uint32Array, want: number[], message: string): void {
  assert.deepEqual(got, Uint32Array.from(want), message);
}

function pick<T>(xs: readonly T[], next: Next): T {
  return xs[Math.floor(next() * xs.length)]!;
}

describe('postings set algebra in WebAssembly', () => {
  test('exports the constants the host relies on', () => {
    const wasm = threadMatcherWasm() as unknown as Record<string, { value: number }>;
    assert.equal(wasm.OUT_SLACK!.value, OUT_SLACK);
    assert.equal(wasm.DICT_SLACK!.value, DICT_SLACK);
    assert.equal(wasm.PROG_SLACK!.value, PROG_SLACK);
    assert.equal(wasm.UNSURE!.value >>> 0, UNSURE);
    assert.equal(wasm.PROG_FOLD!.value, PROG_FOLD);
    assert.equal(wasm.PROG_UNSURE_NON_ASCII!.value, PROG_UNSURE_NON_ASCII);
    assert.equal(wasm.ANY_STAR!.value, ANY_STAR);
    assert.equal(wasm.ANY_PLUS!.value, ANY_PLUS);
  });

  test('intersects, unites and subtracts small lists', () => {
    assert.deepEqual([...algebra.intersect([ids(1, 3, 5, 7, 9), ids(3, 4, 5, 9, 10)])], [3, 5, 9]);
    assert.deepEqual([...algebra.intersect([ids(1, 2, 3), ids(2, 3), ids(3, 4)])], [3]);
    assert.deepEqual([...algebra.union([ids(1, 5), ids(2, 5, 6), ids(0, 9)])], [0, 1, 2, 5, 6, 9]);
    assert.deepEqual([...algebra.subtract(ids(1, 2, 3, 4), ids(2, 4, 8))], [1, 3]);
  });

  test('treats no lists and empty lists as empty sets', () => {
    assert.deepEqual([...algebra.intersect([])], []);
    assert.deepEqual([...algebra.union([])], []);
    assert.deepEqual([...algebra.intersect([ids(1, 2), ids()])], []);
    assert.deepEqual([...algebra.union([ids(), ids(4), ids()])], [4]);
    assert.deepEqual([...algebra.subtract(ids(), ids(1))], []);
    assert.deepEqual([...algebra.subtract(ids(1), ids())], [1]);
  });

  test('handles ids up to 2^32 - 1', () => {
    const top = 0xffffffff;
    assert.deepEqual([...algebra.intersect([ids(0, top - 1, top), ids(top)])], [top]);
    assert.deepEqual([...algebra.union([ids(0, top), ids(7), ids(top - 1)])], [0, 7, top - 1, top]);
    assert.deepEqual([...algebra.subtract(ids(0, top), ids(top))], [0]);
  });

  test('agrees with a plain reference on random lists of all size ratios', () => {
    const next = rng(7);
    for (let round = 0; round < 200; round++) {
      // Dense ids (bitmap unions) or sparse ones (sorted unions); lists of very different sizes (galloping).
      const span = next() < 0.5 ? 50_000 : 2 ** 31;
      const base = next() < 0.2 ? 2 ** 32 - span : 0;
      const k = 1 + Math.floor(next() * (next() < 0.2 ? 40 : 5));
      const lists = Array.from({ length: k }, () => randomIds(next, randomSize(next), span, base));
      same(algebra.intersect(lists), refIntersect(lists), `intersect round ${round}`);
      same(algebra.union(lists), refUnion(lists), `union round ${round}`);
      const a = lists[0]!;
      const b = lists[lists.length - 1]!;
      same(algebra.subtract(a, b), refSubtract(a, b), `subtract round ${round}`);
      same(algebra.subtract(b, a), refSubtract(b, a), `subtract round ${round}`);
      // Overlapping lists exercise the matching lanes of the SIMD intersection.
      const c = a.filter(() => next() < 0.5);
      same(algebra.intersect([a, c]), [...c], `intersect overlap round ${round}`);
      same(algebra.subtract(a, c), refSubtract(a, c), `subtract overlap round ${round}`);
    }
  });

  test('unites many lists of one id each (the regex-over-unique-values case)', () => {
    const next = rng(3);
    const singles = Array.from({ length: 5000 }, () => ids(Math.floor(next() * 100_000)));
    assert.deepEqual([...algebra.union(singles)], refUnion(singles));
  });
});

test('agrees with a plain reference on many short, overlapping lists (the SIMD tails)', () => {
  const next = rng(17);
  for (let round = 0; round < 3000; round++) {
    const span = 4 + Math.floor(next() * 60);
    const a = randomIds(next, Math.floor(next() * 40), span);
    const b = randomIds(next, Math.floor(next() * 40), span);
    same(algebra.intersect([a, b]), refIntersect([a, b]), `intersect ${a} / ${b}`);
    same(algebra.union([a, b]), refUnion([a, b]), `union ${a} / ${b}`);
    same(algebra.subtract(a, b), refSubtract(a, b), `subtract ${a} / ${b}`);
  }
});
