import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeletedIds, PostingsLists } from '../../src/index/postings-lists.js';
import { rng } from '../support/series.js';

test('keeps many growing lists apart while their blocks move and are reused', () => {
  const next = rng(5);
  const lists = new PostingsLists();
  const model = new Map<number, number[]>();
  let id = 0;
  for (let step = 0; step < 60_000; step++) {
    const r = next();
    if (r < 0.02 || model.size === 0) {
      model.set(lists.create(), []);
      continue;
    }
    const keys = [...model.keys()];
    const list = keys[Math.floor(next() * keys.length)]!;
    if (r < 0.025) {
      lists.drop(list);
      model.delete(list);
    } else {
      // Skewed: a few lists get most ids and outgrow the slab.
      const hot = keys[Math.floor(next() * Math.min(3, keys.length))]!;
      const target = next() < 0.5 ? hot : list;
      lists.append(target, ++id);
      model.get(target)!.push(id);
    }
  }
  for (const [list, ids] of model) {
    assert.equal(lists.length(list), ids.length);
    assert.deepEqual(lists.view(list), Uint32Array.from(ids));
    const copy = new Uint32Array(ids.length + 2);
    assert.equal(lists.copyTo(list, copy, 1), ids.length);
    assert.deepEqual(copy.subarray(1, 1 + ids.length), Uint32Array.from(ids));
  }
});

test('filters deleted ids out of lists and shrinks them, with dense and sparse deletions', () => {
  for (const sparse of [false, true]) {
    const next = rng(sparse ? 9 : 8);
    const lists = new PostingsLists();
    const model: number[][] = [];
    for (let l = 0; l < 200; l++) {
      const n = Math.floor(next() ** 3 * 5000);
      const ids: number[] = [];
      let x = 0;
      for (let i = 0; i < n; i++) ids.push((x += 1 + Math.floor(next() * (sparse ? 1e6 : 4))));
      const list = lists.create();
      for (const id of ids) lists.append(list, id);
      model.push(ids);
    }
    const all = [...new Set(model.flat())].sort((a, b) => a - b);
    const gone = Uint32Array.from(all.filter(() => next() < 0.4));
    const deleted = new DeletedIds(gone);
    assert.equal(deleted.bits === undefined, sparse, 'sparse deletions use binary search');
    const goneSet = new Set(gone);
    model.forEach((ids, list) => {
      const left = ids.filter((x) => !goneSet.has(x));
      assert.equal(lists.filter(list, deleted), left.length);
      assert.deepEqual(lists.view(list), Uint32Array.from(left));
      // Still appendable after shrinking.
      lists.append(list, 2 ** 32 - 1);
      assert.equal(lists.view(list).at(-1), 2 ** 32 - 1);
    });
  }
});

test('costs a few bytes per id for a long tail of one-id lists', () => {
  const lists = new PostingsLists();
  for (let i = 0; i < 200_000; i++) lists.append(lists.create(), i);
  const perList = lists.bytes() / 200_000;
  assert.ok(perList < 20, `${perList.toFixed(1)} bytes per one-id list`);
});
