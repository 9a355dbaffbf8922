import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { isNotFound, ObjectNotFoundError, type Bucket } from '../../src/objstore/index.js';

/** A store to run the suite against: opens an empty bucket, optionally under a prefix. */
export interface ConformanceTarget {
  /** The bucket with `prefix` applied (Thanos' `prefix:`); every call returns a view of the same empty store. */
  open(prefix?: string): Promise<Bucket>;
  /** Size of a file that the bucket uploads in several parts (S3: above its part_size). */
  multipartBytes: number;
  stop(): Promise<void>;
}

const MiB = 1024 * 1024;

/**
 * The one bucket acceptance suite, run against every implementation (as
 * Thanos' objstore acceptance test): `start` gives a target, or a reason to
 * skip the suite.
 */
export function bucketConformance(title: string, start: () => Promise<ConformanceTarget | string>): void {
  describe(`bucket conformance: ${title}`, () => {
    let target: ConformanceTarget | undefined;
    let skip: string | undefined;
    let bucket: Bucket;
    let files: string;

    before(async () => {
      const t = await start();
      if (typeof t === 'string') {
        skip = t;
        return;
      }
      target = t;
      bucket = await t.open();
      files = await mkdtemp(join(tmpdir(), 'strata-objstore-files-'));
    });
    after(async () => {
      await bucket?.close();
      await target?.stop();
      if (files !== undefined) await rm(files, { recursive: true, force: true });
    });

    /** Runs `f` unless the target could not start, which skips with its reason. */
    const test = (name: string, f: (t: TestContext) => Promise<void>) =>
      it(name, async (t) => {
        if (skip !== undefined) {
          t.skip(skip);
          return;
        }
        await f(t);
      });

    test('gets back the bytes uploaded, and an upload replaces the object', async () => {
      await bucket.upload('replace/obj', Buffer.from('first'));
      assert.equal((await bucket.get('replace/obj')).toString(), 'first');
      await bucket.upload('replace/obj', new Uint8Array(Buffer.from('second, longer')));
      assert.equal((await bucket.get('replace/obj')).toString(), 'second, longer');
      assert.equal(await bucket.size('replace/obj'), 14);
    });

    test('uploads an empty object', async () => {
      await bucket.upload('empty/obj', new Uint8Array(0));
      assert.equal((await bucket.get('empty/obj')).length, 0);
      assert.equal(await bucket.size('empty/obj'), 0);
      assert.equal(await bucket.exists('empty/obj'), true);
    });

    test('uploads a small file', async () => {
      const path = join(files, 'small');
      await writeFile(path, 'a small file\n');
      await bucket.uploadFile('files/small', path);
      assert.equal((await bucket.get('files/small')).toString(), 'a small file\n');
    });

    test('uploads a file large enough to go in several parts', async () => {
      const bytes = randomBytes(target!.multipartBytes);
      const path = join(files, 'large');
      await writeFile(path, bytes);
      await bucket.uploadFile('files/large', path);
      assert.equal(await bucket.size('files/large'), bytes.length);
      const back = await bucket.get('files/large');
      assert.equal(sha(back), sha(bytes));
    });

    test('uploads bytes large enough to go in several parts', async () => {
      const bytes = randomBytes(target!.multipartBytes);
      await bucket.upload('files/large-bytes', bytes);
      assert.equal(sha(await bucket.get('files/large-bytes')), sha(bytes));
    });

    test('says whether an object exists and how large it is', async () => {
      await bucket.upload('stat/here', Buffer.from('12345'));
      assert.equal(await bucket.exists('stat/here'), true);
      assert.equal(await bucket.exists('stat/absent'), false);
      assert.equal(await bucket.exists('stat'), false, 'a "directory" is not an object');
      assert.equal(await bucket.size('stat/here'), 5);
    });

    test('throws ObjectNotFoundError for a missing object on get and size', async () => {
      await assert.rejects(bucket.get('missing/object'), (err: unknown) => {
        assert.ok(err instanceof ObjectNotFoundError);
        assert.equal(isNotFound(err), true);
        assert.equal(err.object, 'missing/object');
        return true;
      });
      await assert.rejects(bucket.size('missing/object'), (err: unknown) => isNotFound(err));
    });

    test('lists the top and a directory without recursion, directories ending in /', async () => {
      for (const n of ['list/a', 'list/sub/b', 'list/sub/deeper/c', 'list/z']) await bucket.upload(n, Buffer.from(n));
      assert.ok((await bucket.iter('')).includes('list/'));
      assert.deepEqual(await bucket.iter('list'), ['list/a', 'list/sub/', 'list/z']);
      assert.deepEqual(await bucket.iter('list/'), ['list/a', 'list/sub/', 'list/z']);
      assert.deepEqual(await bucket.iter('list/sub'), ['list/sub/b', 'list/sub/deeper/']);
      assert.deepEqual(await bucket.iter('list/nothing'), []);
    });

    test('lists every object under a directory with recursion', async () => {
      for (const n of ['rec/a', 'rec/sub/b', 'rec/sub/deeper/c']) await bucket.upload(n, Buffer.from(n));
      assert.deepEqual(await bucket.iter('rec', { recursive: true }), ['rec/a', 'rec/sub/b', 'rec/sub/deeper/c']);
      assert.deepEqual(await bucket.iter('rec/sub/', { recursive: true }), ['rec/sub/b', 'rec/sub/deeper/c']);
    });

    test('lists in UTF-8 byte order, as S3 does', async () => {
      for (const n of ['order/a.txt', 'order/a/b', 'order/ä', 'order/Z', 'order/\u{1F680}', 'order/\uFF21']) await bucket.upload(n, Buffer.from('x'));
      assert.deepEqual(await bucket.iter('order'), ['order/Z', 'order/a.txt', 'order/a/', 'order/ä', 'order/\uFF21', 'order/\u{1F680}']);
    });

    test('deletes an object; deleting a missing one is no error; an emptied directory is no longer listed', async () => {
      await bucket.upload('del/dir/only', Buffer.from('x'));
      await bucket.upload('del/keep', Buffer.from('x'));
      assert.deepEqual(await bucket.iter('del'), ['del/dir/', 'del/keep']);
      await bucket.delete('del/dir/only');
      assert.equal(await bucket.exists('del/dir/only'), false);
      await assert.rejects(bucket.get('del/dir/only'), (err: unknown) => isNotFound(err));
      assert.deepEqual(await bucket.iter('del'), ['del/keep']);
      await bucket.delete('del/dir/only');
      await bucket.delete('del/never-was');
    });

    test('keeps names with unicode and spaces', async () => {
      const name = 'ünï cödé/ŝpace name 🚀 +%20&?#.bin';
      await bucket.upload(name, Buffer.from('unicode'));
      assert.equal((await bucket.get(name)).toString(), 'unicode');
      assert.deepEqual(await bucket.iter('ünï cödé'), [name]);
      assert.ok((await bucket.iter('')).includes('ünï cödé/'));
      await bucket.delete(name);
      assert.equal(await bucket.exists(name), false);
    });

    test('puts every name under the prefix, as Thanos\' prefixed bucket', async (t) => {
      const tenant = await target!.open('/tenant-a/');
      t.after(() => tenant.close());
      await tenant.upload('blk/meta.json', Buffer.from('{}'));
      assert.equal((await bucket.get('tenant-a/blk/meta.json')).toString(), '{}');
      assert.deepEqual(await tenant.iter(''), ['blk/']);
      assert.deepEqual(await tenant.iter('blk'), ['blk/meta.json']);
      assert.deepEqual(await tenant.iter('', { recursive: true }), ['blk/meta.json']);
      assert.equal(await tenant.exists('blk/meta.json'), true);
      assert.equal(await tenant.size('blk/meta.json'), 2);
      await assert.rejects(tenant.get('blk/absent'), (err: unknown) => err instanceof ObjectNotFoundError && err.object === 'blk/absent');
      await tenant.delete('blk/meta.json');
      assert.equal(await bucket.exists('tenant-a/blk/meta.json'), false);
      const noPrefix = await target!.open('//');
      t.after(() => noPrefix.close());
      assert.equal(noPrefix.name, bucket.name, 'a prefix of slashes only is no prefix');
    });
  });
}

function sha(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

export { MiB };
