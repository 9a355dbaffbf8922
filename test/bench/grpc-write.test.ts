// `strata bench remote-write` against a grpc:// target: the planned load
// goes out as thanos.WriteableStore/RemoteWrite calls with the tenant in
// the message, answers are classified by gRPC code (RESOURCE_EXHAUSTED
// resent like 429), and only what was answered OK counts as written.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ReportSchema } from '../../src/bench/report/schema.js';
import { grpcWriteBodies, tenantField } from '../../src/bench/remote-write/grpc-frames.js';
import { compressSync } from 'snappy';
import { WriteRequest } from '../../src/gen/thanos/store/rpc.js';
import { decodeSnappyFramed } from '../../src/encoding/snappy-framed.js';
import { killBench, readReport, runStrata } from './support/bench-cli.js';
import { startGrpcWriteTarget, type GrpcAnswer } from './support/grpc-write-target.js';

const checkReport = TypeCompiler.Compile(ReportSchema);

describe('strata bench remote-write over gRPC', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-bench-grpc-'));
  });
  after(async () => {
    await killBench();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a planned request becomes one gRPC body: prefix, the same series, the tenant as field 2', () => {
    const series = Buffer.from(WriteRequest.encode({ timeseries: [{ labels: [{ name: '__name__', value: 'up' }], samples: [{ value: 1, timestamp: 1000n }], exemplars: [], histograms: [] }], tenant: '', replica: 0n }).finish());
    const [body] = grpcWriteBodies([Buffer.from(compressSync(series))], 'team-a', 1 << 20, 'none');
    assert.equal(body![0], 0, 'not compressed');
    assert.equal(body!.readUInt32BE(1), body!.length - 5);
    const got = WriteRequest.decode(body!.subarray(5));
    assert.equal(got.tenant, 'team-a');
    assert.equal(got.replica, 0n);
    assert.deepEqual(got.timeseries, WriteRequest.decode(series).timeseries);
    assert.equal(tenantField(undefined).length, 0);
    assert.deepEqual([...tenantField('x'.repeat(200)).subarray(0, 3)], [0x12, 0xc8, 0x01], 'a long tenant has a two-byte length');
    assert.throws(() => grpcWriteBodies([Buffer.from(compressSync(series))], undefined, 10), /more than/);
  });

  test('with snappy (the default, as a Receive router), the body is the same message in Go\'s snappy framing format, flagged compressed', () => {
    const series = Buffer.from(WriteRequest.encode({ timeseries: Array.from({ length: 300 }, (_, i) => ({ labels: [{ name: '__name__', value: 'up' }, { name: 'i', value: String(i) }], samples: [{ value: i, timestamp: 1000n }], exemplars: [], histograms: [] })), tenant: '', replica: 0n }).finish());
    const [plain] = grpcWriteBodies([Buffer.from(compressSync(series))], 'team-a', 1 << 20, 'none');
    const [framed] = grpcWriteBodies([Buffer.from(compressSync(series))], 'team-a', 1 << 20, 'snappy');
    assert.equal(framed![0], 1, 'compressed');
    assert.equal(framed!.readUInt32BE(1), framed!.length - 5);
    assert.ok(framed!.length < plain!.length / 2);
    assert.deepEqual(decodeSnappyFramed(framed!.subarray(5)), plain!.subarray(5));
  });

  test('--grpc-compression takes snappy or none; an unknown one is a usage error', async () => {
    const bad = await runStrata(['bench', 'remote-write', '--url', 'grpc://127.0.0.1:10901', '--grpc-compression', 'zstd']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--grpc-compression: 'zstd' is not snappy or none/);
  });

  test('classifies INVALID_ARGUMENT, ALREADY_EXISTS, RESOURCE_EXHAUSTED (resent after 1 s), UNAVAILABLE; counts only what was taken', async () => {
    const script: Record<number, GrpcAnswer> = {
      0: { code: grpc.status.INVALID_ARGUMENT, message: 'label names not sorted' },
      1: { code: grpc.status.RESOURCE_EXHAUSTED, message: 'slow down' },
      // 2: the same request again, taken
      3: { code: grpc.status.ALREADY_EXISTS, message: 'out of order sample' },
      5: { code: grpc.status.UNAVAILABLE, message: 'not ready' },
    };
    const target = await startGrpcWriteTarget((n) => script[n] ?? { code: grpc.status.OK });
    try {
      const json = join(dir, 'answers.json');
      // 100 series in requests of 10, 2 samples each: 20 calls, one at a time (the script counts arrivals).
      const r = await runStrata(['bench', 'remote-write', '--url', target.url, '--series', '100', '--series-per-request', '10', '--samples-per-series', '2',
        '--concurrency', '1', '--duration', '30s', '--histogram-share', '0.2', '--tenant', 'team-a', '--header', 'X-Scope-OrgID: other', '--json', json]);
      assert.equal(r.code, 0, r.stderr);
      const report = readReport(json);
      assert.ok(checkReport.Check(report), JSON.stringify([...checkReport.Errors(report)].slice(0, 3)));
      const run = report.runs[0]!;
      const a = run.answers;
      assert.equal(run.stoppedBy, 'load-sent');
      assert.equal(target.arrivals.length, 21, '20 calls and one resent');
      assert.equal(a.ok, 17);
      assert.deepEqual(a.classes, { '4xx': 0, '429': 0, '5xx': 0, network: 0, grpc: 4, aborted: 0 });
      assert.deepEqual(a.byCode, { ALREADY_EXISTS: 1, INVALID_ARGUMENT: 1, RESOURCE_EXHAUSTED: 1, UNAVAILABLE: 1 });
      assert.equal(a.retries, 1);
      assert.match(a.examples.INVALID_ARGUMENT!, /label names not sorted/);
      assert.ok(target.arrivals[2]! - target.arrivals[1]! >= 950, `RESOURCE_EXHAUSTED was resent after 1 s (${target.arrivals[2]! - target.arrivals[1]!} ms)`);
      // Only what the target answered OK counts as written; histograms included.
      assert.equal(target.taken.requests, 17);
      assert.equal(run.load!.samplesWritten, target.taken.samples);
      assert.equal(run.load!.histogramsWritten, target.taken.histograms);
      assert.ok(target.taken.histograms > 0, 'native histograms were sent');
      assert.ok(target.tenants.every((t) => t === 'team-a'), `tenants ${JSON.stringify([...new Set(target.tenants)])}`);
      assert.deepEqual(target.firstMetadata!.get('x-scope-orgid'), ['other'], '--header goes as metadata');
      assert.deepEqual(target.firstMetadata!.get('thanos-tenant'), [], 'the tenant is in the message, not a header');
      assert.match(r.stdout, /answers: OK 17, gRPC errors 4 \(RESOURCE_EXHAUSTED resent 1\), network 0/);
      assert.match(r.stdout, /by code: ALREADY_EXISTS 1, INVALID_ARGUMENT 1, RESOURCE_EXHAUSTED 1, UNAVAILABLE 1/);
    } finally {
      await target.close();
    }
  });

  test('a port nobody listens on is a network error (ECONNREFUSED), and exit status 1', async () => {
    const target = await startGrpcWriteTarget();
    const url = target.url;
    await target.close();
    const json = join(dir, 'refused.json');
    const r = await runStrata(['bench', 'remote-write', '--url', url, '--series', '20', '--series-per-request', '10', '--samples-per-series', '1', '--concurrency', '2', '--json', json]);
    assert.equal(r.code, 1, r.stderr);
    const a = readReport(json).runs[0]!.answers;
    assert.equal(a.ok, 0);
    assert.equal(a.classes.network, 2);
    assert.deepEqual(Object.keys(a.byCode), ['ECONNREFUSED']);
  });

  test('refuses a grpc URL with a path, and --tls-* flags for plain grpc', async () => {
    const withPath = await runStrata(['bench', 'remote-write', '--url', 'grpc://127.0.0.1:10901/api/v1/write']);
    assert.equal(withPath.code, 2);
    assert.match(withPath.stderr, /not grpc:\/\/HOST:PORT/);
    const tls = await runStrata(['bench', 'remote-write', '--url', 'grpc://127.0.0.1:10901', '--tls-insecure-skip-verify']);
    assert.equal(tls.code, 2);
    assert.match(tls.stderr, /only for an https:\/\/ or grpcs:\/\/ --url/);
  });
});
