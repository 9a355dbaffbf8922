import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { FilesystemBucket, openBucket, parseBucketConfig } from '../../src/objstore/index.js';
import { TEMP_PREFIX } from '../../src/objstore/filesystem.js';
import { bucketConformance, MiB } from './conformance.js';

bucketConformance('FILESYSTEM', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'strata-fs-bucket-'));
  return {
    multipartBytes: 3 * MiB,
    open: (prefix = '') => openBucket(parseBucketConfig(`type: FILESYSTEM\nconfig:\n  directory: ${dir}\nprefix: "${prefix}"\n`)),
    stop: () => rm(dir, { recursive: true, force: true }),
  };
});

describe('FILESYSTEM bucket', () => {
  let dir: string;
  let bucket: FilesystemBucket;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'strata-fs-'));
    bucket = new FilesystemBucket(join(dir, 'bucket'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('lays objects out as files under the directory, as Thanos', async () => {
    await bucket.upload('01ABC/chunks/000001', Buffer.from('chunk'));
    assert.equal(await readFile(join(dir, 'bucket', '01ABC', 'chunks', '000001'), 'utf8'), 'chunk');
    assert.equal(bucket.name, `FILESYSTEM ${join(dir, 'bucket')}`);
  });

  it('reads objects Thanos wrote as plain files', async () => {
    await mkdir(join(dir, 'bucket', 'blk'), { recursive: true });
    await writeFile(join(dir, 'bucket', 'blk', 'meta.json'), '{"v":1}');
    assert.equal((await bucket.get('blk/meta.json')).toString(), '{"v":1}');
    assert.deepEqual(await bucket.iter(''), ['blk/']);
  });

  it('leaves no temporary file behind and never lists one', async () => {
    await bucket.upload('a/b', Buffer.from('x'));
    const src = join(dir, 'src');
    await writeFile(src, 'file');
    await bucket.uploadFile('a/c', src);
    assert.deepEqual((await readdir(join(dir, 'bucket', 'a'))).sort(), ['b', 'c']);
    // An upload under way (or one a crash cut short) leaves a temporary file.
    await writeFile(join(dir, 'bucket', 'a', `${TEMP_PREFIX}0123456789abcdef`), 'partial');
    await mkdir(join(dir, 'bucket', 'pending'));
    await writeFile(join(dir, 'bucket', 'pending', `${TEMP_PREFIX}0123456789abcdef`), 'partial');
    assert.deepEqual(await bucket.iter('a'), ['a/b', 'a/c']);
    assert.deepEqual(await bucket.iter('', { recursive: true }), ['a/b', 'a/c']);
    assert.deepEqual(await bucket.iter(''), ['a/'], 'a directory holding only temporary files is not listed');
  });

  it('drops the temporary files interrupted uploads left under a directory, and nothing else', async () => {
    await bucket.upload('blk/chunks/000001', Buffer.from('c'));
    await bucket.upload('blk/index', Buffer.from('i'));
    await bucket.upload('other/index', Buffer.from('o'));
    await writeFile(join(dir, 'bucket', 'blk', 'chunks', `${TEMP_PREFIX}0123456789abcdef`), 'partial');
    await writeFile(join(dir, 'bucket', 'blk', `${TEMP_PREFIX}fedcba9876543210`), 'partial');
    await writeFile(join(dir, 'bucket', 'other', `${TEMP_PREFIX}0000000000000000`), 'partial');
    await bucket.dropPartial('blk');
    assert.deepEqual((await readdir(join(dir, 'bucket', 'blk'), { recursive: true })).map(String).sort(), ['chunks', 'chunks/000001', 'index']);
    assert.equal((await readdir(join(dir, 'bucket', 'other'))).length, 2, 'another directory is left alone');
    await bucket.dropPartial('missing');
  });

  it('removes the directories a delete leaves empty, up to the bucket directory', async () => {
    await bucket.upload('x/y/z/obj', Buffer.from('x'));
    await bucket.upload('x/keep', Buffer.from('x'));
    await bucket.delete('x/y/z/obj');
    assert.deepEqual(await readdir(join(dir, 'bucket', 'x')), ['keep']);
    await bucket.delete('x/keep');
    assert.deepEqual(await readdir(join(dir, 'bucket')), []);
    assert.ok((await stat(join(dir, 'bucket'))).isDirectory(), 'the bucket directory stays');
  });

  it('does not delete a directory named as an object', async () => {
    await bucket.upload('d/obj', Buffer.from('x'));
    await bucket.delete('d');
    assert.equal(await bucket.exists('d/obj'), true);
  });

  it('refuses names that would leave the directory or clash with temporary files', async () => {
    for (const name of ['../escape', 'a/../../escape', '/abs', 'a//b', 'a/./b', 'dir/', '', `a/${TEMP_PREFIX}x`, 'nul\0byte']) {
      await assert.rejects(bucket.upload(name, Buffer.from('x')), /object name/, name);
    }
    await assert.rejects(bucket.iter('../'), /object name/);
  });

  it('lists nothing for a bucket directory that does not exist yet', async () => {
    assert.deepEqual(await bucket.iter(''), []);
    assert.equal(await bucket.exists('a'), false);
  });

  it('lets concurrent uploads and deletes in one directory all land', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0
      ? bucket.upload(`c/${i}`, Buffer.from(String(i)))
      : bucket.upload(`c/${i}`, Buffer.from('x')).then(() => bucket.delete(`c/${i}`)))));
    assert.deepEqual(await bucket.iter('c'), ['c/0', 'c/10', 'c/12', 'c/14', 'c/16', 'c/18', 'c/2', 'c/4', 'c/6', 'c/8']);
  });
});
