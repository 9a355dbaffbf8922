// src/grpc/message-bytes.ts relies on how grpc-js lays out a received
// message (its 5-byte prefix just before it, in a buffer of its own). These
// tests fail loudly when the grpc-js in node_modules no longer does, and
// check that what is handed on parses as the same WriteRequest.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { WriteRequest } from '../../src/gen/thanos/store/rpc.js';
import { movableMessage, type MessageBytes } from '../../src/grpc/message-bytes.js';
import { transferable } from '../../src/pool/transfer.js';

const require = createRequire(import.meta.url);
const installed = (require('@grpc/grpc-js/package.json') as { version: string }).version;

const raw = (b: Buffer): Buffer => b;
const definition = {
  write: { path: '/bytes.Test/Write', requestStream: false, responseStream: false, requestSerialize: raw, requestDeserialize: movableMessage, responseSerialize: raw, responseDeserialize: raw },
};

let server: grpc.Server;
let client: grpc.Client;
let seen: MessageBytes[] = [];

before(async () => {
  server = new grpc.Server({ 'grpc.max_receive_message_length': -1 });
  server.addService(definition as unknown as grpc.ServiceDefinition, {
    write: (call: grpc.ServerUnaryCall<MessageBytes, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      seen.push(call.request);
      callback(null, Buffer.alloc(0));
    },
  });
  const port = await new Promise<number>((done, fail) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? fail(err) : done(p))));
  client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': -1 });
});
after(() => {
  client?.close();
  server?.forceShutdown();
});

function send(message: Buffer): Promise<MessageBytes> {
  seen = [];
  return new Promise((done, fail) => client.makeUnaryRequest('/bytes.Test/Write', raw, raw, message, (err) => (err ? fail(err) : done(seen[0]!))));
}

/** A Thanos WriteRequest of `series` series, one sample each, with a tenant and a replica. */
function request(series: number): Buffer {
  return Buffer.from(WriteRequest.encode({
    timeseries: Array.from({ length: series }, (_, i) => ({
      labels: [{ name: '__name__', value: 'm' }, { name: 'i', value: String(i).padStart(8, '0') }],
      samples: [{ value: i, timestamp: BigInt(1000 + i) }],
      exemplars: [],
      histograms: [],
    })),
    tenant: 'team-a',
    replica: 2n,
  }).finish());
}

/**
 * grpc-js gathers a message with Buffer.concat, which takes one shorter
 * than half of Buffer.poolSize from Node's shared pool (8 KiB in Node 20
 * and 22, 64 KiB in Node 24): such a message cannot be moved whole.
 */
const pooledBelow = Buffer.poolSize >>> 1;

describe(`a RemoteWrite message from grpc-js ${installed}`, () => {
  for (const series of [100, 500, 2000]) {
    const sent = request(series);
    if (sent.length + 5 < pooledBelow) {
      test(`of ${series} series (${sent.length + 5} bytes framed, in Node's shared buffer pool) is handed on as it is`, async () => {
        const got = await send(sent);
        assert.equal(got.size, sent.length);
        assert.equal(got.bytes.length, sent.length);
        assert.equal(transferable(got.bytes).length, 0, 'a message in the shared pool is not movable');
        assert.deepEqual(WriteRequest.decode(got.bytes), WriteRequest.decode(sent));
      });
      continue;
    }
    test(`of ${series} series (${sent.length + 5} bytes framed) covers its buffer whole (movable without a copy) and parses as the message sent`, async () => {
      const got = await send(sent);
      assert.equal(got.size, sent.length, 'size is the message as sent');
      assert.equal(transferable(got.bytes).length, 1,
        `grpc-js ${installed} no longer hands over a message at offset 5 of a buffer of its own: src/grpc/message-bytes.ts falls back to a copy for every RemoteWrite`);
      assert.equal(got.bytes.length, sent.length + 5);
      assert.deepEqual(WriteRequest.decode(got.bytes), WriteRequest.decode(sent));
    });
  }

  test('a message in a shared buffer is handed on as it is (the pool copies it)', () => {
    const pool = Buffer.alloc(100, 7);
    pool.set([0, 0, 0, 0, 10], 20);
    const message = pool.subarray(25, 35);
    const got = movableMessage(message);
    assert.equal(got.bytes, message);
    assert.equal(got.size, 10);
    assert.equal(pool[20], 0, 'bytes outside the message left alone');
  });

  test('a view whose 5 bytes before it are not its own gRPC prefix is handed on as it is', () => {
    const buffer = new ArrayBuffer(15);
    const whole = new Uint8Array(buffer);
    whole.set([1, 0, 0, 0, 10]); // compressed flag set: not what grpc-js hands over uncompressed
    const got = movableMessage(new Uint8Array(buffer, 5));
    assert.equal(got.bytes.byteOffset, 5);
    assert.deepEqual([...whole.subarray(0, 5)], [1, 0, 0, 0, 10]);
  });
});
