// gRPC messages compressed with "snappy" (Go's snappy framing format, as
// Thanos registers it: pkg/extgrpc/snappy), which Thanos Receive's router
// uses for every RemoteWrite by default (--receive.grpc-compression).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { after, before, describe, test } from 'node:test';
import { crc32c } from '@node-rs/crc32';
import { compressSync } from 'snappy';
import { decodeSnappyFramed, SnappyFrameError, snappyFramedLength } from '../../src/encoding/snappy-framed.js';
import { installGrpcSnappy } from '../../src/grpc/snappy.js';
import { StoreClient, eq } from '../store/support/client.js';
import { T0, seriesOk } from '../store/support/calls.js';
import { decodeSeries } from '../store/support/series-check.js';
import { removeTempDirs, startStrata, stopAll, type StrataGrpc } from '../store/support/strata-grpc.js';
import { bitsOfNumber, encodeWriteRequest, samplesOf } from '../store/support/write-request.js';

const STREAM_ID = Buffer.from([0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59]);

function masked(data: Uint8Array): number {
  const c = crc32c(Buffer.from(data));
  return ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

function chunk(type: number, body: Uint8Array): Buffer {
  const h = Buffer.alloc(4);
  h[0] = type;
  h.writeUIntLE(body.length, 1, 3);
  return Buffer.concat([h, body]);
}

function dataChunk(data: Uint8Array, compress: boolean, crc = masked(data)): Buffer {
  const c = Buffer.alloc(4);
  c.writeUInt32LE(crc);
  const body: Uint8Array = compress ? compressSync(Buffer.from(data)) : data;
  return chunk(compress ? 0x00 : 0x01, Buffer.concat([c, body]));
}

/** A framed stream as Go's snappy.NewBufferedWriter writes one: the identifier, then chunks of at most 64 KiB. */
function framed(data: Uint8Array, compress = true): Buffer {
  const parts: Uint8Array[] = [STREAM_ID];
  for (let at = 0; at < data.length; at += 65536) parts.push(dataChunk(data.subarray(at, at + 65536), compress));
  return Buffer.concat(parts);
}

describe('snappy framing format', () => {
  const data = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 251 < 40 ? 0x41 : i % 256));

  test('decodes compressed and uncompressed chunks, skipping padding and skippable chunks', () => {
    assert.deepEqual(decodeSnappyFramed(framed(data)), data);
    assert.deepEqual(decodeSnappyFramed(framed(data, false)), data);
    const mixed = Buffer.concat([STREAM_ID, dataChunk(data.subarray(0, 1000), true), chunk(0xfe, Buffer.alloc(9)), chunk(0x80, Buffer.from('skip me')),
      STREAM_ID, dataChunk(data.subarray(1000, 5000), false)]);
    assert.deepEqual(decodeSnappyFramed(mixed), data.subarray(0, 5000));
    assert.deepEqual(decodeSnappyFramed(STREAM_ID), Buffer.alloc(0));
  });

  test("decodes what Go's snappy.NewBufferedWriter (Thanos' compressor) wrote: a compressed and an uncompressed chunk", () => {
    const dir = new URL('./snappy-vectors/', import.meta.url);
    const input = readFileSync(new URL('input.bin', dir));
    assert.deepEqual(decodeSnappyFramed(readFileSync(new URL('framed.bin', dir))), input);
  });

  test('refuses a stream without the identifier, reserved chunk types, bad checksums, cut streams and oversize output', () => {
    assert.throws(() => decodeSnappyFramed(dataChunk(data.subarray(0, 10), true)), SnappyFrameError);
    assert.throws(() => decodeSnappyFramed(Buffer.concat([STREAM_ID, chunk(0x02, Buffer.alloc(3))])), /reserved unskippable type 0x02/);
    assert.throws(() => decodeSnappyFramed(Buffer.concat([STREAM_ID, dataChunk(data.subarray(0, 100), true, 12345)])), /checksum mismatch/);
    assert.throws(() => decodeSnappyFramed(framed(data).subarray(0, 500)), /runs past the end/);
    assert.throws(() => decodeSnappyFramed(framed(data), 100_000), RangeError);
    assert.throws(() => decodeSnappyFramed(Buffer.concat([STREAM_ID, dataChunk(Buffer.alloc(70_000), false)])), /more than 65536/);
  });

  test('this grpc-js has what the server relies on to take snappy', () => {
    assert.deepEqual(installGrpcSnappy(), []);
  });

  test('tells the decoded length from the chunk headers alone', () => {
    assert.equal(snappyFramedLength(framed(data)), data.length);
    assert.equal(snappyFramedLength(framed(data, false)), data.length);
    assert.equal(snappyFramedLength(framed(data).subarray(0, 100)), -1);
    assert.equal(snappyFramedLength(data), -1);
  });
});

/** One unary gRPC call over bare HTTP/2 with the message as given (flag 1: compressed with `encoding`). */
async function rawUnary(address: string, path: string, message: Buffer, encoding?: string): Promise<{ code: number; details: string }> {
  const session = http2.connect(`http://${address}`);
  session.on('error', () => {});
  try {
    const prefix = Buffer.alloc(5);
    prefix[0] = encoding === undefined ? 0 : 1;
    prefix.writeUInt32BE(message.length, 1);
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...(encoding === undefined ? {} : { 'grpc-encoding': encoding }),
    });
    stream.end(Buffer.concat([prefix, message]));
    return await new Promise((resolve, reject) => {
      let headers: http2.IncomingHttpHeaders = {};
      let trailers: http2.IncomingHttpHeaders = {};
      stream.on('response', (h) => (headers = h));
      stream.on('trailers', (t) => (trailers = t));
      stream.on('data', () => {});
      stream.on('error', reject);
      stream.on('close', () => resolve({
        code: Number(trailers['grpc-status'] ?? headers['grpc-status'] ?? -1),
        details: decodeURIComponent(String(trailers['grpc-message'] ?? headers['grpc-message'] ?? '')),
      }));
    });
  } finally {
    session.close();
  }
}

describe('RemoteWrite compressed with snappy, as Thanos Receive sends it', () => {
  let strata: StrataGrpc;
  /** --grpc-max-recv-bytes 64 KiB: what a message may decode to. */
  let small: StrataGrpc;
  let client: StoreClient;
  before(async () => {
    [strata, small] = await Promise.all([startStrata(), startStrata({ args: ['--grpc-max-recv-bytes', String(64 * 1024)] })]);
    client = new StoreClient(strata.grpcAddress);
  });
  after(async () => {
    client?.close();
    await stopAll();
    removeTempDirs();
  });
  const PATH = '/thanos.WriteableStore/RemoteWrite';

  test('is written, sample for sample (decoded in the pool)', async () => {
    const samples = samplesOf(300, T0, 15_000n, (i) => i * 1.5);
    const req = encodeWriteRequest({ timeseries: [{ labels: [['__name__', 'snappy_rw'], ['job', 'receive']], samples }], tenant: 'team-s' });
    const answer = await rawUnary(strata.grpcAddress, PATH, framed(req), 'snappy');
    assert.equal(answer.code, 0, answer.details);
    const got = await seriesOk(client, { matchers: [eq('__name__', 'snappy_rw')] });
    assert.equal(got.series.length, 1);
    const decoded = decodeSeries(got.series[0]!);
    assert.deepEqual(decoded.t, samples.map((x) => x.t));
    assert.deepEqual(decoded.bits, samples.map((x) => bitsOfNumber(x.v!)));
  });

  test('a RemoteWrite that is not snappy-framed is INVALID_ARGUMENT naming the fault, one that decodes past the limit RESOURCE_EXHAUSTED; an unknown encoding stays UNIMPLEMENTED', async () => {
    const req = encodeWriteRequest({ timeseries: [{ labels: [['__name__', 'snappy_bad']], samples: samplesOf(1, T0, 1n, () => 1) }] });
    const bad = await rawUnary(strata.grpcAddress, PATH, compressSync(req), 'snappy');
    assert.equal(bad.code, 3, bad.details);
    assert.match(bad.details, /stream identifier/);
    const cut = await rawUnary(strata.grpcAddress, PATH, framed(req).subarray(0, 20), 'snappy');
    assert.equal(cut.code, 3, cut.details);
    const huge = await rawUnary(small.grpcAddress, PATH, framed(Buffer.alloc(200_000)), 'snappy');
    assert.equal(huge.code, 8, huge.details);
    const unknown = await rawUnary(strata.grpcAddress, PATH, req, 'zstd');
    assert.equal(unknown.code, 12);
    assert.equal((await seriesOk(client, { matchers: [eq('__name__', 'snappy_bad')] })).series.length, 0);
  });
});
