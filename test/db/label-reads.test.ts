import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { MatchType } from '../../src/index/types.js';
import { batchBuilder, openSmallDb, samples, tempDir } from '../support/db.js';

const tmp = tempDir();
after(() => tmp.remove());

test('label names and values under matchers that select every series answer as those that select some', async () => {
  const db = await openSmallDb(`${tmp.dir}/a`);
  try {
    const b = batchBuilder();
    b.add(['__name__', 'a', 'job', 'x', 't', '1'], ...samples([1000, 2000], [1, 2]));
    b.add(['__name__', 'b', 'extra', 'z', 'job', 'y', 't', '1'], ...samples([5000], [1]));
    db.append(b.finish());
    const t1 = [{ type: MatchType.EQ, name: 't', value: '1' }];
    const q = db.querier();
    assert.deepEqual(q.labelNames(t1, -Infinity, Infinity), ['__name__', 'extra', 'job', 't']);
    assert.deepEqual(q.labelValues('job', t1, -Infinity, Infinity), ['x', 'y']);
    // A range that leaves a series out is answered from the series in it.
    assert.deepEqual(q.labelNames(t1, 0, 3000), ['__name__', 'job', 't']);
    assert.deepEqual(q.labelValues('job', t1, 0, 3000), ['x']);
    // Once the matcher selects some series only, the others' names and values stay out.
    const c = batchBuilder();
    c.add(['__name__', 'c', 'job', 'w', 'other', 'o', 't', '2'], ...samples([3000], [1]));
    db.append(c.finish());
    const q2 = db.querier();
    assert.deepEqual(q2.labelNames(t1, -Infinity, Infinity), ['__name__', 'extra', 'job', 't']);
    assert.deepEqual(q2.labelValues('job', t1, -Infinity, Infinity), ['x', 'y']);
    assert.deepEqual(q2.labelValues('job', [], -Infinity, Infinity), ['w', 'x', 'y']);
  } finally {
    await db.close();
  }
});
