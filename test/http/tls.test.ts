// HTTPS: --http-server-tls-cert and -key serve HTTP over TLS (uWebSockets.js'
// own SSL app); --http-server-tls-client-ca adds mutual TLS (a client must
// present a certificate signed by that CA: Node's TLS in front of the app,
// since uWebSockets.js cannot require one). Everything HTTP serves works
// unchanged over TLS. Certificates are made with `openssl` in a temporary
// directory; without openssl these tests are skipped.
// Rules: issue 16 "TLS on HTTP".
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { compressSync } from 'snappy';
import { haveOpenssl, makeCerts, type Certs } from '../store/support/certs.js';
import { httpsCall, type TlsClient } from './support/https-client.js';
import { bitsOf, decodeReadResponse, readRequestBody, writeRequestBytes, ReadRequest_ResponseType } from './prometheus/support/prom-wire.js';
import { removeTempDirs, serve, stopAll, type Served } from './prometheus/support/serve.js';
import { removeDir, tempDir } from './support/strata-process.js';

const skip = haveOpenssl() ? false : 'no `openssl` command on this machine to make test certificates';
const bin = new URL('../../bin/strata.js', import.meta.url).pathname;

let certs: Certs;
let certDir: string;
let tls: Served;
let mtls: Served;

const portOf = (s: Served): number => Number(new URL(s.base).port);
const trusting = (): TlsClient => ({ ca: certs.read(certs.caCert) });
const withCert = (): TlsClient => ({ ...trusting(), cert: certs.read(certs.clientCert), key: certs.read(certs.clientKey) });
const stranger = (): TlsClient => ({ ...trusting(), cert: certs.read(certs.strangerCert), key: certs.read(certs.strangerKey) });

/** Everything a client does over HTTP, over HTTPS: probes, /metrics, a JSON resource, remote write and read. */
async function servesEverything(port: number, client: TlsClient): Promise<void> {
  const ready = await httpsCall(port, 'GET', '/-/ready', client);
  assert.equal(ready.status, 200, ready.text);
  assert.equal((await httpsCall(port, 'GET', '/-/healthy', client)).status, 200);
  const metrics = await httpsCall(port, 'GET', '/metrics', client);
  assert.equal(metrics.status, 200);
  assert.match(metrics.text, /^strata_/m);

  const created = await httpsCall(port, 'POST', '/api/v1/tasks', client, { body: JSON.stringify({ title: 'over TLS' }), headers: { 'content-type': 'application/json' } });
  assert.equal(created.status, 201, created.text);
  const id = (JSON.parse(created.text) as { id: string }).id;
  const got = await httpsCall(port, 'GET', `/api/v1/tasks/${id}`, client);
  assert.equal(got.status, 200, got.text);
  assert.equal((JSON.parse(got.text) as { title: string }).title, 'over TLS');

  const t = Date.now();
  const write = await httpsCall(port, 'POST', '/api/v1/write', client, {
    body: compressSync(writeRequestBytes([{ labels: [['__name__', 'tls_test'], ['job', 'tls']], samples: [{ t, bits: bitsOf(42) }] }])),
    headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' },
  });
  assert.equal(write.status, 204, write.text);
  const read = await httpsCall(port, 'POST', '/api/v1/read', client, {
    body: readRequestBody([{ matchers: [[0, '__name__', 'tls_test']], start: t - 1000, end: t + 1000 }], [ReadRequest_ResponseType.SAMPLES]),
    headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-read-version': '0.1.0' },
  });
  assert.equal(read.status, 200, read.text);
  const series = decodeReadResponse(read.body)[0]!;
  assert.deepEqual(series.map((s) => s.samples), [[{ t, bits: bitsOf(42) }]]);

  const labels = await httpsCall(port, 'GET', '/api/v1/label/job/values', client);
  assert.equal(labels.status, 200, labels.text);
  assert.deepEqual((JSON.parse(labels.text) as { data: string[] }).data, ['tls']);
}

/** Rejects (with the client's error) when the handshake or the request fails. */
async function refused(port: number, client: TlsClient): Promise<string> {
  try {
    const a = await httpsCall(port, 'GET', '/-/ready', client);
    return `answered ${a.status}`;
  } catch (err) {
    return `refused: ${(err as Error).message}`;
  }
}

describe('HTTPS', { skip }, () => {
  before(async () => {
    certDir = tempDir('strata-certs-');
    certs = makeCerts(certDir);
    const serverFlags = ['--http-server-tls-cert', certs.serverCert, '--http-server-tls-key', certs.serverKey];
    [tls, mtls] = await Promise.all([
      serve({ args: serverFlags }),
      serve({ args: [...serverFlags, '--http-server-tls-client-ca', certs.caCert] }),
    ]);
  });

  after(async () => {
    const codes = await Promise.all([tls?.stop(), mtls?.stop()]);
    await stopAll();
    removeTempDirs();
    removeDir(certDir);
    assert.deepEqual(codes, [0, 0], 'both servers stop gracefully');
  });

  test('serves probes, /metrics, a JSON resource, remote write and read over TLS', async () => {
    await servesEverything(portOf(tls), trusting());
  });

  test('a plain HTTP request to the TLS port gets no HTTP answer', async () => {
    for (const s of [tls, mtls]) {
      const answer = await fetch(`http://127.0.0.1:${portOf(s)}/-/ready`, { signal: AbortSignal.timeout(5000) }).then((r) => `answered ${r.status}`, (err: Error) => `failed: ${err.message}`);
      assert.match(answer, /^failed/, `plain HTTP on ${s.base}`);
    }
  });

  test('with a client CA, a client without a certificate is refused', async () => {
    assert.match(await refused(portOf(mtls), trusting()), /^refused/);
  });

  test('with a client CA, a client certificate from another CA is refused', async () => {
    assert.match(await refused(portOf(mtls), stranger()), /^refused/);
  });

  test('with a client CA, a client certificate signed by that CA is served everything', async () => {
    await servesEverything(portOf(mtls), withCert());
  });

  test('without a client CA, client certificates are not asked for: any client is served', async () => {
    const a = await httpsCall(portOf(tls), 'GET', '/-/ready', stranger());
    assert.equal(a.status, 200);
  });
});

/** `strata serve` with `flags`, expected to fail at once: its exit status and stderr. */
function failingServe(flags: string[]): { status: number | null; stderr: string } {
  const dataDir = join(certDir, 'data');
  const r = spawnSync(process.execPath, [bin, 'serve', '--data-dir', dataDir, '--http-address', '127.0.0.1:0', '--grpc-address', '127.0.0.1:0', '--workers', '1', '--log.format=json', ...flags], {
    encoding: 'utf8', timeout: 30_000,
  });
  return { status: r.status, stderr: r.stderr };
}

describe('HTTPS flag errors', { skip }, () => {
  let junk: string;
  before(() => {
    certDir = tempDir('strata-certs-');
    certs = makeCerts(certDir);
    junk = join(certDir, 'junk.pem');
    writeFileSync(junk, 'not a certificate\n');
  });
  after(() => removeDir(certDir));

  const usage: Array<[string, () => string[], RegExp]> = [
    ['a certificate without a key', () => ['--http-server-tls-cert', certs.serverCert], /--http-server-tls-cert and --http-server-tls-key go together/],
    ['a key without a certificate', () => ['--http-server-tls-key', certs.serverKey], /--http-server-tls-cert and --http-server-tls-key go together/],
    ['a client CA alone', () => ['--http-server-tls-client-ca', certs.caCert], /--http-server-tls-client-ca: needs --http-server-tls-cert and --http-server-tls-key/],
    ['a missing file', () => ['--http-server-tls-cert', join(certDir, 'nope.crt'), '--http-server-tls-key', certs.serverKey], /--http-server-tls-cert: '.*nope\.crt' does not exist/],
    ['a missing client CA', () => ['--http-server-tls-cert', certs.serverCert, '--http-server-tls-key', certs.serverKey, '--http-server-tls-client-ca', join(certDir, 'nope-ca.crt')], /--http-server-tls-client-ca: '.*nope-ca\.crt' does not exist/],
  ];
  for (const [what, flags, message] of usage) {
    test(`exits 2 with one line naming the flag: ${what}`, () => {
      const r = failingServe(flags());
      assert.equal(r.status, 2, r.stderr);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, message);
    });
  }

  const startup: Array<[string, () => string[], () => RegExp]> = [
    ['a certificate file that is not a certificate', () => ['--http-server-tls-cert', junk, '--http-server-tls-key', certs.serverKey], () => /certificate file '.*junk\.pem' is not a PEM certificate/],
    ['a key file that is not a key', () => ['--http-server-tls-cert', certs.serverCert, '--http-server-tls-key', junk], () => /key file '.*junk\.pem' is not an unencrypted PEM private key/],
    ['a key that belongs to another certificate', () => ['--http-server-tls-cert', certs.serverCert, '--http-server-tls-key', certs.clientKey], () => /key in '.*client\.key' does not belong to the certificate in '.*server\.crt'/],
    ['a client CA file that is not a certificate', () => ['--http-server-tls-cert', certs.serverCert, '--http-server-tls-key', certs.serverKey, '--http-server-tls-client-ca', junk], () => /client CA file '.*junk\.pem' is not a PEM certificate/],
  ];
  for (const [what, flags, message] of startup) {
    test(`start-up fails with one line naming the file: ${what}`, () => {
      const r = failingServe(flags());
      assert.equal(r.status, 1, r.stderr);
      // One error line in the logger's format, no stack: the cause, named.
      assert.doesNotMatch(r.stderr, /\n\s+at /);
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level === 'error');
      assert.equal(errors.length, 1, r.stderr);
      assert.match(errors[0]!.msg, /^start-up failed: /);
      assert.match(errors[0]!.msg, message());
    });
  }
});
