import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidMatcherError } from '../../src/index/errors.js';
import { PostingsIndex } from '../../src/index/postings-index.js';
import { MatchType, type LabelMatcher } from '../../src/index/types.js';

const { EQ, NEQ, RE, NRE } = MatchType;

const eq = (name: string, value: string): LabelMatcher => ({ type: EQ, name, value });
const neq = (name: string, value: string): LabelMatcher => ({ type: NEQ, name, value });
const re = (name: string, value: string): LabelMatcher => ({ type: RE, name, value });
const nre = (name: string, value: string): LabelMatcher => ({ type: NRE, name, value });

// Series 1..6; `i` is set on 1, 2 and 3 only.
const ix = new PostingsIndex();
ix.add(1, ['i', 'a', 'job', 'api', 'path', '/api/v1/query']);
ix.add(2, ['i', 'b', 'job', 'api', 'path', '/api/v1/series']);
ix.add(3, ['i', 'c', 'job', 'web', 'path', '/index.html']);
ix.add(4, ['job', 'web', 'path', '/api/v2/query']);
ix.add(5, ['job', 'db']);
ix.add(6, ['job', 'db', 'path', 'line\nbreak']);

function select(...ms: LabelMatcher[]): number[] {
  return [...ix.select(ms)];
}

describe('select', () => {
  test('intersects equality matchers', () => {
    assert.deepEqual(select(eq('job', 'api')), [1, 2]);
    assert.deepEqual(select(eq('job', 'web'), eq('i', 'c')), [3]);
    assert.deepEqual(select(eq('job', 'web'), eq('i', 'a')), []);
    assert.deepEqual(select(eq('job', 'nope')), []);
    assert.deepEqual(select(eq('nope', 'x')), []);
  });

  test('subtracts not-equal matchers', () => {
    assert.deepEqual(select(neq('job', 'api')), [3, 4, 5, 6]);
    assert.deepEqual(select(eq('job', 'web'), neq('i', 'c')), [4]);
    assert.deepEqual(select(neq('job', 'nope')), [1, 2, 3, 4, 5, 6]);
  });

  test('a matcher that matches the empty string selects series without the label', () => {
    assert.deepEqual(select(eq('missing', '')), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(select(eq('i', '')), [4, 5, 6]);
    assert.deepEqual(select(neq('i', 'a')), [2, 3, 4, 5, 6]);
    assert.deepEqual(select(re('i', 'a|')), [1, 4, 5, 6]);
    assert.deepEqual(select(re('i', 'a?')), [1, 4, 5, 6], 'general path too');
    assert.deepEqual(select(nre('i', 'a|b')), [3, 4, 5, 6]);
    assert.deepEqual(select(re('missing', '.*')), [1, 2, 3, 4, 5, 6]);
  });

  test('a matcher that rejects the empty string selects only series with the label', () => {
    assert.deepEqual(select(neq('i', '')), [1, 2, 3]);
    assert.deepEqual(select(re('i', '.+')), [1, 2, 3]);
    assert.deepEqual(select(nre('i', '')), [1, 2, 3]);
    assert.deepEqual(select(neq('missing', '')), []);
    assert.deepEqual(select(re('missing', '.+')), []);
  });

  test('.* selects everything but values with a newline, and !~".*" only those', () => {
    assert.deepEqual(select(re('i', '.*')), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(select(nre('i', '.*')), []);
    assert.deepEqual(select(re('path', '.*')), [1, 2, 3, 4, 5]);
    assert.deepEqual(select(nre('path', '.*')), [6]);
  });

  test('matches regular expressions against values, fully anchored', () => {
    assert.deepEqual(select(re('path', '/api/v1/.*')), [1, 2]);
    assert.deepEqual(select(re('path', '.*query')), [1, 4]);
    assert.deepEqual(select(re('path', '.*v\\d.*')), [1, 2, 4]);
    assert.deepEqual(select(re('path', 'api')), []);
    assert.deepEqual(select(re('job', 'api|db')), [1, 2, 5, 6]);
    assert.deepEqual(select(re('job', '(?i)API|Web')), [1, 2, 3, 4]);
    assert.deepEqual(select(nre('path', '/api/.*'), eq('job', 'web')), [3]);
    assert.deepEqual(select(re('job', 'a.*'), nre('path', '.*series')), [1]);
  });

  test('combines several matchers on one label', () => {
    assert.deepEqual(select(re('path', '/api/.*'), neq('path', '/api/v2/query')), [1, 2]);
    assert.deepEqual(select(re('i', '.+'), neq('i', 'b')), [1, 3]);
    assert.deepEqual(select(eq('i', ''), re('i', '.*')), [4, 5, 6]);
  });

  test('selects nothing for no matchers, as Prometheus does', () => {
    assert.deepEqual(select(), []);
  });

  test('rejects an invalid regex before doing any work', () => {
    assert.throws(() => select(eq('job', 'api'), re('path', '(')), InvalidMatcherError);
    assert.throws(() => select(eq('nope', 'x'), nre('path', '[z-a]')), InvalidMatcherError);
  });

  test('returns an array the caller owns', () => {
    const got = ix.select([eq('job', 'api')]);
    got[0] = 99;
    assert.deepEqual(select(eq('job', 'api')), [1, 2]);
  });
});
