// RemoteWrite served on its HTTP/2 streams before grpc-js (src/grpc/raw-unary.ts):
// every answer must be the one grpc-js gives for the same bytes. Two real
// grpc-js servers with the same method and handler, one with its streams
// taken, get the same raw HTTP/2 requests (as a Go client such as Thanos
// Receive's router sends them); status, message, headers and body are compared.
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { gzipSync, deflateSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { WriteableStoreService } from '../../src/gen/thanos/store/rpc.js';
import { decodeSnappyFramed, encodeSnappyFramed } from '../../src/encoding/snappy-framed.js';
import { grpcStatusOf } from '../../src/errors/status.js';
import { movableMessage, type MessageBytes } from '../../src/grpc/message-bytes.js';
import { takeUnaryStreams } from '../../src/grpc/raw-unary.js';
import { installGrpcSnappy, keepSnappyFramed } from '../../src/grpc/snappy.js';

const PATH = WriteableStoreService.remoteWrite.path;
const MAX = 1 << 20;

interface Side {
  server: grpc.Server;
  port: number;
  /** Each message the handler got, as text; and whether raw-unary.ts called it. */
  got: { text: string; raw: boolean }[];
  calls: { code: number }[];
}

/** The message's own bytes, however it was handed over (kept snappy-framed, behind a skipped field). */
function messageText(m: MessageBytes): string {
  const bytes = m.framed ? decodeSnappyFramed(m.bytes, MAX) : m.bytes.subarray(m.bytes.byteLength - m.size);
  return Buffer.from(bytes).toString('utf8');
}

/** The test's method: "fail:" answers INVALID_ARGUMENT with the rest as its message, "slow:" takes 400 ms. */
async function handle(side: Side, m: MessageBytes): Promise<void> {
  const raw = new Error().stack!.includes('src/grpc/raw-unary');
  const text = messageText(m);
  side.got.push({ text, raw });
  if (text.startsWith('slow:')) await new Promise((r) => setTimeout(r, 400));
  if (text.startsWith('fail:')) throw Object.assign(new Error(text.slice(5)), { kind: 'invalid-labels' });
}

const statusOf = (err: unknown) => ({ code: grpcStatusOf(err), details: (err as Error).message });

async function startSide(takeStreams: boolean): Promise<Side> {
  installGrpcSnappy();
  keepSnappyFramed(PATH);
  const server = new grpc.Server({ 'grpc.max_receive_message_length': MAX });
  const side: Side = { server, port: 0, got: [], calls: [] };
  server.addService({
    remoteWrite: { ...WriteableStoreService.remoteWrite, requestDeserialize: movableMessage, responseSerialize: () => Buffer.alloc(0) },
  } as unknown as grpc.ServiceDefinition, {
    remoteWrite: ((call, callback) => {
      handle(side, call.request).then(() => callback(null, {}), (err: unknown) => {
        const s = statusOf(err);
        callback(Object.assign(new Error(s.details), { code: s.code, details: s.details }));
      });
    }) satisfies grpc.handleUnaryCall<MessageBytes, object>,
  } as grpc.UntypedServiceImplementation);
  side.port = await new Promise<number>((done, fail) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? fail(err) : done(p))));
  if (takeStreams) {
    const missing = takeUnaryStreams(server, { path: PATH, maxRecvBytes: MAX, handle: (m) => handle(side, m), statusOf, onCall: (_p, code) => side.calls.push({ code }) });
    assert.deepEqual(missing, [], 'this grpc-js lacks what raw-unary.ts relies on');
  }
  return side;
}

/** A gRPC message: the compressed flag and the length, then the bytes. */
function frame(body: Uint8Array, compressed = false, length = body.length): Buffer {
  const p = Buffer.alloc(5);
  p[0] = compressed ? 1 : 0;
  p.writeUInt32BE(length, 1);
  return Buffer.concat([p, body]);
}

interface Answer {
  status: number | undefined;
  contentType: string | undefined;
  grpcStatus: string | undefined;
  grpcMessage: string | undefined;
  body: string;
}

interface Request {
  chunks: Buffer[];
  headers?: http2.OutgoingHttpHeaders;
  /** Reset the stream this long after sending (ms). */
  resetAfter?: number;
}

function call(session: http2.ClientHttp2Session, req: Request): Promise<Answer> {
  return new Promise((done) => {
    const stream = session.request({ ':method': 'POST', ':path': PATH, 'content-type': 'application/grpc', te: 'trailers', ...req.headers });
    const answer: Answer = { status: undefined, contentType: undefined, grpcStatus: undefined, grpcMessage: undefined, body: '' };
    const body: Buffer[] = [];
    const take = (h: http2.IncomingHttpHeaders): void => {
      if (h[':status'] !== undefined) answer.status = Number(h[':status']);
      if (h['content-type'] !== undefined) answer.contentType = String(h['content-type']);
      if (h['grpc-status'] !== undefined) answer.grpcStatus = String(h['grpc-status']);
      if (h['grpc-message'] !== undefined) answer.grpcMessage = String(h['grpc-message']);
    };
    stream.on('response', take);
    stream.on('trailers', take);
    stream.on('data', (c: Buffer) => body.push(c));
    stream.on('error', () => {});
    stream.on('close', () => {
      answer.body = Buffer.concat(body).toString('hex');
      done(answer);
    });
    for (const c of req.chunks) stream.write(c);
    if (req.resetAfter !== undefined) setTimeout(() => stream.close(http2.constants.NGHTTP2_CANCEL), req.resetAfter);
    else stream.end();
  });
}

let raw: Side;
let grpcJs: Side;
let rawSession: http2.ClientHttp2Session;
let grpcJsSession: http2.ClientHttp2Session;

before(async () => {
  [raw, grpcJs] = await Promise.all([startSide(true), startSide(false)]);
  rawSession = http2.connect(`http://127.0.0.1:${raw.port}`);
  grpcJsSession = http2.connect(`http://127.0.0.1:${grpcJs.port}`);
});

after(() => {
  rawSession?.close();
  grpcJsSession?.close();
  raw?.server.forceShutdown();
  grpcJs?.server.forceShutdown();
});

/** Sends `req` to both servers; asserts the same answer and the given code, and returns the raw side's answer. */
async function same(req: Request, code: grpc.status): Promise<Answer> {
  const [a, b] = await Promise.all([call(rawSession, req), call(grpcJsSession, req)]);
  assert.deepEqual(a, b, 'raw-unary.ts answered otherwise than grpc-js');
  assert.equal(a.grpcStatus, String(code), `answered ${a.grpcStatus}: ${a.grpcMessage}`);
  return a;
}

const text = (s: string): Buffer => Buffer.from(s, 'utf8');
const lastGot = (side: Side): { text: string; raw: boolean } | undefined => side.got.at(-1);

describe('answers as grpc-js does', () => {
  test('an uncompressed message is handed over whole, by raw-unary.ts, and answered OK with the empty message', async () => {
    const a = await same({ chunks: [frame(text('hello'))] }, grpc.status.OK);
    assert.equal(a.body, '0000000000');
    assert.deepEqual(lastGot(raw), { text: 'hello', raw: true });
    assert.deepEqual(lastGot(grpcJs), { text: 'hello', raw: false });
    assert.equal(raw.calls.at(-1)?.code, grpc.status.OK);
  });

  test('snappy (as a Thanos router sends), gzip, and a compressed flag under identity', async () => {
    const msg = 'x'.repeat(70_000) + 'end';
    await same({ chunks: [frame(encodeSnappyFramed(text(msg)), true)], headers: { 'grpc-encoding': 'snappy' } }, grpc.status.OK);
    assert.equal(lastGot(raw)?.text, msg);
    await same({ chunks: [frame(gzipSync(text(msg)), true)], headers: { 'grpc-encoding': 'gzip' } }, grpc.status.OK);
    assert.equal(lastGot(raw)?.text, msg);
    // grpc-js takes a compressed flag with grpc-encoding identity as uncompressed.
    await same({ chunks: [frame(text('flagged'), true)], headers: { 'grpc-encoding': 'identity' } }, grpc.status.OK);
    assert.equal(lastGot(raw)?.text, 'flagged');
    // An uncompressed message under grpc-encoding snappy is read as it is.
    await same({ chunks: [frame(text('plain'))], headers: { 'grpc-encoding': 'snappy' } }, grpc.status.OK);
    assert.equal(lastGot(raw)?.text, 'plain');
  });

  test('deflate and unknown encodings are left to grpc-js', async () => {
    await same({ chunks: [frame(deflateSync(text('deflated')), true)], headers: { 'grpc-encoding': 'deflate' } }, grpc.status.OK);
    assert.deepEqual(lastGot(raw), { text: 'deflated', raw: false });
    await same({ chunks: [frame(text('zz'), true)], headers: { 'grpc-encoding': 'zstd' } }, grpc.status.UNIMPLEMENTED);
  });

  test('a large message in many DATA chunks and an empty message', async () => {
    const big = Buffer.alloc(MAX, 'a');
    const whole = frame(big);
    const chunks = Array.from({ length: Math.ceil(whole.length / 10_007) }, (_, i) => whole.subarray(i * 10_007, (i + 1) * 10_007));
    await same({ chunks }, grpc.status.OK);
    assert.equal(lastGot(raw)?.text.length, MAX);
    await same({ chunks: [frame(Buffer.alloc(0))] }, grpc.status.OK);
    assert.deepEqual(lastGot(raw), { text: '', raw: true });
  });

  test('the handler\'s error is answered trailers-only with its code and its message percent-encoded', async () => {
    const a = await same({ chunks: [frame(Buffer.from('fail:50% of "séries" rejected\n', 'utf8'))] }, grpc.status.INVALID_ARGUMENT);
    assert.equal(a.grpcMessage, encodeURI('50% of "séries" rejected\n'));
    assert.equal(a.body, '');
    assert.equal(a.contentType, 'application/grpc+proto');
  });
});

describe('limits and bad framing', () => {
  test('a message announced larger than the bound is RESOURCE_EXHAUSTED, before it is read', async () => {
    const a = await same({ chunks: [frame(Buffer.alloc(10), false, MAX + 1)] }, grpc.status.RESOURCE_EXHAUSTED);
    assert.equal(a.grpcMessage, encodeURI(`Received message larger than max (${MAX + 1} vs ${MAX})`));
  });

  test('gzip that inflates beyond the bound is RESOURCE_EXHAUSTED; bad gzip is INTERNAL', async () => {
    await same({ chunks: [frame(gzipSync(Buffer.alloc(MAX + 1)), true)], headers: { 'grpc-encoding': 'gzip' } }, grpc.status.RESOURCE_EXHAUSTED);
    await same({ chunks: [frame(text('not gzip'), true)], headers: { 'grpc-encoding': 'gzip' } }, grpc.status.INTERNAL);
  });

  test('no message, a cut message and two messages are UNIMPLEMENTED', async () => {
    await same({ chunks: [] }, grpc.status.UNIMPLEMENTED);
    await same({ chunks: [frame(text('abc'), false, 10)] }, grpc.status.UNIMPLEMENTED);
    await same({ chunks: [frame(text('one')).subarray(0, 3)] }, grpc.status.UNIMPLEMENTED);
    const before = raw.got.length;
    await same({ chunks: [frame(text('one')), frame(text('two'))] }, grpc.status.UNIMPLEMENTED);
    assert.equal(raw.got.length, before, 'a call of two messages reached the handler');
  });

  test('a content type other than gRPC is left to grpc-js (415)', async () => {
    const [a, b] = await Promise.all([rawSession, grpcJsSession].map((s) => call(s, { chunks: [frame(text('x'))], headers: { 'content-type': 'application/json' } })));
    assert.deepEqual(a, b);
    assert.equal(a!.status, 415);
  });
});

describe('deadlines, cancellation, many streams on one connection', () => {
  test('grpc-timeout passing before the handler is done is DEADLINE_EXCEEDED; an invalid one goes to grpc-js', async () => {
    const a = await same({ chunks: [frame(text('slow:deadline'))], headers: { 'grpc-timeout': '100m' } }, grpc.status.DEADLINE_EXCEEDED);
    assert.equal(a.grpcMessage, encodeURI('Deadline exceeded'));
    assert.equal(raw.calls.at(-1)?.code, grpc.status.DEADLINE_EXCEEDED);
    await same({ chunks: [frame(text('in time'))], headers: { 'grpc-timeout': '5S' } }, grpc.status.OK);
    await same({ chunks: [frame(text('x'))], headers: { 'grpc-timeout': 'soon' } }, grpc.status.INTERNAL);
  });

  test('a call the client resets is counted CANCELLED and the connection serves the next call', async () => {
    const calls = raw.calls.length;
    const answer = await call(rawSession, { chunks: [frame(text('slow:reset'))], resetAfter: 50 });
    assert.equal(answer.grpcStatus, undefined);
    // The server hears of the reset a little after the client closed: wait for it (at most 2 s).
    for (let i = 0; i < 100 && raw.calls.length === calls; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(raw.calls.slice(calls), [{ code: grpc.status.CANCELLED }]);
    await same({ chunks: [frame(text('after reset'))] }, grpc.status.OK);
  });

  test('64 calls at once on one connection each get their own message and answer', async () => {
    const before = raw.got.length;
    const sent = Array.from({ length: 64 }, (_, i) => `call-${i}-${'y'.repeat(i * 997)}`);
    const answers = await Promise.all(sent.map((s, i) => call(rawSession, {
      chunks: [frame(i % 2 === 0 ? encodeSnappyFramed(text(s)) : text(s), i % 2 === 0)],
      headers: i % 2 === 0 ? { 'grpc-encoding': 'snappy' } : {},
    })));
    for (const a of answers) assert.equal(a.grpcStatus, '0', a.grpcMessage);
    assert.deepEqual(raw.got.slice(before).map((g) => g.text).sort(), [...sent].sort());
  });

  test('a grpc-js client with a deadline and gzip is served by raw-unary.ts', async () => {
    const Client = grpc.makeGenericClientConstructor({ remoteWrite: { ...WriteableStoreService.remoteWrite, requestSerialize: (b: Buffer) => b, responseDeserialize: (b: Buffer) => b } } as unknown as grpc.ServiceDefinition, 'W');
    const client = new Client(`127.0.0.1:${raw.port}`, grpc.credentials.createInsecure(), { 'grpc.default_compression_algorithm': 2 });
    try {
      const call1 = (msg: string) => new Promise<grpc.ServiceError | null>((done) => {
        (client as unknown as { remoteWrite: (m: Buffer, md: grpc.Metadata, o: grpc.CallOptions, cb: (e: grpc.ServiceError | null) => void) => void })
          .remoteWrite(text(msg), new grpc.Metadata(), { deadline: Date.now() + 5000 }, done);
      });
      assert.equal(await call1('from grpc-js'), null);
      assert.deepEqual(lastGot(raw), { text: 'from grpc-js', raw: true });
      const err = await call1('fail:no');
      assert.equal(err?.code, grpc.status.INVALID_ARGUMENT);
      assert.equal(err?.details, 'no');
    } finally {
      client.close();
    }
  });
});
