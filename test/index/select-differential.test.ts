// select() against a reference that checks every series with RE2 directly,
// on random label sets and random matchers of all four types.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RE2JS } from 're2js';
import { InvalidMatcherError } from '../../src/index/errors.js';
import { PostingsIndex } from '../../src/index/postings-index.js';
import { MatchType, type LabelMatcher } from '../../src/index/types.js';
import { rng } from '../support/series.js';
import { pick, randomPattern, randomSeries, referenceMatches, referenceRegex, type Next } from './random-labels.js';

const TYPES = [MatchType.EQ, MatchType.NEQ, MatchType.RE, MatchType.NRE] as const;

function randomMatcher(next: Next, series: readonly string[][]): LabelMatcher {
  const type = pick(next, TYPES);
  const labels = pick(next, series);
  const r = next();
  // Mostly names and values that exist, sometimes missing names and the empty value.
  const name = r < 0.1 ? 'missing' : labels.length > 0 ? labels[2 * Math.floor(next() * (labels.length / 2))]! : 'a';
  let value: string;
  if (type === MatchType.EQ || type === MatchType.NEQ || next() < 0.2) {
    const i = labels.indexOf(name);
    value = next() < 0.15 || i < 0 ? '' : labels[i + 1]!;
    if (type === MatchType.RE || type === MatchType.NRE) value = value.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
  } else {
    value = randomPattern(next);
  }
  return { type, name, value };
}

test('select agrees with a per-series RE2 reference on random series and matchers', () => {
  const next = rng(2024);
  const series = randomSeries(next, 3000);
  const ix = new PostingsIndex();
  const ids: number[] = [];
  let id = 10;
  for (const labels of series) {
    ix.add(id, labels);
    ids.push(id);
    id += 1 + Math.floor(next() * 2);
  }
  const res = new Map<string, RE2JS>();
  let queries = 0;
  let nonEmpty = 0;
  for (let q = 0; q < 400; q++) {
    const matchers = Array.from({ length: 1 + Math.floor(next() * 3) }, () => randomMatcher(next, series));
    let valid = true;
    for (const m of matchers) {
      if (m.type !== MatchType.RE && m.type !== MatchType.NRE) continue;
      const re = referenceRegex(m.value);
      if (re === undefined) valid = false;
      else res.set(m.value, re);
    }
    if (!valid) {
      assert.throws(() => ix.select(matchers), InvalidMatcherError);
      continue;
    }
    const want = ids.filter((_, i) => referenceMatches(series[i]!, matchers, res));
    assert.deepEqual(ix.select(matchers), Uint32Array.from(want), JSON.stringify(matchers));
    queries++;
    if (want.length > 0 && want.length < ids.length) nonEmpty++;
  }
  assert.ok(queries > 300 && nonEmpty > 100, `${queries} queries, ${nonEmpty} selective`);
});

test('select stays exact after random batch deletes', () => {
  const next = rng(77);
  const series = randomSeries(next, 2000);
  const ix = new PostingsIndex();
  series.forEach((labels, i) => ix.add(i, labels));
  const gone = Uint32Array.from(series.map((_, i) => i).filter((i) => i < 600 || next() < 0.1));
  ix.delete(gone);
  const goneSet = new Set(gone);
  const res = new Map<string, RE2JS>();
  for (let q = 0; q < 150; q++) {
    const matchers = [randomMatcher(next, series), randomMatcher(next, series)];
    if (matchers.some((m) => (m.type === MatchType.RE || m.type === MatchType.NRE) && !res.has(m.value) && !addRegex(res, m.value))) continue;
    const want = series.map((_, i) => i).filter((i) => !goneSet.has(i) && referenceMatches(series[i]!, matchers, res));
    assert.deepEqual(ix.select(matchers), Uint32Array.from(want), JSON.stringify(matchers));
  }
});

function addRegex(res: Map<string, RE2JS>, pattern: string): boolean {
  const re = referenceRegex(pattern);
  if (re !== undefined) res.set(pattern, re);
  return re !== undefined;
}
