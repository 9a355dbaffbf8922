import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { test } from 'node:test';
import { invalidUtf8At } from '../../src/encoding/utf8.js';
import { rng } from '../support/series.js';

const at = (...bytes: number[]): number => invalidUtf8At(Uint8Array.from(bytes), 0, bytes.length);

test('accepts ASCII and every well-formed sequence length, at the edges of each range', () => {
  assert.equal(at(), -1);
  assert.equal(at(0x00, 0x41, 0x7f), -1);
  assert.equal(at(0xc2, 0x80, 0xdf, 0xbf), -1); // U+0080, U+07FF
  assert.equal(at(0xe0, 0xa0, 0x80, 0xed, 0x9f, 0xbf, 0xee, 0x80, 0x80, 0xef, 0xbf, 0xbf), -1); // U+0800, U+D7FF, U+E000, U+FFFF
  assert.equal(at(0xf0, 0x90, 0x80, 0x80, 0xf4, 0x8f, 0xbf, 0xbf), -1); // U+10000, U+10FFFF
});

test('points at the first byte of the first bad sequence', () => {
  assert.equal(at(0x41, 0x80), 1, 'a stray continuation byte');
  assert.equal(at(0x41, 0xc0, 0x80), 1, 'overlong two-byte form');
  assert.equal(at(0xc1, 0xbf), 0, 'overlong two-byte form');
  assert.equal(at(0xe0, 0x9f, 0xbf), 0, 'overlong three-byte form');
  assert.equal(at(0xed, 0xa0, 0x80), 0, 'a surrogate');
  assert.equal(at(0xf0, 0x8f, 0xbf, 0xbf), 0, 'overlong four-byte form');
  assert.equal(at(0xf4, 0x90, 0x80, 0x80), 0, 'past U+10FFFF');
  assert.equal(at(0xf5, 0x80, 0x80, 0x80), 0, 'F5 never starts a sequence');
  assert.equal(at(0x61, 0xff), 1, '0xFF, the canonical separator');
  assert.equal(at(0x61, 0xe2, 0x82), 1, 'cut short');
  assert.equal(at(0xe2, 0x28, 0xa1), 0, 'a bad continuation byte');
});

test('looks only inside [start, end): a sequence cut by end is invalid', () => {
  const bytes = Uint8Array.of(0xff, 0xe2, 0x82, 0xac, 0xff);
  assert.equal(invalidUtf8At(bytes, 1, 4), -1);
  assert.equal(invalidUtf8At(bytes, 1, 3), 1);
});

test("agrees with Node's own validator on random bytes biased to multi-byte sequences", () => {
  const next = rng(7);
  const pick = [0x00, 0x41, 0x7f, 0x80, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff];
  for (let i = 0; i < 20_000; i++) {
    const bytes = Uint8Array.from({ length: 1 + Math.floor(next() * 8) }, () =>
      next() < 0.5 ? pick[Math.floor(next() * pick.length)]! : Math.floor(next() * 256));
    assert.equal(invalidUtf8At(bytes, 0, bytes.length) === -1, isUtf8(bytes), Buffer.from(bytes).toString('hex'));
  }
});
