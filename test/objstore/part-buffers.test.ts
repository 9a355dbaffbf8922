// The part buffers of multipart uploads, kept between uploads, and the
// hasher's thread reading a file's part and hashing it in one pass.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PartBuffers, SPARE_PAIRS } from '../../src/objstore/part-buffers.js';
import { PartHasher, READ_PIECE } from '../../src/objstore/part-hasher.js';

describe('PartBuffers', () => {
  it('lends a pair of shared buffers of the part size and lends the same pair again once given back', () => {
    const pool = new PartBuffers();
    const pair = pool.take(1000);
    assert.equal(pair.length, 2);
    for (const b of pair) {
      assert.equal(b.length, 1000);
      assert.ok(b.buffer instanceof SharedArrayBuffer, 'the hasher\'s thread reads it in place');
    }
    assert.notEqual(pair[0]!.buffer, pair[1]!.buffer);
    pool.give(pair);
    assert.equal(pool.take(1000), pair);
    pool.clear();
  });

  it('lends two uploads at once pairs of their own, keeps at most SPARE_PAIRS, and none of another part size', () => {
    const pool = new PartBuffers();
    const pairs = Array.from({ length: SPARE_PAIRS + 1 }, () => pool.take(64));
    assert.equal(new Set(pairs.flat().map((b) => b.buffer)).size, 2 * (SPARE_PAIRS + 1), 'no buffer lent twice');
    for (const p of pairs) pool.give(p);
    assert.equal(pool.sparePairs, SPARE_PAIRS);
    const other = pool.take(128);
    assert.equal(other[0]!.length, 128);
    assert.equal(pool.sparePairs, SPARE_PAIRS, 'a pair of 64 bytes is not lent for 128');
    pool.clear();
    assert.equal(pool.sparePairs, 0);
  });
});

describe('PartHasher', () => {
  const dir = mkdtempSync(join(tmpdir(), 'strata-part-hasher-'));
  const bytes = randomBytes(3 * READ_PIECE + 123);
  const path = join(dir, 'file');
  writeFileSync(path, bytes);
  after(() => rmSync(dir, { recursive: true, force: true }));
  const md5 = (b: Uint8Array) => createHash('md5').update(b).digest('base64');
  const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

  it('reads a part of a file into a shared buffer and answers its MD5 and SHA-256, past several pieces', async (t) => {
    const hasher = new PartHasher({ md5: true, sha256: true });
    const file = await open(path, 'r');
    t.after(async () => {
      await file.close();
      await hasher.close();
    });
    const into = new PartBuffers().take(bytes.length)[0]!;
    const from = 100;
    const length = bytes.length - from;
    const sums = await hasher.readAndHash(file.fd, from, into.subarray(0, length));
    const want = bytes.subarray(from);
    assert.deepEqual(into.subarray(0, length), want);
    assert.deepEqual(sums, { md5: md5(want), sha256: sha(want) });
    // Only the sums asked for; a view already filled is hashed as it is.
    const md5Only = new PartHasher({ md5: true, sha256: false });
    t.after(() => md5Only.close());
    assert.deepEqual(await md5Only.hash(into.subarray(0, 10)), { md5: md5(want.subarray(0, 10)) });
  });

  it('fails a part the file no longer holds, saying so, and goes on hashing the next', async (t) => {
    const hasher = new PartHasher({ md5: true, sha256: false });
    const file = await open(path, 'r');
    t.after(async () => {
      await file.close();
      await hasher.close();
    });
    const into = new PartBuffers().take(2 * READ_PIECE)[0]!;
    await assert.rejects(hasher.readAndHash(file.fd, bytes.length - READ_PIECE, into), /file shrank while uploading/);
    assert.deepEqual(await hasher.readAndHash(file.fd, 0, into), { md5: md5(bytes.subarray(0, 2 * READ_PIECE)) });
  });

  it('refuses a part outside shared memory', async (t) => {
    const hasher = new PartHasher({ md5: true, sha256: false });
    t.after(() => hasher.close());
    assert.throws(() => hasher.hash(Buffer.alloc(4)), /SharedArrayBuffer/);
  });
});
