import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isNotFound, openBucket, parseBucketConfig, type Bucket } from '../../src/objstore/index.js';
import { fakeS3, s3Yaml, unavailable } from './fake-s3.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

describe('S3 bucket retries and timeouts', () => {
  it('retries an upload after transient 503s and succeeds', async (t) => {
    const fake = await fakeS3((_req, _body, n, res) => (n <= 2 ? unavailable(res) : (res.writeHead(200, { etag: '"x"' }), res.end())));
    t.after(fake.close);
    const bucket = await fake.open(['max_retries: 5']);
    t.after(() => bucket.close());
    await bucket.upload('obj', Buffer.from('hello'));
    assert.equal(fake.requests.length, 3);
    assert.ok(fake.requests.every((r) => r.method === 'PUT' && r.bytes === 5));
  });

  it('retries a streamed file upload by sending the whole file again', async (t) => {
    const fake = await fakeS3((_req, _body, n, res) => (n <= 2 ? unavailable(res) : (res.writeHead(200, { etag: '"x"' }), res.end())));
    t.after(fake.close);
    const dir = await mkdtemp(join(tmpdir(), 'strata-s3-retry-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    await writeFile(join(dir, 'f'), randomBytes(300_000));
    const bucket = await fake.open(['max_retries: 5']);
    t.after(() => bucket.close());
    await bucket.uploadFile('obj', join(dir, 'f'));
    assert.deepEqual(fake.requests.map((r) => r.bytes), [300_000, 300_000, 300_000]);
  });

  it('retries a get after a 500 and gives up after max_retries attempts', async (t) => {
    let failures = 1;
    const fake = await fakeS3((_req, _body, _n, res) => {
      if (failures-- > 0) {
        res.writeHead(500);
        res.end();
      } else {
        res.writeHead(200, { 'content-length': '2' });
        res.end('ok');
      }
    });
    t.after(fake.close);
    const bucket = await fake.open(['max_retries: 3']);
    t.after(() => bucket.close());
    assert.equal((await bucket.get('obj')).toString(), 'ok');
    assert.equal(fake.requests.length, 2);
    failures = 100;
    fake.requests.length = 0;
    await assert.rejects(bucket.get('obj'), /HTTP 500/);
    assert.equal(fake.requests.length, 3, 'max_retries is attempts in all, as minio');
  });

  it('does not retry a 404: a missing object is ObjectNotFoundError at once', async (t) => {
    const fake = await fakeS3((_req, _body, _n, res) => {
      res.writeHead(404, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>no</Message></Error>');
    });
    t.after(fake.close);
    const bucket = await fake.open([]);
    t.after(() => bucket.close());
    await assert.rejects(bucket.get('obj'), (err: unknown) => isNotFound(err));
    assert.equal(fake.requests.length, 1);
  });

  it('fails fast, after its retries, when nothing listens at the endpoint', async () => {
    const probe = createTcpServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const bucket = await openBucket(parseBucketConfig(s3Yaml({ endpoint: `127.0.0.1:${port}`, accessKey: 'k', secretKey: 's' }, 'b', ['region: us-east-1', 'max_retries: 3'])));
    const t0 = Date.now();
    await assert.rejects(bucket.get('obj'), /ECONNREFUSED/);
    assert.ok(Date.now() - t0 < 5_000, `took ${Date.now() - t0} ms`);
    await bucket.close();
  });

  it('gives up on a server that accepts but never answers after response_header_timeout', async (t) => {
    const sockets: Socket[] = [];
    const silent = createTcpServer((sock) => sockets.push(sock));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    t.after(() => new Promise<void>((r) => { for (const s of sockets) s.destroy(); silent.close(() => r()); }));
    const endpoint = `127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const bucket: Bucket = await openBucket(parseBucketConfig(s3Yaml({ endpoint, accessKey: 'k', secretKey: 's' }, 'b', ['region: us-east-1', 'max_retries: 2', 'http_config:', '  response_header_timeout: 1s'])));
    t.after(() => bucket.close());
    const t0 = Date.now();
    await assert.rejects(bucket.get('obj'));
    const took = Date.now() - t0;
    assert.ok(took >= 1_900 && took < 8_000, `took ${took} ms`);
    assert.equal(sockets.length, 2, 'two attempts');
  });
});
