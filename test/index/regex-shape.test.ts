import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Any, isLiteralSet, recognise, shapeMatchesEmpty } from '../../src/index/regex-shape.js';

const { NONE, STAR, PLUS } = Any;

function terms(pattern: string): [number, string, number][] | undefined {
  return recognise(pattern)?.terms.map((t) => [t.lead, t.literal, t.trail]);
}

test('recognises literals and literal alternations, bare or in one group', () => {
  assert.deepEqual(terms('foo'), [[NONE, 'foo', NONE]]);
  assert.deepEqual(terms('a|b|c'), [[NONE, 'a', NONE], [NONE, 'b', NONE], [NONE, 'c', NONE]]);
  assert.deepEqual(terms('(?:a|b)'), [[NONE, 'a', NONE], [NONE, 'b', NONE]]);
  assert.deepEqual(terms('(a|b)'), [[NONE, 'a', NONE], [NONE, 'b', NONE]]);
  assert.deepEqual(terms(''), [[NONE, '', NONE]]);
  assert.deepEqual(terms('a|'), [[NONE, 'a', NONE], [NONE, '', NONE]]);
  assert.deepEqual(terms('日本|😀'), [[NONE, '日本', NONE], [NONE, '😀', NONE]]);
  assert.ok(isLiteralSet(recognise('a|b')!));
});

test('recognises prefix, suffix, contains and the bare wildcards', () => {
  assert.deepEqual(terms('foo.*'), [[NONE, 'foo', STAR]]);
  assert.deepEqual(terms('.*foo'), [[STAR, 'foo', NONE]]);
  assert.deepEqual(terms('.*foo.*'), [[STAR, 'foo', STAR]]);
  assert.deepEqual(terms('.+foo.+'), [[PLUS, 'foo', PLUS]]);
  assert.deepEqual(terms('.*'), [[STAR, '', NONE]]);
  assert.deepEqual(terms('.+'), [[PLUS, '', NONE]]);
  assert.deepEqual(terms('abc.*|.*xyz'), [[NONE, 'abc', STAR], [STAR, 'xyz', NONE]]);
  assert.deepEqual(terms('/api/v1/.*'), [[NONE, '/api/v1/', STAR]]);
  assert.equal(isLiteralSet(recognise('a|b.*')!), false);
});

test('resolves escaped punctuation to literals', () => {
  assert.deepEqual(terms('a\\.b\\-c\\/d\\|e'), [[NONE, 'a.b-c/d|e', NONE]]);
  assert.deepEqual(terms('\\.\\*.*'), [[NONE, '.*', STAR]]);
});

test('folds (?i) literals to lower case, ASCII only', () => {
  const shape = recognise('(?i)GET|Post.*')!;
  assert.equal(shape.foldCase, true);
  assert.deepEqual(shape.terms.map((t) => t.literal), ['get', 'post']);
  assert.equal(isLiteralSet(shape), false, 'folded literals are scanned, not looked up');
  assert.equal(recognise('(?i)été'), undefined);
});

test('leaves everything else to the RE2 engine', () => {
  for (const p of [
    'a.b', 'a*', 'a+', 'a?', '.*?', '.*a.*b', 'a.*b', '[ab]', '\\d', '\\w+', '^a', 'a$', '(a)(b)', '(a|b)c', 'a(b|c)',
    '((a))', '(?s).*', '(?i:a)', '(?U)a', 'a{2}', '\\Qa\\E', '\\pL', '\\n', '\\x41', 'a)|(b', '(a', 'a)', '(a\\)',
    '\\', 'a\\', '.*\n.*', 'a\ud800', '(?:a|b', '.', '.a', '.+.+',
  ]) {
    assert.equal(recognise(p), undefined, p);
  }
});

test('knows which shapes match the empty string', () => {
  const empty = (p: string) => shapeMatchesEmpty(recognise(p)!);
  assert.equal(empty(''), true);
  assert.equal(empty('.*'), true);
  assert.equal(empty('a|'), true);
  assert.equal(empty('.*.*'), true);
  assert.equal(empty('.+'), false);
  assert.equal(empty('a.*'), false);
  assert.equal(empty('.*.+'), false);
  assert.equal(empty('.+.*'), false);
});
