// The pieces of the Prometheus HTTP API's parameters, in process: series
// selectors (match[]), times, limits and escaped label names.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseLimit, parseTime } from '../../../src/http/prometheus/api-time.js';
import { unescapeLabelName } from '../../../src/http/prometheus/labels-api.js';
import { parseSelector } from '../../../src/index/selector.js';
import { MatchType } from '../../../src/index/index.js';

const { EQ, NEQ, RE, NRE } = MatchType;
const m = (type: number, name: string, value: string) => ({ type, name, value });

describe('series selectors', () => {
  const good: Array<[string, ReturnType<typeof m>[]]> = [
    ['up', [m(EQ, '__name__', 'up')]],
    ['  up  ', [m(EQ, '__name__', 'up')]],
    ['node:cpu:rate5m', [m(EQ, '__name__', 'node:cpu:rate5m')]],
    ['up{}', [m(EQ, '__name__', 'up')]],
    ['up{job=~"a.*"}', [m(EQ, '__name__', 'up'), m(RE, 'job', 'a.*')]],
    ['up{job="api",code!="500",path=~"/v1/.+",method!~"GET|HEAD",}', [
      m(EQ, '__name__', 'up'), m(EQ, 'job', 'api'), m(NEQ, 'code', '500'), m(RE, 'path', '/v1/.+'), m(NRE, 'method', 'GET|HEAD'),
    ]],
    ['{__name__=~"http_.*", code!~"2.."}', [m(RE, '__name__', 'http_.*'), m(NRE, 'code', '2..')]],
    [' { job = "a" , # a comment\n instance != "" } ', [m(EQ, 'job', 'a'), m(NEQ, 'instance', '')]],
    ["{job='single \\'quoted\\''}", [m(EQ, 'job', "single 'quoted'")]],
    ['{job="tab\\there \\"q\\" \\\\ \\u00e9\\U0001F600 \\x41\\101"}', [m(EQ, 'job', 'tab\there "q" \\ é😀 AA')]],
    ['{re=`raw \\d+ "x"`}', [m(EQ, 're', 'raw \\d+ "x"')]],
    ['{"http.requests", "service.name"="api"}', [m(EQ, '__name__', 'http.requests'), m(EQ, 'service.name', 'api')]],
    ['{"quoted.name"}', [m(EQ, '__name__', 'quoted.name')]],
    ['{a="1",a="2"}', [m(EQ, 'a', '1'), m(EQ, 'a', '2')]],
  ];
  for (const [input, want] of good) {
    test(`parses ${JSON.stringify(input)}`, () => {
      assert.deepEqual(parseSelector(input), want);
    });
  }

  const bad: Array<[string, RegExp]> = [
    ['', /metric name or '\{'/],
    ['{}', /at least one matcher that does not match the empty string/],
    ['{job=""}', /at least one matcher/],
    ['{job=~".*"}', /at least one matcher/],
    ['{job!~"x"}', /at least one matcher/],
    ['up{job="a"', /expected ',' or '\}' after a matcher, got the end/],
    ['up{job="a",', /unterminated '\{'/],
    ['up{job="a}', /unterminated quoted string/],
    ['up{job=a}', /expected a quoted string/],
    ['up{job=="a"}', /expected a quoted string/],
    ['up{job~"a"}', /expected one of/],
    ['up{job="a" x="b"}', /expected ',' or '\}'/],
    ['up{,}', /expected a label name/],
    ['up job', /after the selector/],
    ['up{job="a"} offset 5m', /after the selector/],
    ['rate(up[5m])', /after the selector/],
    ['up{__name__="x"}', /metric name must not be set twice/],
    ['{"a", "b"}', /metric name must not be set twice/],
    ['{__name__="a", "b"}', /metric name must not be set twice/],
    ['{job=~"a("}', /not a valid RE2 regular expression/],
    ['{job="\\q"}', /unknown escape sequence/],
    ['{job="\\\'"}', /unknown escape sequence/],
    ["{job='\\\"'}", /unknown escape sequence/],
    ['{job="\\x4"}', /needs 2 hexadecimal digits/],
    ['{job="\\ud800"}', /not a valid Unicode code point/],
    ['{job="\\400"}', /invalid octal escape/],
    ['{job="\\xff"}', /not valid UTF-8/],
    ['{job="a\nb"}', /newline/],
    ['{job=`a}', /unterminated raw string/],
    ['{1job="a"}', /expected a label name/],
    ['{job:x="a"}', /expected one of/],
  ];
  for (const [input, error] of bad) {
    test(`refuses ${JSON.stringify(input)}`, () => {
      assert.throws(() => parseSelector(input), (err: Error) => {
        assert.match(err.message, error);
        assert.equal((err as { kind?: string }).kind ?? 'invalid-argument', 'invalid-argument');
        return true;
      });
    });
  }
});

describe('times', () => {
  test('Unix seconds with decimals, rounded to the millisecond', () => {
    assert.equal(parseTime('start', '1700000000', 0), 1_700_000_000_000);
    assert.equal(parseTime('start', '1700000000.123', 0), 1_700_000_000_123);
    assert.equal(parseTime('start', '1700000000.1236', 0), 1_700_000_000_124);
    assert.equal(parseTime('start', '-1.5', 0), -1500);
    assert.equal(parseTime('start', '1.7e9', 0), 1_700_000_000_000);
    assert.equal(parseTime('start', '.5', 0), 500);
  });

  test('RFC 3339, with zones and fractions (truncated to the millisecond)', () => {
    assert.equal(parseTime('end', '2023-11-14T22:13:20Z', 0), 1_700_000_000_000);
    assert.equal(parseTime('end', '2023-11-14T22:13:20.9999Z', 0), 1_700_000_000_999);
    assert.equal(parseTime('end', '2023-11-15T00:13:20+02:00', 0), 1_700_000_000_000);
    assert.equal(parseTime('end', '2023-11-14T21:13:20.5-01:00', 0), 1_700_000_000_500);
    assert.equal(parseTime('end', '0050-01-01T00:00:00Z', 0), Date.parse('0050-01-01T00:00:00Z'));
    assert.equal(parseTime('end', '2024-02-29T00:00:00Z', 0), Date.parse('2024-02-29T00:00:00Z'));
  });

  test('absent is the fallback; Prometheus\' min and max time strings are unbounded', () => {
    assert.equal(parseTime('start', undefined, -Infinity), -Infinity);
    assert.equal(parseTime('start', '-292273086-05-16T16:47:06Z', 0), -Infinity);
    assert.equal(parseTime('end', '292277025-08-18T07:12:54.999999999Z', 0), Infinity);
    assert.equal(parseTime('end', '1e300', 0), Infinity);
  });

  for (const bad of ['', 'now', 'Inf', 'NaN', '0x10', '2023-11-14', '2023-11-14 22:13:20Z', '2023-02-29T00:00:00Z', '2023-11-14T24:00:00Z', '2023-11-14T22:13:20']) {
    test(`refuses ${JSON.stringify(bad)}`, () => {
      assert.throws(() => parseTime('start', bad, 0), /invalid parameter "start": cannot parse/);
    });
  }

  test('limit: a whole number, 0 or absent for none', () => {
    assert.equal(parseLimit(undefined), 0);
    assert.equal(parseLimit('0'), 0);
    assert.equal(parseLimit('25'), 25);
    for (const bad of ['-1', '1.5', 'ten']) assert.throws(() => parseLimit(bad), /invalid parameter "limit"/);
  });
});

describe('escaped label names', () => {
  test('U__ names unescape as Prometheus escapes them; others stay', () => {
    assert.equal(unescapeLabelName('job'), 'job');
    assert.equal(unescapeLabelName('U__http_2e_status'), 'http.status');
    assert.equal(unescapeLabelName('U__a__b'), 'a_b');
    assert.equal(unescapeLabelName('U___1f600_'), '😀');
    assert.equal(unescapeLabelName('U__bad_zz_'), 'U__bad_zz_');
    assert.equal(unescapeLabelName('U__open_2e'), 'U__open_2e');
  });
});
