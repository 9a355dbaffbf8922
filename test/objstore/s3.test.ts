import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CreateBucketCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { isNotFound, openBucket, parseBucketConfig } from '../../src/objstore/index.js';
import { bucketConformance, MiB } from './conformance.js';
import { s3Yaml } from './fake-s3.js';
import { emptyAndDelete, sharedRadosgw, startS3rver, stopSharedRadosgw, type S3Server } from './s3-servers.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
after(stopSharedRadosgw);

/** A conformance target on a fresh bucket of `server`. */
function s3Target(start: () => Promise<S3Server | string>, extra: string[]) {
  return async () => {
    const s = await start();
    if (typeof s === 'string') return s;
    const bucket = `strata-conf-${randomBytes(6).toString('hex')}`;
    await s.client.send(new CreateBucketCommand({ Bucket: bucket }));
    return {
      // part_size at S3's smallest part, so that 12 MiB goes in 3 parts.
      multipartBytes: 12 * MiB,
      open: (prefix = '') => openBucket(parseBucketConfig(s3Yaml(s, bucket, ['part_size: 5242880', ...extra], prefix))),
      stop: async () => {
        await emptyAndDelete(s.client, bucket).catch(() => {});
        await s.stop();
      },
    };
  };
}

// Region left out: the bucket's location is asked of the store, as minio does.
bucketConformance('S3 on Ceph radosgw', s3Target(sharedRadosgw, []));
bucketConformance('S3 on Ceph radosgw, ListObjects v1, no Content-MD5', s3Target(sharedRadosgw, ['region: us-east-1', 'list_objects_version: v1', 'send_content_md5: false']));
bucketConformance('S3 on s3rver', s3Target(startS3rver, ['region: us-east-1']));

describe('S3 bucket against radosgw', () => {
  let s: S3Server | string;
  before(async () => {
    s = await sharedRadosgw();
  });
  after(async () => {
    if (typeof s !== 'string') await s.stop();
  });

  it('sends put_user_metadata as x-amz-meta-* and the storage class on every upload', async (t) => {
    if (typeof s === 'string') return t.skip(s);
    const server = s;
    const yaml = s3Yaml(server, server.bucket, ['put_user_metadata:', '  team: observability', '  X-Amz-Meta-Source: strata', '  X-Amz-Storage-Class: STANDARD']);
    const bucket = await openBucket(parseBucketConfig(yaml));
    t.after(() => bucket.close());
    await bucket.upload('meta/obj', Buffer.from('x'));
    const dir = await mkdtemp(join(tmpdir(), 'strata-s3-meta-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'f'), 'file');
    await bucket.uploadFile('meta/file', join(dir, 'f'));
    for (const key of ['meta/obj', 'meta/file']) {
      const head = await server.client.send(new HeadObjectCommand({ Bucket: server.bucket, Key: key }));
      assert.deepEqual(head.Metadata, { team: 'observability', source: 'strata' });
    }
  });

  it('lists past one page of keys, with v2 and with v1', async (t) => {
    if (typeof s === 'string') return t.skip(s);
    const server = s;
    const names = Array.from({ length: 1005 }, (_, i) => `page/${String(i).padStart(4, '0')}`);
    const bucket = await openBucket(parseBucketConfig(s3Yaml(server, server.bucket, ['region: us-east-1'])));
    t.after(() => bucket.close());
    for (let i = 0; i < names.length; i += 50) await Promise.all(names.slice(i, i + 50).map((n) => bucket.upload(n, Buffer.from('x'))));
    assert.deepEqual(await bucket.iter('page'), names);
    const v1 = await openBucket(parseBucketConfig(s3Yaml(server, server.bucket, ['region: us-east-1', 'list_objects_version: v1'])));
    t.after(() => v1.close());
    assert.deepEqual(await v1.iter('page', { recursive: true }), names);
  });

  it('fails with a clear error for a bucket that does not exist', async (t) => {
    if (typeof s === 'string') return t.skip(s);
    const bucket = await openBucket(parseBucketConfig(s3Yaml(s, 'strata-no-such-bucket', ['region: us-east-1'])));
    t.after(() => bucket.close());
    await assert.rejects(bucket.upload('x', Buffer.from('x')), /strata-no-such-bucket.*NoSuchBucket/);
    await assert.rejects(bucket.get('x'), (err: unknown) => !isNotFound(err) && /NoSuchBucket/.test(String(err)));
  });
});
