import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PostingsIndex } from '../../src/index/postings-index.js';
import { MatchType, type LabelMatcher } from '../../src/index/types.js';

/** An index of `n` series with labels of every shape the loader meets: shared values, unique ones, long lists (own arrays), UTF-8. */
function built(n: number): PostingsIndex {
  const ix = new PostingsIndex();
  for (let id = 1; id <= n; id++) {
    const labels = ['__name__', `m${id % 5}`, 'instance', `host-${id}`, 'job', id % 3 === 0 ? 'zürich' : 'api'];
    if (id % 7 === 0) labels.push('rare', '');
    ix.add(id * 2, labels);
  }
  return ix;
}

/** A copy of `ix` made the way a head snapshot loads one. */
function loadedCopy(ix: PostingsIndex): PostingsIndex {
  const copy = new PostingsIndex();
  ix.forEachPostings((name, value, ids) => copy.loadPostings(name, value, ids.slice()));
  copy.loadAll(ix.allPostings().slice());
  return copy;
}

const matchers: LabelMatcher[][] = [
  [{ type: MatchType.EQ, name: 'job', value: 'api' }],
  [{ type: MatchType.RE, name: 'instance', value: 'host-1.*' }, { type: MatchType.NEQ, name: 'job', value: 'api' }],
  [{ type: MatchType.EQ, name: '__name__', value: 'm3' }],
  [{ type: MatchType.NRE, name: 'rare', value: '.+' }],
];

test('an index loaded from its postings answers as the one built series by series', () => {
  const ix = built(3000);
  const copy = loadedCopy(ix);
  assert.deepEqual(copy.labelNames(), ix.labelNames());
  for (const name of ix.labelNames()) assert.deepEqual(copy.labelValues(name), ix.labelValues(name));
  for (const m of matchers) assert.deepEqual(copy.select(m), ix.select(m));
  assert.deepEqual(copy.allPostings(), ix.allPostings());
  assert.equal(copy.count('job', 'zürich'), 1000);
});

test('a loaded index takes new series past the last id, and deletions, as a built one', () => {
  const ix = built(3000);
  const copy = loadedCopy(ix);
  for (const x of [ix, copy]) {
    x.add(6002, ['__name__', 'm1', 'instance', 'new', 'job', 'api']);
    x.delete(Uint32Array.from([2, 4, 6, 3000]));
  }
  for (const m of matchers) assert.deepEqual(copy.select(m), ix.select(m));
  assert.deepEqual(copy.labelValues('instance'), ix.labelValues('instance'));
  assert.throws(() => copy.add(6000, ['a', 'b']), RangeError, 'ids stay ascending after a load');
});

test('loading into an index that holds series, or a value twice, is refused', () => {
  const ix = built(10);
  assert.throws(() => ix.loadPostings('job', 'x', Uint32Array.of(1)), /holds series/);
  const empty = new PostingsIndex();
  empty.loadPostings('job', 'api', Uint32Array.of(1, 2));
  assert.throws(() => empty.loadPostings('job', 'api', Uint32Array.of(3)), RangeError);
});
