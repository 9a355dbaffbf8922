import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { S3_DEFAULTS, parseBucketConfig, type S3Config } from '../../src/objstore/index.js';
import { parseModelDuration } from '../../src/config/duration.js';
import { sortNames } from '../../src/objstore/names.js';
import { endpointOptions } from '../../src/objstore/s3-client.js';
import { isAmazonHost, regionFromHost, useVirtualHost } from '../../src/objstore/s3-endpoint.js';
import { attemptsFor } from '../../src/objstore/s3-retry.js';
import { splitUserMetadata, uploadPlan } from '../../src/objstore/s3-upload.js';

const MiB = 1024 * 1024;

function cfg(...lines: string[]): S3Config {
  const c = parseBucketConfig(['type: S3', 'config:', '  bucket: blocks', ...lines.map((l) => `  ${l}`)].join('\n'));
  return c.config as S3Config;
}

describe('S3 upload plan (Thanos Upload + minio PutObject)', () => {
  const plan = (size: number, partSize = S3_DEFAULTS.partSize, disableMultipart = false) => uploadPlan(size, { partSize, disableMultipart });

  it('puts what fits in 16 MiB in one PUT when part_size does not apply', () => {
    assert.deepEqual(plan(10 * MiB), { multipart: false });
    assert.deepEqual(plan(16 * MiB), { multipart: false });
  });
  it('uploads between 16 MiB and part_size in 16 MiB parts, as minio without a part size', () => {
    assert.deepEqual(plan(40 * MiB), { multipart: true, partSize: 16 * MiB });
  });
  it('uploads past part_size in parts of part_size', () => {
    assert.deepEqual(plan(64 * MiB), { multipart: false }, 'exactly one part is one PUT');
    assert.deepEqual(plan(200 * MiB), { multipart: true, partSize: 64 * MiB });
    assert.deepEqual(plan(12 * MiB, 5 * MiB), { multipart: true, partSize: 5 * MiB });
    assert.deepEqual(plan(4 * MiB, 5 * MiB), { multipart: false });
  });
  it('chooses a multiple of 16 MiB that needs at most 10,000 parts when part_size is 0', () => {
    assert.deepEqual(plan(17 * MiB, 0), { multipart: true, partSize: 16 * MiB });
    assert.deepEqual(plan(200_000 * MiB, 0), { multipart: true, partSize: 32 * MiB });
  });
  it('refuses an object that needs more than 10,000 parts of part_size', () => {
    assert.throws(() => plan(10_001 * 5 * MiB, 5 * MiB), /more than 10000 parts/);
  });
  it('always puts in one PUT with disable_multipart', () => {
    assert.deepEqual(plan(1024 * MiB, 5 * MiB, true), { multipart: false });
  });
});

describe('S3 endpoint decisions (minio-go s3utils)', () => {
  it('reads the region from Amazon S3 host names', () => {
    assert.equal(regionFromHost('s3.eu-west-1.amazonaws.com'), 'eu-west-1');
    assert.equal(regionFromHost('s3-us-west-2.amazonaws.com'), 'us-west-2');
    assert.equal(regionFromHost('s3.dualstack.ap-south-1.amazonaws.com'), 'ap-south-1');
    assert.equal(regionFromHost('s3-fips.us-gov-west-1.amazonaws.com'), 'us-gov-west-1');
    assert.equal(regionFromHost('s3.cn-north-1.amazonaws.com.cn'), 'cn-north-1');
    assert.equal(regionFromHost('s3.amazonaws.com'), '');
    assert.equal(regionFromHost('minio.internal'), '');
    assert.equal(regionFromHost('127.0.0.1'), '');
  });
  it('knows Amazon S3 hosts', () => {
    assert.equal(isAmazonHost('s3.amazonaws.com'), true);
    assert.equal(isAmazonHost('s3.us-east-1.amazonaws.com'), true);
    assert.equal(isAmazonHost('my-elb-1.elb.amazonaws.com'), false);
    assert.equal(isAmazonHost('rgw.example.com'), false);
  });
  it('goes virtual-hosted for auto only on Amazon, Google and Aliyun hosts, never for a dotted bucket over https', () => {
    assert.equal(useVirtualHost('auto', 's3.eu-west-1.amazonaws.com', 'blocks', true), true);
    assert.equal(useVirtualHost('auto', 'storage.googleapis.com', 'blocks', true), true);
    assert.equal(useVirtualHost('auto', 'oss-cn-hangzhou.aliyuncs.com', 'blocks', true), true);
    assert.equal(useVirtualHost('auto', 's3.eu-west-1.amazonaws.com', 'my.blocks', true), false);
    assert.equal(useVirtualHost('auto', 's3.eu-west-1.amazonaws.com', 'my.blocks', false), true);
    assert.equal(useVirtualHost('auto', '127.0.0.1', 'blocks', false), false);
    assert.equal(useVirtualHost('auto', 'localhost', 'blocks', false), false);
    assert.equal(useVirtualHost('auto', 'ceph.example.com', 'blocks', true), false);
    assert.equal(useVirtualHost('virtual-hosted', 'ceph.example.com', 'blocks', true), true);
    assert.equal(useVirtualHost('path', 's3.amazonaws.com', 'blocks', true), false);
  });
  it('lets the SDK pick the regional (dual-stack) Amazon host, as minio does, and uses any other endpoint as given', () => {
    assert.deepEqual(endpointOptions(cfg('endpoint: s3.eu-west-1.amazonaws.com')), { forcePathStyle: false, useDualstackEndpoint: true });
    assert.deepEqual(endpointOptions(cfg('endpoint: s3.eu-west-1.amazonaws.com', 'disable_dualstack: true')), { forcePathStyle: false, useDualstackEndpoint: false });
    assert.deepEqual(endpointOptions(cfg('endpoint: s3-fips.us-east-1.amazonaws.com')), { endpoint: 'https://s3-fips.us-east-1.amazonaws.com', forcePathStyle: false });
    assert.deepEqual(endpointOptions(cfg('endpoint: ceph.example.com:7480')), { endpoint: 'https://ceph.example.com:7480', forcePathStyle: true });
    assert.deepEqual(endpointOptions(cfg('endpoint: 127.0.0.1:9000', 'insecure: true')), { endpoint: 'http://127.0.0.1:9000', forcePathStyle: true });
    assert.deepEqual(endpointOptions(cfg('endpoint: minio.example.com', 'bucket_lookup_type: virtual-hosted')), { endpoint: 'https://minio.example.com', forcePathStyle: false });
  });
});

describe('S3 request details', () => {
  it('splits put_user_metadata as Thanos and minio do', () => {
    assert.deepEqual(splitUserMetadata({ team: 'obs', 'X-Amz-Meta-Src': 'strata', 'x-amz-storage-class': 'GLACIER_IR', 'X-Amz-Acl': 'private', 'x-amz-grant-read': 'id=1' }), {
      metadata: { team: 'obs', Src: 'strata' },
      headers: { 'x-amz-acl': 'private', 'x-amz-grant-read': 'id=1' },
      storageClass: 'GLACIER_IR',
    });
  });
  it('makes max_retries attempts in all, 10 when 0 or less', () => {
    assert.equal(attemptsFor(0), 10);
    assert.equal(attemptsFor(-1), 10);
    assert.equal(attemptsFor(3), 3);
  });
});

describe('Prometheus durations', () => {
  it('parses what model.ParseDuration parses', () => {
    assert.equal(parseModelDuration('1y2w3d4h5m6s7ms'), ((((365 + 14 + 3) * 24 + 4) * 60 + 5) * 60 + 6) * 1000 + 7);
    assert.equal(parseModelDuration('0'), 0);
    assert.equal(parseModelDuration('0s'), 0);
    for (const bad of ['', '1', '1.5s', '1h1h', '5m1h', '10us', ' 1s', '1S']) assert.equal(parseModelDuration(bad), undefined, bad);
  });
});

describe('object name order', () => {
  it('sorts in UTF-8 byte order, not UTF-16', () => {
    assert.deepEqual(sortNames(['\u{1F680}', '\uFF21', 'a/', 'a.txt', 'Z']), ['Z', 'a.txt', 'a/', '\uFF21', '\u{1F680}']);
  });
});
