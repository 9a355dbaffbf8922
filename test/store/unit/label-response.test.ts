import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LabelNamesResponse, LabelValuesResponse } from '../../../src/gen/thanos/store/rpc.js';
import { encodeLabelsResponse } from '../../../src/grpc/label-response.js';

const values = ['', 'a', 'host-1:9100', 'ü', '日本', 'emoji \u{1F600}', 'x'.repeat(42), 'y'.repeat(43), 'é'.repeat(42), 'z'.repeat(300), 'ascii then é'];
const warnings = ['one warning', `a long one ${'w'.repeat(200)}`];

test('a LabelValues answer encodes to the bytes the generated encoder writes', () => {
  const expected = Buffer.from(LabelValuesResponse.encode({ values, warnings }).finish());
  assert.deepEqual(encodeLabelsResponse(values, warnings), expected);
  assert.deepEqual(LabelValuesResponse.decode(encodeLabelsResponse(values, warnings)), { values, warnings, hints: undefined });
});

test('a LabelNames answer shares the layout, and an empty answer is empty bytes', () => {
  assert.deepEqual(encodeLabelsResponse(['__name__', 'job'], []), Buffer.from(LabelNamesResponse.encode({ names: ['__name__', 'job'], warnings: [] }).finish()));
  assert.equal(encodeLabelsResponse([], []).length, 0);
});

test('a frozen list is encoded once and answered again; warnings still follow it', () => {
  const frozen = Object.freeze(['a', 'b', 'c']);
  const first = encodeLabelsResponse(frozen, []);
  assert.equal(encodeLabelsResponse(frozen, []), first);
  assert.deepEqual(LabelValuesResponse.decode(encodeLabelsResponse(frozen, ['w'])), { values: ['a', 'b', 'c'], warnings: ['w'], hints: undefined });
  const open = ['a'];
  const before = encodeLabelsResponse(open, []);
  open.push('b');
  assert.notDeepEqual(encodeLabelsResponse(open, []), before);
  assert.deepEqual(LabelValuesResponse.decode(encodeLabelsResponse(open, [])).values, ['a', 'b']);
});
