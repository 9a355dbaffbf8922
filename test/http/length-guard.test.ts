// Content-Length values Strata does not frame: which they are, and the answer each gets.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { framable, pastCorkBuffer, MAX_BODY_BYTES, unframableLength } from '../../src/http/length-guard.js';
import { UWS_CORK_BUFFER_BYTES } from '../../src/http/uws.js';

describe('length guard', () => {
  test('up to 9 digits, or no value, are framed; anything else is not', () => {
    for (const v of ['', '0', '5', '999999999', '000000001']) assert.equal(framable(v), true, v);
    for (const v of ['1000000000', '12345678901234567890', 'abc', '-5', '+5', '1 2', '0x10', '5.0']) assert.equal(framable(v), false, v);
  });

  test('a number over the limit is 413 naming the limit; past what uWebSockets.js reads, that is the limit', () => {
    const p = unframableLength('1234567890', 32 << 20);
    assert.equal(p.status, 413);
    assert.match(p.detail, /larger than 33554432 bytes/);
    assert.match(unframableLength('99999999999', 4e9).detail, new RegExp(`larger than ${MAX_BODY_BYTES} bytes`));
  });

  test('not a number is 400; leading zeros under the limit are 400', () => {
    assert.equal(unframableLength('-5', 100).status, 400);
    assert.match(unframableLength('abc', 100).detail, /'abc' is not a number/);
    assert.match(unframableLength('x'.repeat(100), 100).detail, /'x{32}\.\.\.' is not a number/);
    assert.match(unframableLength('0000000005', 100).detail, /more than 9 digits/);
  });

  test('the answer is padded with JSON whitespace to a whole cork buffer', () => {
    const reply = pastCorkBuffer({ status: 400, body: '{"status":400}' });
    const body = reply.body as Uint8Array;
    assert.equal(body.length, UWS_CORK_BUFFER_BYTES);
    assert.deepEqual(JSON.parse(Buffer.from(body).toString()), { status: 400 });
  });
});
