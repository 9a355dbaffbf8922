import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PostingsIndex } from '../../src/index/postings-index.js';
import { compareUtf8 } from '../../src/encoding/utf8.js';
import { rng } from '../support/series.js';
import { randomSeries, randomValue } from './random-labels.js';

const u32 = (...xs: number[]) => Uint32Array.from(xs);

function sample(): PostingsIndex {
  const ix = new PostingsIndex();
  ix.add(1, ['instance', 'a:9100', 'job', 'node']);
  ix.add(2, ['instance', 'b:9100', 'job', 'node']);
  ix.add(7, ['job', 'api', 'path', '/']);
  return ix;
}

describe('PostingsIndex', () => {
  test('lists the series of each label value, sorted', () => {
    const ix = sample();
    assert.deepEqual(ix.postings('job', 'node'), u32(1, 2));
    assert.deepEqual(ix.postings('job', 'api'), u32(7));
    assert.deepEqual(ix.postings('job', 'nope'), u32());
    assert.deepEqual(ix.postings('nope', 'x'), u32());
    assert.deepEqual(ix.allPostings(), u32(1, 2, 7));
    assert.equal(ix.seriesCount, 3);
  });

  test('lists label names and values sorted', () => {
    const ix = sample();
    assert.deepEqual(ix.labelNames(), ['instance', 'job', 'path']);
    assert.deepEqual(ix.labelValues('job'), ['api', 'node']);
    assert.deepEqual(ix.labelValues('nope'), []);
  });

  test('sorts names and values by UTF-8 bytes, not UTF-16 code units', () => {
    const ix = new PostingsIndex();
    // U+FFFF sorts before U+1F600 in UTF-8 but after it in UTF-16 code units.
    ix.add(1, ['v', '😀']);
    ix.add(2, ['v', '\uffff']);
    ix.add(3, ['v', 'é']);
    ix.add(4, ['v', 'Z']);
    ix.add(5, ['\uffff', 'x', '😀', 'y']);
    assert.deepEqual(ix.labelValues('v'), ['Z', 'é', '\uffff', '😀']);
    assert.deepEqual(ix.labelNames(), ['v', '\uffff', '😀']);
  });

  test('keeps label values sorted as values arrive between calls', () => {
    const next = rng(22);
    for (const withAstral of [false, true]) {
      const ix = new PostingsIndex();
      const seen = new Set<string>();
      let id = 0;
      for (let round = 0; round < 5; round++) {
        for (let i = 0; i < 300; i++) {
          let v = randomValue(next);
          if (!withAstral) v = v.replace(/[^\x00-\uffff]/gu, 'u');
          ix.add(id++, ['v', v]);
          seen.add(v);
        }
        const want = [...seen].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
        assert.deepEqual(ix.labelValues('v'), want);
      }
    }
  });

  test('compareUtf8 orders random strings as Buffer.compare does', () => {
    const next = rng(21);
    const strings = Array.from({ length: 2000 }, () => randomValue(next));
    const byBytes = strings.slice().sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    assert.deepEqual(strings.slice().sort(compareUtf8), byBytes);
  });

  test('skips labels with an empty value, as Prometheus drops them', () => {
    const ix = new PostingsIndex();
    ix.add(1, ['a', '', 'b', 'x']);
    assert.deepEqual(ix.labelNames(), ['b']);
  });

  test('rejects ids that do not increase and labels that are not pairs', () => {
    const ix = sample();
    assert.throws(() => ix.add(7, ['a', 'b']), RangeError);
    assert.throws(() => ix.add(3, ['a', 'b']), RangeError);
    assert.throws(() => ix.add(2 ** 32, ['a', 'b']), RangeError);
    assert.throws(() => ix.add(9, ['a']), RangeError);
    ix.add(2 ** 32 - 1, ['a', 'b']);
    assert.deepEqual(ix.postings('a', 'b'), u32(2 ** 32 - 1));
  });

  test('keeps one copy of each distinct value string', () => {
    const ix = new PostingsIndex();
    const first = ['job', 'node'.repeat(4)];
    ix.add(1, first);
    ix.add(2, ['job', 'node'.repeat(4)]);
    assert.equal(ix.dict('job')!.size, 1);
    assert.equal(ix.dict('job')!.value(0), first[1]);
  });

  test('deletes series from every list, and names and values left without series', () => {
    const ix = sample();
    ix.delete(u32(2, 7, 99));
    assert.deepEqual(ix.allPostings(), u32(1));
    assert.equal(ix.seriesCount, 1);
    assert.deepEqual(ix.labelNames(), ['instance', 'job']);
    assert.deepEqual(ix.labelValues('job'), ['node']);
    assert.deepEqual(ix.labelValues('instance'), ['a:9100']);
    assert.deepEqual(ix.postings('job', 'api'), u32());
    assert.deepEqual(ix.postings('job', 'node'), u32(1));
    ix.add(8, ['job', 'api']);
    assert.deepEqual(ix.labelValues('job'), ['api', 'node']);
    assert.deepEqual(ix.postings('job', 'api'), u32(8));
    ix.delete(u32(1, 8));
    assert.deepEqual(ix.labelNames(), []);
    assert.equal(ix.seriesCount, 0);
  });

  test('agrees with a plain model after random adds and batch deletes', () => {
    const next = rng(31);
    const ix = new PostingsIndex();
    const live = new Map<number, string[]>();
    let id = 0;
    for (let round = 0; round < 4; round++) {
      for (const labels of randomSeries(next, 1500)) {
        id += 1 + Math.floor(next() * 3);
        ix.add(id, labels);
        live.set(id, labels);
      }
      // Retention drops mostly old series, plus a scattered few.
      const gone = [...live.keys()].filter((k) => k < id * 0.3 || next() < 0.05);
      ix.delete(Uint32Array.from(gone));
      for (const k of gone) live.delete(k);

      const model = new Map<string, Map<string, number[]>>();
      for (const [sid, labels] of [...live].sort((a, b) => a[0] - b[0])) {
        for (let i = 0; i < labels.length; i += 2) {
          if (labels[i + 1] === '') continue;
          const values = model.get(labels[i]!) ?? model.set(labels[i]!, new Map()).get(labels[i]!)!;
          (values.get(labels[i + 1]!) ?? values.set(labels[i + 1]!, []).get(labels[i + 1]!)!).push(sid);
        }
      }
      assert.equal(ix.seriesCount, live.size);
      assert.deepEqual(ix.allPostings(), Uint32Array.from([...live.keys()].sort((a, b) => a - b)));
      assert.deepEqual(ix.labelNames(), [...model.keys()].sort(compareUtf8));
      for (const [name, values] of model) {
        assert.deepEqual(ix.labelValues(name), [...values.keys()].sort(compareUtf8));
        for (const [value, ids] of values) assert.deepEqual(ix.postings(name, value), Uint32Array.from(ids));
      }
    }
  });

  test('keeps its typed arrays small: tens of bytes per label per series', () => {
    const ix = new PostingsIndex();
    const series = 50_000;
    for (let i = 0; i < series; i++) {
      ix.add(i, ['instance', `host-${i % 500}:9100`, 'job', `job-${i % 7}`, 'series_id', `s${i}`, 'zone', `z${i % 3}`]);
    }
    const perLabel = ix.arrayBytes() / (series * 4);
    assert.ok(perLabel < 24, `${perLabel.toFixed(1)} bytes of arrays per label per series`);
  });
});
