import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PostingsIndex } from '../../src/index/postings-index.js';
import { MatchType } from '../../src/index/types.js';
import { rng } from '../support/series.js';
import { randomSeries } from './random-labels.js';

/** Canonical label bytes: each name and value UTF-8, each ended by 0xFF. */
function canonical(labels: readonly string[]): Uint8Array {
  const parts: Buffer[] = [];
  for (const l of labels) parts.push(Buffer.from(l, 'utf8'), Buffer.from([0xff]));
  return Buffer.concat(parts);
}

/** Every name's values with their ids, as the index lists them. */
function contents(ix: PostingsIndex): string[] {
  const out: string[] = [];
  ix.forEachPostings((name, value, ids) => out.push(`${name}=${JSON.stringify(value)}:${[...ids].join(',')}`));
  return out.sort();
}

test('addBytes builds the same index as add, for random label sets with non-ASCII text', () => {
  const next = rng(7);
  const series = randomSeries(next, 3000);
  const byStrings = new PostingsIndex();
  const byBytes = new PostingsIndex();
  series.forEach((labels, i) => {
    byStrings.add(i + 1, labels.slice());
    // Inside a larger buffer, as the head passes module memory.
    const bytes = canonical(labels);
    const around = new Uint8Array(bytes.length + 10);
    around.set(bytes, 5);
    byBytes.addBytes(i + 1, around, 5, 5 + bytes.length);
  });
  assert.deepEqual(contents(byBytes), contents(byStrings));
  assert.deepEqual(byBytes.labelNames(), byStrings.labelNames());
  for (const name of byStrings.labelNames()) assert.deepEqual(byBytes.labelValues(name), byStrings.labelValues(name));
  assert.deepEqual([...byBytes.allPostings()], [...byStrings.allPostings()]);
});

test('addBytes skips empty values, and refuses bytes that are not name/value pairs or an id not past the last', () => {
  const ix = new PostingsIndex();
  ix.addBytes(1, canonical(['a', '', 'b', 'x']), 0, canonical(['a', '', 'b', 'x']).length);
  assert.deepEqual(ix.labelNames(), ['b']);
  const odd = canonical(['a', 'x', 'b']);
  assert.throws(() => ix.addBytes(2, odd, 0, odd.length), /not name\/value pairs/);
  const ok = canonical(['a', 'x']);
  assert.throws(() => ix.addBytes(1, ok, 0, ok.length), /greater than the last one added/);
});

test('bytes that are not valid UTF-8 land on the value their decoding names, every time', () => {
  const ix = new PostingsIndex();
  // Two different invalid sequences decode to the same U+FFFD text.
  const first = Buffer.concat([Buffer.from('n'), Buffer.from([0xff, 0xc3, 0x28, 0xff])]);
  const second = Buffer.concat([Buffer.from('n'), Buffer.from([0xff, 0xe2, 0x28, 0xff])]);
  ix.addBytes(1, first, 0, first.length);
  ix.addBytes(2, second, 0, second.length);
  ix.addBytes(3, first, 0, first.length);
  assert.deepEqual(ix.labelValues('n'), ['\ufffd(']);
  assert.deepEqual([...ix.select([{ type: MatchType.EQ, name: 'n', value: '\ufffd(' }])], [1, 2, 3]);
});

test('after values and names leave (delete), addBytes finds what is left and adds what comes back', () => {
  const ix = new PostingsIndex();
  const add = (id: number, labels: string[]): void => {
    const b = canonical(labels);
    ix.addBytes(id, b, 0, b.length);
  };
  for (let i = 1; i <= 200; i++) add(i, ['job', `j${i % 7}`, 'pod', `p${i}`]);
  add(201, ['only', 'once']);
  ix.delete(Uint32Array.from({ length: 150 }, (_, i) => i + 1));
  ix.delete(Uint32Array.of(201));
  assert.deepEqual(ix.labelNames(), ['job', 'pod']);
  add(202, ['job', 'j3', 'pod', 'p5']);
  add(203, ['only', 'once']);
  add(204, ['job', 'j3', 'pod', 'p199']);
  assert.deepEqual([...ix.select([{ type: MatchType.EQ, name: 'pod', value: 'p5' }])], [202]);
  assert.deepEqual([...ix.select([{ type: MatchType.EQ, name: 'pod', value: 'p199' }])], [199, 204]);
  assert.deepEqual([...ix.select([{ type: MatchType.EQ, name: 'only', value: 'once' }])], [203]);
  assert.equal(ix.labelValues('pod').filter((v) => v === 'p5').length, 1);
  const j3 = [...ix.select([{ type: MatchType.EQ, name: 'job', value: 'j3' }])];
  assert.deepEqual(j3, [...Array.from({ length: 200 }, (_, i) => i + 1).filter((i) => i > 150 && i % 7 === 3), 202, 204]);
});

test('a loaded index (head snapshot) is found by bytes afterwards', () => {
  const ix = new PostingsIndex();
  ix.loadPostings('job', 'api', Uint32Array.of(1, 2));
  ix.loadPostings('job', 'db', Uint32Array.of(3));
  ix.loadAll(Uint32Array.of(1, 2, 3));
  const b = canonical(['job', 'db']);
  ix.addBytes(4, b, 0, b.length);
  assert.deepEqual(ix.labelValues('job'), ['api', 'db']);
  assert.deepEqual([...ix.select([{ type: MatchType.EQ, name: 'job', value: 'db' }])], [3, 4]);
});
