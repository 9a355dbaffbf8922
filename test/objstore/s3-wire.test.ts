import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openBucket, parseBucketConfig } from '../../src/objstore/index.js';
import { fakeS3 } from './fake-s3.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const MiB = 1024 * 1024;
const TLS = fileURLToPath(new URL('./testdata/tls/', import.meta.url));

/** Answers as a minimal S3 would: multipart calls, HEAD, GET, PUT. */
function s3Like(req: IncomingMessage, _body: Buffer, _n: number, res: ServerResponse): void {
  const url = new URL(req.url!, 'http://x');
  if (req.method === 'POST' && url.searchParams.has('uploads')) {
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end('<?xml version="1.0" encoding="UTF-8"?><InitiateMultipartUploadResult><Bucket>fake</Bucket><Key>k</Key><UploadId>up-1</UploadId></InitiateMultipartUploadResult>');
  } else if (req.method === 'POST' && url.searchParams.has('uploadId')) {
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end('<?xml version="1.0" encoding="UTF-8"?><CompleteMultipartUploadResult><Bucket>fake</Bucket><Key>k</Key><ETag>"all"</ETag></CompleteMultipartUploadResult>');
  } else if (req.method === 'GET' && url.searchParams.has('location')) {
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end('<?xml version="1.0" encoding="UTF-8"?><LocationConstraint xmlns="http://s3.amazonaws.com/doc/2006-03-01/">eu-central-1</LocationConstraint>');
  } else if (req.method === 'GET') {
    res.writeHead(200, { 'content-length': '2' });
    res.end('ok');
  } else {
    res.writeHead(200, { etag: `"${url.searchParams.get('partNumber') ?? 'one'}"`, 'content-length': '0' });
    res.end();
  }
}

async function tempFile(t: TestContext, bytes: Uint8Array): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'strata-s3-wire-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'f'), bytes);
  return join(dir, 'f');
}

const md5 = (b: Uint8Array) => createHash('md5').update(b).digest('base64');

describe('S3 requests on the wire', () => {
  it('sends put_user_metadata on every upload: x-amz-meta-*, the storage class, x-amz-acl as written', async (t) => {
    const fake = await fakeS3(s3Like);
    t.after(fake.close);
    const bucket = await fake.open(['put_user_metadata:', '  team: obs', '  X-Amz-Meta-Source: strata', '  X-Amz-Storage-Class: STANDARD_IA', '  X-Amz-Acl: private']);
    t.after(() => bucket.close());
    await bucket.upload('a', Buffer.from('x'));
    await bucket.uploadFile('b', await tempFile(t, Buffer.from('file')));
    for (const r of fake.requests) {
      assert.equal(r.headers['x-amz-meta-team'], 'obs');
      assert.equal(r.headers['x-amz-meta-source'], 'strata');
      assert.equal(r.headers['x-amz-storage-class'], 'STANDARD_IA');
      assert.equal(r.headers['x-amz-acl'], 'private');
      assert.equal(r.headers['x-amz-meta-x-amz-storage-class'], undefined);
    }
  });

  it('sends Content-MD5 as minio with send_content_md5, no checksum trailers and no Expect header', async (t) => {
    const fake = await fakeS3(s3Like);
    t.after(fake.close);
    const bucket = await fake.open([]);
    t.after(() => bucket.close());
    const bytes = randomBytes(3 * MiB);
    await bucket.upload('a', bytes);
    await bucket.uploadFile('b', await tempFile(t, bytes));
    assert.equal(fake.requests.length, 2);
    for (const r of fake.requests) {
      assert.equal(r.headers['content-md5'], md5(bytes));
      assert.equal(r.headers.expect, undefined);
      assert.equal(r.headers['content-encoding'], undefined);
      assert.deepEqual(Object.keys(r.headers).filter((h) => h.startsWith('x-amz-checksum') || h === 'x-amz-trailer'), []);
      assert.equal(r.url.split('?')[0], `/fake/${r === fake.requests[0] ? 'a' : 'b'}`, 'path style for a non-AWS endpoint');
      assert.match(String(r.headers['user-agent']), /strata/);
    }
  });

  it('sends no Content-MD5 with send_content_md5: false', async (t) => {
    const fake = await fakeS3(s3Like);
    t.after(fake.close);
    const bucket = await fake.open(['send_content_md5: false']);
    t.after(() => bucket.close());
    await bucket.upload('a', Buffer.from('x'));
    await bucket.uploadFile('b', await tempFile(t, Buffer.from('y')));
    for (const r of fake.requests) assert.equal(r.headers['content-md5'], undefined);
  });

  it('uploads a file past part_size in parts of part_size, each with its Content-MD5 and its signed SHA-256', async (t) => {
    const fake = await fakeS3(s3Like);
    t.after(fake.close);
    const bucket = await fake.open(['part_size: 5242880']);
    t.after(() => bucket.close());
    const bytes = randomBytes(12 * MiB);
    await bucket.uploadFile('big', await tempFile(t, bytes));
    const parts = fake.requests.filter((r) => r.method === 'PUT').sort((a, b) => a.url.localeCompare(b.url));
    assert.deepEqual(parts.map((p) => p.bytes), [5 * MiB, 5 * MiB, 2 * MiB]);
    const pieces = [bytes.subarray(0, 5 * MiB), bytes.subarray(5 * MiB, 10 * MiB), bytes.subarray(10 * MiB)];
    assert.deepEqual(parts.map((p) => p.headers['content-md5']), pieces.map(md5));
    // Over plain HTTP the payload is signed (minio: its streaming signature), hashed off the main thread.
    assert.deepEqual(parts.map((p) => p.headers['x-amz-content-sha256']), pieces.map((b) => createHash('sha256').update(b).digest('hex')));
    assert.equal(fake.requests.filter((r) => r.method === 'POST').length, 2, 'create and complete');
  });

  it('aborts a multipart upload whose part is refused; the next file after it goes up whole, each part with its own MD5', async (t) => {
    const fake = await fakeS3((req, body, n, res) => {
      const url = new URL(req.url!, 'http://x');
      if (req.method === 'PUT' && url.searchParams.get('partNumber') === '2' && url.pathname.endsWith('/bad')) {
        res.writeHead(400, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidDigest</Code><Message>no</Message></Error>');
        return;
      }
      if (req.method === 'DELETE') {
        res.writeHead(204);
        res.end();
        return;
      }
      s3Like(req, body, n, res);
    });
    t.after(fake.close);
    const bucket = await fake.open(['part_size: 5242880']);
    t.after(() => bucket.close());
    await assert.rejects(bucket.uploadFile('bad', await tempFile(t, randomBytes(12 * MiB))), /InvalidDigest/);
    assert.equal(fake.requests.filter((r) => r.method === 'DELETE' && r.url.includes('uploadId=up-1')).length, 1, 'AbortMultipartUpload');
    assert.equal(fake.requests.some((r) => r.method === 'POST' && r.url.includes('uploadId=')), false, 'no CompleteMultipartUpload');
    const bytes = randomBytes(11 * MiB);
    await bucket.uploadFile('good', await tempFile(t, bytes));
    const parts = fake.requests.filter((r) => r.method === 'PUT' && r.url.includes('/good?')).sort((a, b) => a.url.localeCompare(b.url));
    assert.deepEqual(parts.map((p) => p.headers['content-md5']), [md5(bytes.subarray(0, 5 * MiB)), md5(bytes.subarray(5 * MiB, 10 * MiB)), md5(bytes.subarray(10 * MiB))]);
  });

  it('uploads in one PUT with disable_multipart', async (t) => {
    const fake = await fakeS3(s3Like);
    t.after(fake.close);
    const bucket = await fake.open(['part_size: 5242880', 'disable_multipart: true']);
    t.after(() => bucket.close());
    await bucket.uploadFile('big', await tempFile(t, randomBytes(12 * MiB)));
    assert.deepEqual(fake.requests.map((r) => [r.method, r.bytes]), [['PUT', 12 * MiB]]);
  });

  it('sends SSE-S3 and SSE-KMS headers on writes only', async (t) => {
    for (const [sse, want] of [
      [['  type: SSE-S3'], { 'x-amz-server-side-encryption': 'AES256' }],
      [['  type: SSE-KMS', '  kms_key_id: key-1'], { 'x-amz-server-side-encryption': 'aws:kms', 'x-amz-server-side-encryption-aws-kms-key-id': 'key-1', 'x-amz-server-side-encryption-context': 'e30=' }],
      [['  type: SSE-KMS', '  kms_key_id: key-1', '  kms_encryption_context:', '    app: strata'], { 'x-amz-server-side-encryption-context': Buffer.from('{"app":"strata"}').toString('base64') }],
    ] as const) {
      const fake = await fakeS3(s3Like);
      t.after(fake.close);
      const bucket = await fake.open(['sse_config:', ...sse]);
      t.after(() => bucket.close());
      await bucket.upload('a', Buffer.from('x'));
      await bucket.get('a');
      const [put, get] = fake.requests;
      for (const [h, v] of Object.entries(want)) assert.equal(put!.headers[h], v, h);
      assert.equal(get!.headers['x-amz-server-side-encryption'], undefined);
    }
  });

  it('sends the SSE-C key on writes, parts and reads', async (t) => {
    const key = randomBytes(32);
    const keyFile = await tempFile(t, key);
    const fake = await fakeS3(s3Like);
    t.after(fake.close);
    const bucket = await fake.open(['part_size: 5242880', 'sse_config:', '  type: SSE-C', `  encryption_key: ${keyFile}`]);
    t.after(() => bucket.close());
    await bucket.upload('a', Buffer.from('x'));
    await bucket.get('a');
    await bucket.exists('a');
    await bucket.uploadFile('big', await tempFile(t, randomBytes(11 * MiB)));
    for (const r of fake.requests.filter((r) => !(r.method === 'POST' && r.url.includes('uploadId=')))) {
      assert.equal(r.headers['x-amz-server-side-encryption-customer-algorithm'], 'AES256', `${r.method} ${r.url}`);
      assert.equal(r.headers['x-amz-server-side-encryption-customer-key'], key.toString('base64'));
      assert.equal(r.headers['x-amz-server-side-encryption-customer-key-md5'], md5(key));
    }
  });

  it('asks the store for the bucket region when none is configured, as minio, and signs for it', async (t) => {
    const fake = await fakeS3(s3Like);
    t.after(fake.close);
    const bucket = await openBucket(parseBucketConfig([
      'type: S3', 'config:', '  bucket: fake', `  endpoint: ${fake.endpoint}`, '  access_key: k', '  secret_key: s', '  insecure: true',
    ].join('\n')));
    t.after(() => bucket.close());
    await bucket.get('a');
    await bucket.get('b');
    assert.deepEqual(fake.requests.map((r) => r.url.replace(/\?x-id=\w+$/, '')), ['/fake/?location=', '/fake/a', '/fake/b']);
    assert.match(String(fake.requests[0]!.headers.authorization), /\/us-east-1\/s3\/aws4_request/);
    assert.match(String(fake.requests[1]!.headers.authorization), /\/eu-central-1\/s3\/aws4_request/);
  });

  it('logs each request and answer with trace.enable, credentials left out', async (t) => {
    const fake = await fakeS3(s3Like);
    t.after(fake.close);
    const lines: { obj: Record<string, unknown>; msg: string }[] = [];
    const log = { debug: (obj: object, msg: string) => void lines.push({ obj: obj as Record<string, unknown>, msg }), info() {}, warn() {} };
    const bucket = await fake.open(['session_token: secret-token', 'trace:', '  enable: true'], log);
    t.after(() => bucket.close());
    await bucket.get('a');
    assert.deepEqual(lines.map((l) => l.msg), ['s3 request', 's3 response']);
    const headers = lines[0]!.obj.headers as Record<string, string>;
    assert.equal(headers.authorization, '<redacted>');
    assert.equal(headers['x-amz-security-token'], '<redacted>');
    assert.doesNotMatch(JSON.stringify(lines), /secret-token/);
  });
});

describe('S3 over TLS', () => {
  async function httpsFake(t: TestContext, opts: { requestCert?: boolean } = {}) {
    const [cert, key, ca] = await Promise.all(['server.pem', 'server-key.pem', 'ca.pem'].map((f) => readFile(join(TLS, f))));
    const seen: string[] = [];
    const requests: { method: string; url: string; headers: IncomingMessage['headers']; body: Buffer[] }[] = [];
    const server = createHttpsServer({ cert, key, ca, requestCert: opts.requestCert === true, rejectUnauthorized: opts.requestCert === true }, (req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const body: Buffer[] = [];
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      req.on('data', (c: Buffer) => body.push(c));
      req.on('end', () => s3Like(req, Buffer.alloc(0), requests.length, res));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.after(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
    return { endpoint: `127.0.0.1:${(server.address() as AddressInfo).port}`, seen, requests };
  }

  const open = (endpoint: string, ...lines: string[]) => openBucket(parseBucketConfig([
    'type: S3', 'config:', '  bucket: fake', `  endpoint: ${endpoint}`, '  access_key: k', '  secret_key: s', '  region: us-east-1', '  max_retries: 1', ...lines.map((l) => `  ${l}`),
  ].join('\n')));

  it('verifies the server against tls_config.ca_file and server_name', async (t) => {
    const s = await httpsFake(t);
    const bucket = await open(s.endpoint, 'http_config:', '  tls_config:', `    ca_file: ${join(TLS, 'ca.pem')}`, '    server_name: strata-s3.test');
    t.after(() => bucket.close());
    assert.equal((await bucket.get('a')).toString(), 'ok');
  });

  it('sends the payload unsigned, as minio over TLS, with Content-MD5 still', async (t) => {
    const s = await httpsFake(t);
    const bucket = await open(s.endpoint, 'part_size: 5242880', 'http_config:', '  tls_config:', `    ca_file: ${join(TLS, 'ca.pem')}`, '    server_name: strata-s3.test');
    t.after(() => bucket.close());
    await bucket.uploadFile('small', await tempFile(t, randomBytes(1000)));
    await bucket.upload('mem', randomBytes(6 * MiB));
    const puts = s.requests.filter((r) => r.method === 'PUT');
    assert.equal(puts.length, 3, 'one PUT and two parts');
    for (const r of puts) {
      assert.equal(r.headers['x-amz-content-sha256'], 'UNSIGNED-PAYLOAD', r.url);
      assert.match(String(r.headers['content-md5']), /^[A-Za-z0-9+/]{22}==$/);
    }
  });

  it('uploads a file in parts without the hasher (send_content_md5: false over TLS): no Content-MD5, unsigned, the file\'s bytes', async (t) => {
    const s = await httpsFake(t);
    const bucket = await open(s.endpoint, 'part_size: 5242880', 'send_content_md5: false', 'http_config:', '  tls_config:', `    ca_file: ${join(TLS, 'ca.pem')}`, '    server_name: strata-s3.test');
    t.after(() => bucket.close());
    const bytes = randomBytes(12 * MiB);
    const path = await tempFile(t, bytes);
    // Twice: the second upload takes the part buffers the first gave back.
    for (const key of ['one', 'two']) {
      await bucket.uploadFile(key, path);
      const parts = s.requests.filter((r) => r.method === 'PUT' && r.url.includes(`/${key}?`)).sort((a, b) => a.url.localeCompare(b.url));
      assert.equal(parts.length, 3);
      for (const r of parts) {
        assert.equal(r.headers['content-md5'], undefined);
        assert.equal(r.headers['x-amz-content-sha256'], 'UNSIGNED-PAYLOAD');
      }
      assert.deepEqual(Buffer.concat(parts.flatMap((p) => p.body)), bytes, key);
    }
  });

  it('refuses a server its CAs do not vouch for, and for the wrong name', async (t) => {
    const s = await httpsFake(t);
    const untrusted = await open(s.endpoint);
    t.after(() => untrusted.close());
    await assert.rejects(untrusted.get('a'), /certificate/i);
    const wrongName = await open(s.endpoint, 'http_config:', '  tls_config:', `    ca_file: ${join(TLS, 'ca.pem')}`, '    server_name: other.test');
    t.after(() => wrongName.close());
    await assert.rejects(wrongName.get('a'), /other\.test|altnames|Hostname/i);
    assert.deepEqual(s.seen, []);
  });

  it('skips verification with http_config.insecure_skip_verify only, as Thanos', async (t) => {
    const s = await httpsFake(t);
    const skip = await open(s.endpoint, 'http_config:', '  insecure_skip_verify: true');
    t.after(() => skip.close());
    assert.equal((await skip.get('a')).toString(), 'ok');
    const tlsOnly = await open(s.endpoint, 'http_config:', '  tls_config:', '    insecure_skip_verify: true');
    t.after(() => tlsOnly.close());
    await assert.rejects(tlsOnly.get('a'), /certificate/i);
  });

  it('presents tls_config.cert_file and key_file to a server that asks', async (t) => {
    const s = await httpsFake(t, { requestCert: true });
    const ca = `    ca_file: ${join(TLS, 'ca.pem')}`;
    const withCert = await open(s.endpoint, 'http_config:', '  tls_config:', ca, `    cert_file: ${join(TLS, 'server.pem')}`, `    key_file: ${join(TLS, 'server-key.pem')}`);
    t.after(() => withCert.close());
    assert.equal((await withCert.get('a')).toString(), 'ok');
    const without = await open(s.endpoint, 'http_config:', '  tls_config:', ca);
    t.after(() => without.close());
    await assert.rejects(without.get('a'));
  });

  it('gives up on a TLS handshake that does not finish in tls_handshake_timeout', async (t) => {
    const sockets: Socket[] = [];
    const silent = createTcpServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    t.after(() => new Promise<void>((r) => { for (const s of sockets) s.destroy(); silent.close(() => r()); }));
    const bucket = await open(`127.0.0.1:${(silent.address() as AddressInfo).port}`, 'http_config:', '  tls_handshake_timeout: 500ms', '  response_header_timeout: 1m');
    t.after(() => bucket.close());
    const t0 = Date.now();
    await assert.rejects(bucket.get('a'), /TLS handshake timeout after 500 ms/);
    assert.ok(Date.now() - t0 < 3_000, `took ${Date.now() - t0} ms`);
  });
});
