/**
 * A real Prometheus (Debian's `prometheus` 2.42) remote-writes to Strata
 * over HTTPS: to one Strata with TLS (Prometheus trusts the CA), and to one
 * that requires client certificates (Prometheus presents one the CA signed).
 * Prometheus scrapes itself every second; Strata's remote read, over HTTPS,
 * must then hold its `up` and `prometheus_build_info` series with samples,
 * and Prometheus must report no failed sample.
 *
 * Bounded (about 10 s normally, DATA_TIMEOUT_MS at worst), loopback only,
 * temporary directories, every process stopped in `after`. Skipped without
 * `prometheus` or `openssl` on PATH, or with STRATA_SKIP_E2E=1.
 * Rules: issue 16 "TLS on HTTP".
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { haveOpenssl, makeCerts, type Certs } from '../store/support/certs.js';
import { httpsCall, type TlsClient } from '../http/support/https-client.js';
import { decodeReadResponse, readRequestBody, ReadRequest_ResponseType, type AnsweredSeries } from '../http/prometheus/support/prom-wire.js';
import { removeTempDirs, serve, stopAll, type Served } from '../http/prometheus/support/serve.js';
import { removeDir, tempDir } from '../http/support/strata-process.js';
import { metricValue, prometheusBinary, startPrometheus, type PrometheusProcess } from './support/prometheus.js';

const SKIP = process.env.STRATA_SKIP_E2E === '1'
  ? 'STRATA_SKIP_E2E=1'
  : prometheusBinary() === undefined
    ? 'no `prometheus` on PATH (Debian package `prometheus`)'
    : !haveOpenssl() ? 'no `openssl` on PATH to make test certificates' : false;
/** Scrapes whose `up` sample each Strata must hold. */
const MIN_SAMPLES = 3;
const DATA_TIMEOUT_MS = 60_000;

describe('a real Prometheus remote-writes to Strata over HTTPS', { skip: SKIP, timeout: 180_000 }, () => {
  let certDir: string;
  let certs: Certs;
  let tls: Served | undefined;
  let mtls: Served | undefined;
  let prometheus: PrometheusProcess | undefined;
  const port = (s: Served): number => Number(new URL(s.base).port);
  const client = (): TlsClient => ({ ca: certs.read(certs.caCert), cert: certs.read(certs.clientCert), key: certs.read(certs.clientKey) });

  /** Strata's remote read (SAMPLES, over HTTPS) of `name` over the last 5 minutes. */
  async function read(s: Served, name: string): Promise<AnsweredSeries[]> {
    const now = Date.now();
    const a = await httpsCall(port(s), 'POST', '/api/v1/read', client(), {
      body: readRequestBody([{ matchers: [[0, '__name__', name]], start: now - 300_000, end: now }], [ReadRequest_ResponseType.SAMPLES]),
      headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-read-version': '0.1.0' },
    });
    if (a.status !== 200) throw new Error(`remote read of ${name} from ${s.base}: ${a.status} ${a.text}`);
    return decodeReadResponse(a.body)[0]!;
  }

  const remoteWriteState = async (): Promise<string> => {
    const text = await prometheus!.metrics();
    return ['prometheus_remote_storage_samples_failed_total', 'prometheus_remote_storage_samples_retried_total', 'prometheus_remote_storage_samples_total']
      .map((n) => `${n} ${metricValue(text, n)}`).join(', ');
  };

  before(async () => {
    certDir = tempDir('strata-certs-');
    certs = makeCerts(certDir);
    const serverFlags = ['--http-server-tls-cert', certs.serverCert, '--http-server-tls-key', certs.serverKey];
    [tls, mtls] = await Promise.all([
      serve({ args: serverFlags }),
      serve({ args: [...serverFlags, '--http-server-tls-client-ca', certs.caCert] }),
    ]);
    const queue = `    remote_timeout: 10s
    queue_config:
      batch_send_deadline: 500ms
      min_backoff: 50ms
      max_backoff: 1s`;
    prometheus = await startPrometheus('tls-writer', (self) => `global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: self
    static_configs:
      - targets: ['127.0.0.1:${self}']
remote_write:
  - url: https://127.0.0.1:${port(tls!)}/api/v1/write
${queue}
    tls_config:
      ca_file: ${certs.caCert}
  - url: https://127.0.0.1:${port(mtls!)}/api/v1/write
${queue}
    tls_config:
      ca_file: ${certs.caCert}
      cert_file: ${certs.clientCert}
      key_file: ${certs.clientKey}
`);

    const deadline = Date.now() + DATA_TIMEOUT_MS;
    for (const s of [tls, mtls]) {
      for (;;) {
        const up = await read(s!, 'up');
        if ((up[0]?.samples.length ?? 0) >= MIN_SAMPLES) break;
        if (Date.now() > deadline) {
          throw new Error(`${s!.base} holds ${up[0]?.samples.length ?? 0} samples of up after ${DATA_TIMEOUT_MS} ms; ${await remoteWriteState()}\n` +
            `Prometheus' log:\n${prometheus.output()}\nStrata's log:\n${s!.stderr().slice(-4000)}`);
        }
        await sleep(250);
      }
    }
  });

  after(async () => {
    await prometheus?.stop();
    await Promise.all([tls?.stop(), mtls?.stop()]);
    await stopAll();
    removeTempDirs();
    if (certDir !== undefined) removeDir(certDir);
  });

  for (const [what, which] of [['TLS', () => tls!], ['client certificates', () => mtls!]] as const) {
    it(`Strata with ${what} holds Prometheus' up and prometheus_build_info, with samples`, async () => {
      const up = await read(which(), 'up');
      assert.equal(up.length, 1, JSON.stringify(up.map((s) => s.labels)));
      assert.deepEqual(Object.fromEntries(up[0]!.labels), { __name__: 'up', instance: `127.0.0.1:${prometheus!.port}`, job: 'self' });
      assert.ok(up[0]!.samples.length >= MIN_SAMPLES);
      assert.ok(up[0]!.samples.every((x) => x.bits === 0x3ff0000000000000n), 'every up sample is 1');
      const info = await read(which(), 'prometheus_build_info');
      assert.equal(info.length, 1);
      assert.equal(Object.fromEntries(info[0]!.labels).job, 'self');
      assert.ok(info[0]!.samples.length > 0);
    });
  }

  it('Prometheus sent samples to both without a failure', async () => {
    const text = await prometheus!.metrics();
    const lines = (name: string) => text.split('\n').filter((l) => l.startsWith(`${name}{`));
    assert.equal(lines('prometheus_remote_storage_samples_total').length, 2, await remoteWriteState());
    for (const line of lines('prometheus_remote_storage_samples_total')) assert.ok(Number(line.split(' ').pop()) > 0, line);
    for (const line of lines('prometheus_remote_storage_samples_failed_total')) assert.equal(Number(line.split(' ').pop()), 0, line);
  });
});
