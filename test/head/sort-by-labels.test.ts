import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sortByLabels } from '../../src/head/head-reader.js';
import { compareLabels } from '../../src/encoding/utf8.js';

/** Random label sets over few names and values, surrogates and U+E000..U+FFFF among them when asked. */
function randomSets(n: number, seed: number, astral: boolean): { labels: string[]; i: number }[] {
  let x = seed;
  const rnd = (k: number): number => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x % k;
  };
  const values = ['a', 'ab', 'b', '', 'a\u00e9', 'z', ...(astral ? ['\u{1F600}', '\uffff', '\ue000x'] : [])];
  const out: { labels: string[]; i: number }[] = [];
  for (let i = 0; i < n; i++) {
    const labels: string[] = [rnd(10) === 0 ? 'job' : '__name__', `m${values[rnd(values.length)]}${rnd(4)}`];
    for (const name of ['a', 'b', 'c']) if (rnd(3) > 0) labels.push(name, values[rnd(values.length)]! + rnd(3));
    out.push({ labels, i });
  }
  return out;
}

test('series sort by labels as one full sort would, grouped by the first label or not', () => {
  for (const astral of [false, true]) {
    for (const [n, seed] of [[10, 1], [500, 2], [3000, 3]] as const) {
      for (const sameName of [false, true]) {
        const sets = randomSets(n, seed, astral);
        if (sameName) for (const s of sets) s.labels[0] = '__name__';
        const want = sets.slice().sort((a, b) => compareLabels(a.labels, b.labels) || a.i - b.i).map((s) => s.labels.join('\u0001'));
        const got = sortByLabels(sets.slice(), astral).map((s) => s.labels.join('\u0001'));
        assert.deepEqual(got, want, `n=${n} astral=${astral} sameName=${sameName}`);
      }
    }
  }
});
