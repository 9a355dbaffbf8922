import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Head } from '../../src/head/head.js';
import { PostingsIndex } from '../../src/index/postings-index.js';

const canonical = (labels: string[]): Uint8Array => Buffer.from(labels.map((l) => `${l}\u00ff`).join(''), 'latin1');
const bytesOf = (labels: string[]): Uint8Array => {
  const parts: Buffer[] = [];
  for (const l of labels) parts.push(Buffer.from(l, 'utf8'), Buffer.from([0xff]));
  return Buffer.concat(parts);
};

describe('Head.labelsOf', () => {
  const head = new Head(new PostingsIndex(), { chunkRangeMs: 7_200_000 });

  test('decodes ASCII labels from module memory', () => {
    const labels = ['__name__', 'up', 'instance', 'host-1:9100', 'job', 'node'];
    const s = head.createSeries(canonical(labels), head.hash(canonical(labels)));
    assert.deepEqual(head.labelsOf(s), labels);
  });

  test('decodes UTF-8 labels, U+00FF among them', () => {
    const labels = ['__name__', 'température', 'city', 'Zürich ÿ', 'note', '日本'];
    const s = head.createSeries(bytesOf(labels), head.hash(bytesOf(labels)));
    assert.deepEqual(head.labelsOf(s), labels);
  });

  test('decodes a value several series share', () => {
    const a = head.createSeries(canonical(['__name__', 'shared_metric', 'i', '1']), head.hash(canonical(['__name__', 'shared_metric', 'i', '1'])));
    const b = head.createSeries(canonical(['__name__', 'shared_metric', 'i', '2']), head.hash(canonical(['__name__', 'shared_metric', 'i', '2'])));
    assert.deepEqual([head.labelsOf(a)[1], head.labelsOf(b)[1]], ['shared_metric', 'shared_metric']);
    assert.deepEqual([head.labelsOf(a)[3], head.labelsOf(b)[3]], ['1', '2']);
  });

  test('answers a new array each call, equal to the last', () => {
    const labels = ['__name__', 'a', 'b', 'c'];
    const s = head.createSeries(canonical(labels), head.hash(canonical(labels)));
    const first = head.labelsOf(s);
    first[1] = 'changed';
    assert.deepEqual(head.labelsOf(s), labels);
  });
});
