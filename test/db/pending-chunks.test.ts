import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PendingChunks } from '../../src/db/pending-chunks.js';

describe('PendingChunks', () => {
  test('groups chunks by series, each series\' in the order they were added, across growth', () => {
    const p = new PendingChunks();
    const want = new Map<number, number[]>();
    // 5,000 chunks over 700 series, interleaved as chunk files hold them.
    for (let i = 0; i < 5000; i++) {
      const id = 1 + ((i * 37) % 700);
      const triple = [i * 8, 1000 + i, 2000 + i];
      p.add(id, triple[0]!, triple[1]!, triple[2]!);
      want.set(id, [...(want.get(id) ?? []), ...triple]);
    }
    p.group();
    for (const [id, chunks] of want) assert.deepEqual(p.take(id), chunks, `series ${id}`);
    assert.equal(p.untaken(), 0);
  });

  test('a series\' chunks are taken once; ids without chunks, and past the largest, have none', () => {
    const p = new PendingChunks();
    p.add(3, 16, 1, 2);
    p.add(9, 32, 3, 4);
    p.group();
    assert.equal(p.take(1), undefined);
    assert.equal(p.take(100), undefined);
    assert.deepEqual(p.take(3), [16, 1, 2]);
    assert.equal(p.take(3), undefined);
    assert.equal(p.untaken(), 1, 'series 9 was never claimed');
  });

  test('refuses adds after grouping and takes before it', () => {
    const p = new PendingChunks();
    assert.throws(() => p.take(1), /before group/);
    p.group();
    assert.throws(() => p.add(1, 0, 0, 0), /after group/);
    assert.equal(p.untaken(), 0);
  });
});
