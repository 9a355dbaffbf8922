// TLS in `strata bench`: store-api with Thanos Query's --grpc-client-tls-*
// flags and remote-write with --tls-* (Prometheus' tls_config fields),
// against a `strata serve` with TLS on both listeners and one that also
// requires client certificates (built code: `npm run build:ts` first).
// Certificates are made with `openssl` in a temporary directory; without
// openssl these tests are skipped.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { UsageError } from '../../src/config/usage-error.js';
import { parseRemoteWriteArgs, remoteWriteHelp } from '../../src/bench/remote-write/options.js';
import { parseStoreApiArgs, storeApiHelp } from '../../src/bench/store-api/options.js';
import type { RunReport } from '../../src/bench/report/schema.js';
import { haveOpenssl, makeCerts, type Certs } from '../store/support/certs.js';
import { killAll, portOf, spawnServe, type ServeProcess } from '../support/serve-process.js';
import { killBench, readReport, runStrata, type BenchRun } from './support/bench-cli.js';

const skip = haveOpenssl() ? false : 'no `openssl` command on this machine to make test certificates';

let dir: string;
let certs: Certs;

/** A TLS `strata serve`: its HTTPS remote-write URL and its gRPC address. */
interface TlsServer {
  process: ServeProcess;
  writeUrl: string;
  grpc: string;
}

async function serveTls(clientCa: boolean, name: string): Promise<TlsServer> {
  const tls = (listener: string): string[] => [
    `--${listener}-server-tls-cert`, certs.serverCert, `--${listener}-server-tls-key`, certs.serverKey,
    ...(clientCa ? [`--${listener}-server-tls-client-ca`, certs.caCert] : []),
  ];
  const process = spawnServe({ dataDir: join(dir, name), args: [...tls('grpc'), ...tls('http')] });
  const started = await process.line('strata started');
  return { process, writeUrl: `https://127.0.0.1:${portOf(started.httpAddress)}/api/v1/write`, grpc: `127.0.0.1:${portOf(started.grpcAddress)}` };
}

let runs = 0;
/** Runs a short bench with --json; its exit status, output and the one run of the report. */
async function bench(args: string[]): Promise<BenchRun & { run: RunReport }> {
  const json = join(dir, `run-${runs++}.json`);
  const r = await runStrata(['bench', ...args, '--concurrency', '1', '--duration', '2s', '--json', json], 60_000);
  return { ...r, run: readReport(json).runs[0]! };
}

let writes = 0;
/** Two remote-write requests of 100 series, each run a minute after the one before in sample time (the server refuses out-of-order samples). */
const remoteWrite = (url: string, ...tls: string[]): Promise<BenchRun & { run: RunReport }> =>
  bench(['remote-write', '--url', url, '--series', '100', '--samples-per-series', '2', '--series-per-request', '100', '--start', `now-${60 - writes++}m`, ...tls]);

/** Three LabelNames calls. */
const storeApi = (addr: string, ...tls: string[]): Promise<BenchRun & { run: RunReport }> =>
  bench(['store-api', '--addr', addr, '--call', 'label-names', '--requests', '3', ...tls]);

describe('strata bench over TLS', { skip }, () => {
  let tls: TlsServer;
  let mtls: TlsServer;
  const ca = (): string[] => ['--tls-ca', certs.caCert];
  const grpcCa = (): string[] => ['--grpc-client-tls-secure', '--grpc-client-tls-ca', certs.caCert];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-bench-tls-'));
    certs = makeCerts(dir);
    [tls, mtls] = await Promise.all([serveTls(false, 'tls'), serveTls(true, 'mtls')]);
  });
  after(async () => {
    await killBench();
    await Promise.all([tls?.process.stop(), mtls?.process.stop()]);
    await killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  test('remote-write to an https URL succeeds with --tls-ca', async () => {
    const r = await remoteWrite(tls.writeUrl, ...ca());
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.run.answers.ok, 2, JSON.stringify(r.run.answers));
    assert.equal(r.run.load!.samplesWritten, 200);
  });

  test('remote-write without the CA counts every request as a network error naming the untrusted certificate, and exits 1', async () => {
    const r = await remoteWrite(tls.writeUrl);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.run.answers.ok, 0);
    assert.equal(r.run.answers.classes.network, 2, JSON.stringify(r.run.answers));
    assert.deepEqual(Object.keys(r.run.answers.byCode), ['UNABLE_TO_VERIFY_LEAF_SIGNATURE']);
    assert.match(r.stdout, /unable to verify the first certificate/);
  });

  test('remote-write checks the certificate against --tls-server-name', async () => {
    const good = await remoteWrite(tls.writeUrl, ...ca(), '--tls-server-name', 'localhost');
    assert.equal(good.code, 0, good.stderr);
    assert.equal(good.run.answers.ok, 2, JSON.stringify(good.run.answers));
    const wrong = await remoteWrite(tls.writeUrl, ...ca(), '--tls-server-name', 'elsewhere.example');
    assert.equal(wrong.code, 1, wrong.stderr);
    assert.deepEqual(Object.keys(wrong.run.answers.byCode), ['ERR_TLS_CERT_ALTNAME_INVALID']);
  });

  test('remote-write with --tls-insecure-skip-verify succeeds without the CA', async () => {
    const r = await remoteWrite(tls.writeUrl, '--tls-insecure-skip-verify');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.run.answers.ok, 2, JSON.stringify(r.run.answers));
  });

  test('remote-write to a receiver that requires client certificates succeeds with --tls-cert and --tls-key, and fails without', async () => {
    const withCert = await remoteWrite(mtls.writeUrl, ...ca(), '--tls-cert', certs.clientCert, '--tls-key', certs.clientKey);
    assert.equal(withCert.code, 0, withCert.stderr);
    assert.equal(withCert.run.answers.ok, 2, JSON.stringify(withCert.run.answers));
    for (const other of [[], ['--tls-cert', certs.strangerCert, '--tls-key', certs.strangerKey]]) {
      const r = await remoteWrite(mtls.writeUrl, ...ca(), ...other);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.run.answers.ok, 0);
      assert.equal(r.run.answers.classes.network, 2, JSON.stringify(r.run.answers));
    }
  });

  test('remote-write over gRPC (grpcs://) succeeds with --tls-ca, and with a client certificate where one is required; without the CA every call is a network error', async () => {
    const r = await remoteWrite(`grpcs://${tls.grpc}`, ...ca());
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.run.answers.ok, 2, JSON.stringify(r.run.answers));
    assert.equal(r.run.load!.samplesWritten, 200);
    const m = await remoteWrite(`grpcs://${mtls.grpc}`, ...ca(), '--tls-cert', certs.clientCert, '--tls-key', certs.clientKey);
    assert.equal(m.code, 0, m.stderr);
    assert.equal(m.run.answers.ok, 2, JSON.stringify(m.run.answers));
    const untrusted = await remoteWrite(`grpcs://${tls.grpc}`);
    assert.equal(untrusted.code, 1, untrusted.stderr);
    assert.equal(untrusted.run.answers.classes.network, 2, JSON.stringify(untrusted.run.answers));
    assert.deepEqual(Object.keys(untrusted.run.answers.byCode), ['UNABLE_TO_VERIFY_LEAF_SIGNATURE']);
  });

  test('store-api with --grpc-client-tls-secure and the CA succeeds', async () => {
    const r = await storeApi(tls.grpc, ...grpcCa());
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.run.answers.ok, 3, JSON.stringify(r.run.answers));
    assert.ok(r.run.calls!['label-names']!.values > 0, 'names answered');
  });

  test('store-api without the CA, or in plaintext, counts every call as UNAVAILABLE and exits 1', async () => {
    for (const flags of [['--grpc-client-tls-secure'], []]) {
      const r = await storeApi(tls.grpc, ...flags);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.run.answers.ok, 0);
      assert.deepEqual(r.run.answers.byCode, { UNAVAILABLE: 3 }, flags.join(' '));
    }
    const untrusted = await storeApi(tls.grpc, '--grpc-client-tls-secure', '--grpc-client-server-name', 'localhost');
    assert.match(untrusted.stdout, /unable to verify the first certificate/);
  });

  test('store-api checks the certificate against --grpc-client-server-name', async () => {
    const good = await storeApi(tls.grpc, ...grpcCa(), '--grpc-client-server-name', 'localhost');
    assert.equal(good.code, 0, good.stderr);
    assert.doesNotMatch(good.stderr, /DeprecationWarning/, 'a host name, not an IP address, is sent as SNI');
    const wrong = await storeApi(tls.grpc, ...grpcCa(), '--grpc-client-server-name', 'elsewhere.example');
    assert.equal(wrong.code, 1, wrong.stderr);
    assert.deepEqual(wrong.run.answers.byCode, { UNAVAILABLE: 3 });
  });

  test('store-api with --grpc-client-tls-skip-verify succeeds without the CA', async () => {
    const r = await storeApi(tls.grpc, '--grpc-client-tls-secure', '--grpc-client-tls-skip-verify');
    assert.equal(r.code, 0, r.stderr);
  });

  test('store-api to a server that requires client certificates succeeds with --grpc-client-tls-cert and -key, and fails without', async () => {
    const withCert = await storeApi(mtls.grpc, ...grpcCa(), '--grpc-client-tls-cert', certs.clientCert, '--grpc-client-tls-key', certs.clientKey);
    assert.equal(withCert.code, 0, withCert.stderr);
    assert.equal(withCert.run.answers.ok, 3, JSON.stringify(withCert.run.answers));
    for (const other of [[], ['--grpc-client-tls-cert', certs.strangerCert, '--grpc-client-tls-key', certs.strangerKey]]) {
      const r = await storeApi(mtls.grpc, ...grpcCa(), ...other);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.run.answers.ok, 0, JSON.stringify(r.run.answers));
    }
  });
});

describe('strata bench TLS flags', { skip }, () => {
  let flagDir: string;
  let c: Certs;
  const missing = (): string => join(flagDir, 'nope.crt');
  const rw = (...flags: string[]) => () => parseRemoteWriteArgs(['--url', 'https://127.0.0.1:9/api/v1/write', ...flags]);
  const store = (...flags: string[]) => () => parseStoreApiArgs(['--addr', '127.0.0.1:9', ...flags]);
  const usage = (fn: () => unknown, message: RegExp): void => {
    assert.throws(fn, (err: Error) => err instanceof UsageError && message.test(err.message) && !err.message.includes('\n'), message.source);
  };

  before(() => {
    flagDir = mkdtempSync(join(tmpdir(), 'strata-bench-tls-flags-'));
    c = makeCerts(flagDir);
  });
  after(() => rmSync(flagDir, { recursive: true, force: true }));

  test('remote-write reads the TLS files once, at parsing', () => {
    const config = rw('--tls-ca', c.caCert, '--tls-cert', c.clientCert, '--tls-key', c.clientKey, '--tls-server-name', 'localhost')();
    assert.ok(config !== 'help');
    assert.deepEqual(config.tls, { ca: c.read(c.caCert), cert: c.read(c.clientCert), key: c.read(c.clientKey), serverName: 'localhost', insecureSkipVerify: false });
    const plain = rw()();
    assert.ok(plain !== 'help' && plain.tls === undefined);
  });

  test('remote-write refuses a missing file, a file that is not PEM, a key of another certificate, half a pair and TLS flags for http', () => {
    usage(rw('--tls-ca', missing()), /^--tls-ca: cannot read '.*nope\.crt': no such file$/);
    usage(rw('--tls-ca', flagDir), /^--tls-ca: cannot read '.*': a directory, not a file$/);
    usage(rw('--tls-ca', c.serverKey), /^--tls-ca: '.*server\.key' is not a PEM certificate/);
    usage(rw('--tls-cert', c.clientCert, '--tls-key', missing()), /^--tls-key: cannot read '.*nope\.crt'/);
    usage(rw('--tls-cert', missing(), '--tls-key', c.clientKey), /^--tls-cert: cannot read '.*nope\.crt'/);
    usage(rw('--tls-cert', c.clientCert, '--tls-key', c.caCert), /^--tls-key: '.*ca\.crt' is not an unencrypted PEM private key/);
    usage(rw('--tls-cert', c.clientCert, '--tls-key', c.strangerKey), /^--tls-key: the key in '.*stranger\.key' does not belong to the certificate in '.*client\.crt'/);
    usage(rw('--tls-cert', c.clientCert), /^--tls-cert and --tls-key go together/);
    usage(rw('--tls-key', c.clientKey), /^--tls-cert and --tls-key go together/);
    usage(rw('--tls-server-name', ''), /^--tls-server-name: '' is not a host name/);
    usage(() => parseRemoteWriteArgs(['--url', 'http://127.0.0.1:9/api/v1/write', '--tls-insecure-skip-verify']), /^--tls-insecure-skip-verify: only for an https:\/\/ or grpcs:\/\/ --url/);
  });

  test('store-api reads the TLS files once, at parsing, and is plaintext without --grpc-client-tls-secure', () => {
    const config = store('--grpc-client-tls-secure', '--grpc-client-tls-ca', c.caCert, '--grpc-client-tls-cert', c.clientCert, '--grpc-client-tls-key', c.clientKey, '--grpc-client-server-name', 'localhost')();
    assert.ok(config !== 'help');
    assert.deepEqual(config.tls, { ca: c.read(c.caCert), cert: c.read(c.clientCert), key: c.read(c.clientKey), serverName: 'localhost', skipVerify: false });
    const system = store('--grpc-client-tls-secure')();
    assert.ok(system !== 'help');
    assert.deepEqual(system.tls, { skipVerify: false }, 'the system CAs');
    const plain = store()();
    assert.ok(plain !== 'help' && plain.tls === undefined);
  });

  test('store-api refuses a missing file, a file that is not PEM, half a pair and TLS flags without --grpc-client-tls-secure', () => {
    const secure = '--grpc-client-tls-secure';
    usage(store(secure, '--grpc-client-tls-ca', missing()), /^--grpc-client-tls-ca: cannot read '.*nope\.crt': no such file$/);
    usage(store(secure, '--grpc-client-tls-ca', join(flagDir, 'ca.srl')), /^--grpc-client-tls-ca: '.*ca\.srl' is not a PEM certificate/);
    usage(store(secure, '--grpc-client-tls-cert', c.clientCert, '--grpc-client-tls-key', missing()), /^--grpc-client-tls-key: cannot read '.*nope\.crt'/);
    usage(store(secure, '--grpc-client-tls-cert', c.strangerCert, '--grpc-client-tls-key', c.clientKey), /^--grpc-client-tls-key: the key in '.*client\.key' does not belong/);
    usage(store(secure, '--grpc-client-tls-key', c.clientKey), /^--grpc-client-tls-cert and --grpc-client-tls-key go together/);
    usage(store('--grpc-client-tls-ca', c.caCert), /^--grpc-client-tls-ca: needs --grpc-client-tls-secure/);
    usage(store('--grpc-client-server-name', 'localhost'), /^--grpc-client-server-name: needs --grpc-client-tls-secure/);
    usage(store('--grpc-client-tls-skip-verify'), /^--grpc-client-tls-skip-verify: needs --grpc-client-tls-secure/);
  });

  test('a missing TLS file ends the command with status 2 and one line naming the flag and the file', async () => {
    for (const args of [
      ['remote-write', '--url', 'https://127.0.0.1:9/api/v1/write', '--tls-ca', missing()],
      ['store-api', '--addr', '127.0.0.1:9', '--grpc-client-tls-secure', '--grpc-client-tls-ca', missing()],
    ]) {
      const r = await runStrata(['bench', ...args], 30_000);
      assert.equal(r.code, 2, r.stderr);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, /--(tls|grpc-client-tls)-ca: cannot read '.*nope\.crt': no such file/);
    }
  });

  test('--help lists the TLS flags', () => {
    for (const f of ['--tls-ca FILE', '--tls-cert FILE', '--tls-key FILE', '--tls-server-name NAME', '--tls-insecure-skip-verify']) assert.ok(remoteWriteHelp.includes(f), f);
    for (const f of ['--grpc-client-tls-secure', '--grpc-client-tls-ca FILE', '--grpc-client-tls-cert FILE', '--grpc-client-tls-key FILE', '--grpc-client-server-name NAME', '--grpc-client-tls-skip-verify']) {
      assert.ok(storeApiHelp.includes(f), f);
    }
  });
});
