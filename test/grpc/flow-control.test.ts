// src/grpc/flow-control.ts widens grpc-js' HTTP/2 windows through two
// grpc-js internals. These tests fail loudly when the grpc-js in
// node_modules no longer has them, and check what a client is told.
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { CONNECTION_WINDOW_BYTES, STREAM_WINDOW_BYTES, probeFlowControlInternals, widenConnectionWindows, widenStreamWindows } from '../../src/grpc/flow-control.js';

const require = createRequire(import.meta.url);
const installed = (require('@grpc/grpc-js/package.json') as { version: string }).version;

const servers: grpc.Server[] = [];
after(() => {
  for (const s of servers) s.forceShutdown();
});

async function bound(widen: boolean): Promise<number> {
  const server = new grpc.Server();
  servers.push(server);
  if (widen) assert.deepEqual(widenStreamWindows(server), []);
  const port = await new Promise<number>((done, fail) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? fail(err) : done(p))));
  if (widen) assert.deepEqual(widenConnectionWindows(server), []);
  return port;
}

/** The stream window the server announces and the connection window a client may then send into. */
async function windowsSeen(port: number): Promise<{ stream: number | undefined; connection: number | undefined }> {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  try {
    await new Promise<void>((done, fail) => {
      session.once('remoteSettings', () => done());
      session.once('error', fail);
    });
    // The connection's WINDOW_UPDATE follows the SETTINGS frame.
    for (let i = 0; i < 50 && (session.state.remoteWindowSize ?? 0) <= 65_535; i++) await sleep(10);
    return { stream: session.remoteSettings.initialWindowSize, connection: session.state.remoteWindowSize };
  } finally {
    session.close();
  }
}

describe(`HTTP/2 windows of a grpc-js ${installed} server`, () => {
  test('this grpc-js has what flow-control.ts relies on', () => {
    const missing = probeFlowControlInternals(new grpc.Server());
    assert.deepEqual(missing, [], `grpc-js ${installed} lacks ${missing.join(', ')}: RemoteWrite calls go back to 64 KiB windows (see src/grpc/flow-control.ts)`);
  });

  test('a client is told the wider stream and connection windows', async () => {
    const seen = await windowsSeen(await bound(true));
    assert.equal(seen.stream, STREAM_WINDOW_BYTES);
    assert.equal(seen.connection, CONNECTION_WINDOW_BYTES);
  });

  test("without them a client gets HTTP/2's 65,535 bytes (what the change is measured against)", async () => {
    const seen = await windowsSeen(await bound(false));
    assert.equal(seen.stream, 65_535);
    assert.equal(seen.connection, 65_535);
  });
});
