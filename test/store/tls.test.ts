// Optional TLS on the gRPC listener: --grpc-server-tls-cert and -key serve
// TLS; --grpc-server-tls-client-ca adds mutual TLS (a client must present
// a certificate signed by that CA). Certificates are made with `openssl`
// in a temporary directory; without openssl these tests are skipped.
// Rules: issue 4 "Optional TLS".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { StoreClient, grpc } from './support/client.js';
import { codeName } from './support/calls.js';
import { haveOpenssl, makeCerts, type Certs } from './support/certs.js';
import { removeTempDirs, startStrata, stopAll, tempDir, type StrataGrpc } from './support/strata-grpc.js';

const skip = haveOpenssl() ? false : 'no `openssl` command on this machine to make test certificates';

let certs: Certs;
let tls: StrataGrpc;
let mtls: StrataGrpc;
const clients: StoreClient[] = [];

function clientOf(address: string, credentials: grpc.ChannelCredentials): StoreClient {
  // The certificate names 127.0.0.1 and localhost; naming the host avoids Node's warning about IP server names.
  const c = new StoreClient(address, { credentials, channelOptions: { 'grpc.ssl_target_name_override': 'localhost' } });
  clients.push(c);
  return c;
}

/** Info through a client; its status code (0 when answered). */
async function infoCode(c: StoreClient): Promise<{ code: number; details: string }> {
  const a = await c.info();
  return { code: a.code, details: a.details };
}

describe('TLS', { skip }, () => {
  before(async () => {
    certs = makeCerts(tempDir('strata-certs-'));
    const serverFlags = ['--grpc-server-tls-cert', certs.serverCert, '--grpc-server-tls-key', certs.serverKey];
    [tls, mtls] = await Promise.all([
      startStrata({ args: serverFlags }),
      startStrata({ args: [...serverFlags, '--grpc-server-tls-client-ca', certs.caCert] }),
    ]);
  });

  after(async () => {
    for (const c of clients) c.close();
    await stopAll();
    removeTempDirs();
  });

  test('a client trusting the CA is served over TLS', async () => {
    const r = await infoCode(clientOf(tls.grpcAddress, grpc.credentials.createSsl(certs.read(certs.caCert))));
    assert.equal(r.code, grpc.status.OK, `${codeName(r.code)}: ${r.details}`);
  });

  test('a plaintext client is not served on the TLS port', async () => {
    const r = await infoCode(clientOf(tls.grpcAddress, grpc.credentials.createInsecure()));
    assert.notEqual(r.code, grpc.status.OK);
  });

  test('with a client CA, a client without a certificate is refused', async () => {
    const r = await infoCode(clientOf(mtls.grpcAddress, grpc.credentials.createSsl(certs.read(certs.caCert))));
    assert.notEqual(r.code, grpc.status.OK, 'served a client that presented no certificate');
  });

  test('with a client CA, a client certificate signed by that CA is served', async () => {
    const creds = grpc.credentials.createSsl(certs.read(certs.caCert), certs.read(certs.clientKey), certs.read(certs.clientCert));
    const r = await infoCode(clientOf(mtls.grpcAddress, creds));
    assert.equal(r.code, grpc.status.OK, `${codeName(r.code)}: ${r.details}`);
  });

  test('with a client CA, a client certificate from another CA is refused', async () => {
    const creds = grpc.credentials.createSsl(certs.read(certs.caCert), certs.read(certs.strangerKey), certs.read(certs.strangerCert));
    const r = await infoCode(clientOf(mtls.grpcAddress, creds));
    assert.notEqual(r.code, grpc.status.OK, 'served a client whose certificate another CA signed');
  });
});
