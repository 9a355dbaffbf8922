import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidMatcherError } from '../../src/index/errors.js';
import { LabelDict } from '../../src/index/label-dict.js';
import { compileMatcher, matchesValue } from '../../src/index/label-matcher.js';
import { MatchType } from '../../src/index/types.js';
import { U32Buffer } from '../../src/index/u32-buffer.js';
import { regexMatcher } from '../../src/index/value-matcher.js';
import { RE2JS } from 're2js';
import { rng } from '../support/series.js';
import { randomPattern, randomValue, referenceRegex } from './random-labels.js';

/** Values of a dictionary (list i = value i) that the matcher's dictionary scan returns for `want`. */
function collected(pattern: string, values: readonly string[], want = true): string[] {
  const dict = new LabelDict('x');
  values.forEach((v, i) => dict.add(v, i));
  const out = new U32Buffer();
  regexMatcher(pattern).collect(dict, want, out);
  return [...out.view()].sort((a, b) => a - b).map((i) => values[i]!);
}

const matches = (pattern: string, value: string) => regexMatcher(pattern).test(value);

describe('regular expressions', () => {
  test('are fully anchored', () => {
    assert.deepEqual(collected('a|b', ['a', 'b', 'ab', 'ba', 'xa']), ['a', 'b']);
    assert.deepEqual(collected('foo', ['foo', 'foobar', 'xfoo']), ['foo']);
    assert.deepEqual(collected('b.*', ['b', 'ab', 'bc']), ['b', 'bc']);
    assert.equal(matches('[a-z]+', 'abc1'), false);
  });

  test('keep the meaning of the text ^(?: pattern )$, as Prometheus builds it', () => {
    // Prometheus concatenates: `a)|(b` becomes ^(?:a)|(b)$, "starts with a or ends with b".
    assert.equal(matches('a)|(b', 'axx'), true);
    assert.equal(matches('a)|(b', 'xxb'), true);
    assert.equal(matches('a)|(b', 'xbx'), false);
  });

  test('do not let . match a newline', () => {
    assert.deepEqual(collected('.*', ['a', 'a\nb', '\n']), ['a']);
    assert.deepEqual(collected('.+', ['a', 'a\nb', '']), ['a']);
    assert.deepEqual(collected('a.*', ['ab', 'a\n']), ['ab']);
    assert.deepEqual(collected('.*b', ['ab', '\nb']), ['ab']);
    assert.deepEqual(collected('.*b.*', ['abc', 'a\nbc', 'ab\n']), ['abc']);
    assert.equal(matches('a.b', 'a\nb'), false);
    assert.equal(matches('(?s)a.b', 'a\nb'), true);
  });

  test('match literals holding a newline exactly', () => {
    assert.deepEqual(collected('a\nb|c', ['a\nb', 'c', 'ab']), ['a\nb', 'c']);
  });

  test('support RE2 classes: \\d \\w \\s are ASCII, \\pL and [[:alpha:]] exist', () => {
    assert.equal(matches('\\d+', '123'), true);
    assert.equal(matches('\\d', '٣'), false, 'Arabic-Indic digit is not \\d');
    assert.equal(matches('\\w+', 'a_1'), true);
    assert.equal(matches('\\w', 'é'), false);
    assert.equal(matches('\\s', ' '), true);
    assert.equal(matches('\\s', '\u00a0'), false);
    assert.equal(matches('\\pL+', 'héllo日本'), true);
    assert.equal(matches('\\p{Greek}+', 'αβγ'), true);
    assert.equal(matches('[[:alpha:]]+', 'abc'), true);
    assert.equal(matches('[[:alpha:]]', 'é'), false);
    assert.equal(matches('\\Qa.b\\E', 'a.b'), true);
    assert.equal(matches('\\Qa.b\\E', 'axb'), false);
    assert.equal(matches('x{2,3}', 'xxx'), true);
    assert.equal(matches('(?P<name>a)b', 'ab'), true);
  });

  test('fold case with (?i) as Go does, Kelvin sign and long s included', () => {
    assert.deepEqual(collected('(?i)get|post', ['GET', 'Get', 'post', 'PoSt', 'gett']), ['GET', 'Get', 'post', 'PoSt']);
    assert.deepEqual(collected('(?i)kube.*', ['KUBE-x', '\u212aube', 'kubé', 'cube', 'kubeé']), ['KUBE-x', '\u212aube', 'kubeé']);
    assert.deepEqual(collected('(?i)s', ['S', 's', '\u017f', 'ß']), ['S', 's', '\u017f']);
    assert.deepEqual(collected('(?i)é', ['É', 'é']), ['É', 'é']);
    assert.deepEqual(collected('(?i)a.*', ['Ab', 'aé', 'b']), ['Ab', 'aé']);
  });

  test('match unicode values by code point', () => {
    assert.deepEqual(collected('.', ['😀', 'é', 'ab', '']), ['😀', 'é']);
    assert.deepEqual(collected('日.*', ['日本', '本日']), ['日本']);
    assert.deepEqual(collected('.*😀', ['a😀', '😀a']), ['a😀']);
    assert.deepEqual(collected('.+😀.+', ['a😀b', '😀b', 'a😀']), ['a😀b']);
    assert.deepEqual(collected('😀|\uffff', ['😀', '\uffff', '\ue000']), ['😀', '\uffff']);
  });

  test('answer the complement when asked for non-matching values', () => {
    const values = ['a', 'b', 'ab', 'a\nb', 'ABC', '\u212a'];
    for (const p of ['a|b', 'a.*', '.*b', '.*', '(?i)abc|k', '[ab]+', 'zzz']) {
      const yes = collected(p, values, true);
      const no = collected(p, values, false);
      assert.deepEqual([...yes, ...no].sort(), [...values].sort(), p);
      for (const v of yes) assert.ok(!no.includes(v), `${p}: ${v}`);
    }
  });

  test('know whether they match the empty string', () => {
    for (const [p, empty] of [['', true], ['.*', true], ['.+', false], ['a|', true], ['a?', true], ['x*y*', true], ['a', false]] as const) {
      assert.equal(regexMatcher(p).matchesEmpty, empty, p);
    }
  });

  test('are compiled once and cached by pattern', () => {
    assert.equal(regexMatcher('cache-me.*'), regexMatcher('cache-me.*'));
  });
});

describe('invalid patterns', () => {
  test('throw InvalidMatcherError naming the pattern and the problem', () => {
    for (const [p, why] of [
      ['[a', /missing closing \]/],
      ['a(b', /missing closing \)/],
      ['a**', /invalid nested repetition operator/],
      ['x{1001}', /invalid repeat count/],
      ['(a)\\1', /invalid escape sequence/],
      ['(?=a)', /invalid or unsupported Perl syntax/],
      ['(?<=a)b', /invalid|unsupported/],
      ['\\C', /invalid escape sequence/],
      ['*', /missing argument to repetition operator/],
    ] as const) {
      assert.throws(() => regexMatcher(p), (err: unknown) => {
        assert.ok(err instanceof InvalidMatcherError, `${p}: ${String(err)}`);
        assert.equal(err.pattern, p);
        assert.match(err.message, why);
        assert.ok(err.message.includes(JSON.stringify(p)), err.message);
        return true;
      });
    }
  });

  test('throw for an unknown matcher type', () => {
    assert.throws(() => compileMatcher({ type: 7 as 0, name: 'a', value: 'b' }), InvalidMatcherError);
  });
});

test('matchesValue decides a matcher on one value, "" standing for a missing label', () => {
  assert.equal(matchesValue({ type: MatchType.EQ, name: 'r', value: 'eu' }, 'eu'), true);
  assert.equal(matchesValue({ type: MatchType.NEQ, name: 'r', value: 'eu' }, 'us'), true);
  assert.equal(matchesValue({ type: MatchType.RE, name: 'r', value: 'eu-.*' }, 'eu-west'), true);
  assert.equal(matchesValue({ type: MatchType.NRE, name: 'r', value: '.+' }, ''), true);
});

test('the dictionary scan agrees with RE2 on every value for random patterns', () => {
  const next = rng(11);
  const values = [...new Set([...Array.from({ length: 400 }, () => randomValue(next)), '', '\n', 'a\n', 'K', '\u212a', '\u017f'])];
  let checked = 0;
  for (let i = 0; i < 600; i++) {
    const p = randomPattern(next);
    const ref = referenceRegex(p);
    if (ref === undefined) {
      assert.throws(() => regexMatcher(p), InvalidMatcherError, p);
      continue;
    }
    const want = values.filter((v) => ref.test(v)).sort();
    assert.deepEqual(collected(p, values).sort(), want, JSON.stringify(p));
    assert.equal(regexMatcher(p).matchesEmpty, ref.test(''), JSON.stringify(p));
    checked++;
  }
  assert.ok(checked > 450, `only ${checked} valid patterns`);
});

test('a pattern that compiles alone matches whole values exactly as ^(?:pattern)$ searched', () => {
  // Re2Matcher may run either form on a large dictionary, whichever is faster.
  const next = rng(12);
  const values = [...new Set([...Array.from({ length: 200 }, () => randomValue(next)), '', '\n', 'a\nb'])];
  let compared = 0;
  for (let i = 0; i < 400; i++) {
    const p = randomPattern(next);
    const anchored = referenceRegex(p);
    let bare: RE2JS | undefined;
    try {
      bare = RE2JS.compile(p);
    } catch {
      continue;
    }
    if (anchored === undefined) continue;
    for (const v of values) assert.equal(bare.testExact(v), anchored.test(v), `${JSON.stringify(p)} on ${JSON.stringify(v)}`);
    compared++;
  }
  assert.ok(compared > 300);
});

test('the RE2 path agrees with RE2 on dictionaries large enough to time both engines', () => {
  const next = rng(13);
  const values = [...new Set(Array.from({ length: 6000 }, (_, i) => randomValue(next) + (i % 2 === 0 ? '' : String(i))))];
  assert.ok(values.length >= 4096);
  for (const p of ['[a-c]+.*', '\\w+', '.*[0-9]{2}.*', '(?i)(foo|bar)+', '(a|b)?c.*\\pL', 'a)|(b']) {
    const ref = referenceRegex(p)!;
    const yes = values.filter((v) => ref.test(v)).sort();
    const no = values.filter((v) => !ref.test(v)).sort();
    // First call times one engine, the second the other, the third runs the faster.
    assert.deepEqual(collected(p, values).sort(), yes, p);
    assert.deepEqual(collected(p, values, false).sort(), no, p);
    assert.deepEqual(collected(p, values).sort(), yes, p);
  }
});
