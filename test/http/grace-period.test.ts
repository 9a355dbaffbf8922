// --http-grace-period: a stop waits for a request whose body is still arriving,
// answers it, stores it, and only then closes (as Thanos' HTTP server does).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { compressSync } from 'snappy';
import { encodeWriteRequest } from '../../src/lib/write-request.js';
import { killAll, portOf, spawnServe } from '../support/serve-process.js';

const dir = mkdtempSync(join(tmpdir(), 'strata-grace-'));
after(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends a request in two halves with `between` run after the first; resolves with the whole answer text. */
function sendInHalves(port: number, head: string, body: Buffer, between: () => Promise<void>): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (b) => { received += b.toString('latin1'); });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.once('connect', () => {
      const half = body.length >> 1;
      socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body.subarray(0, half)]), () => {
        between().then(() => socket.write(body.subarray(half)), reject);
      });
    });
  });
}

test('a stop answers and keeps a remote write whose body was still arriving, then exits 0', { timeout: 60_000 }, async () => {
  const dataDir = join(dir, 'data');
  const server = spawnServe({ dataDir, args: ['--http-grace-period', '20s'] });
  const port = portOf((await server.line('strata started')).httpAddress);
  const labels = { __name__: 'grace_in_flight', job: 'grace' };
  const body = compressSync(Buffer.from(encodeWriteRequest({ labels, timestamps: [Date.now()], values: [42] })));
  const head = `POST /api/v1/write HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Encoding: snappy\r\n` +
    `X-Prometheus-Remote-Write-Version: 0.1.0\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`;
  const answer = await sendInHalves(port, head, body, async () => {
    // An answer on another connection, asked after the first half was sent: the loop has read that half.
    assert.equal((await fetch(`http://127.0.0.1:${port}/-/healthy`)).status, 200);
    server.child.kill('SIGTERM');
    await server.line('stopping');
    await sleep(300);
  });
  assert.match(answer, /^HTTP\/1\.1 204 /, `${answer}\n${server.stderr()}`);
  const status = await server.stop();
  assert.equal(status.code, 0, server.stderr());

  const again = spawnServe({ dataDir });
  const againPort = portOf((await again.line('strata started')).httpAddress);
  const values = await (await fetch(`http://127.0.0.1:${againPort}/api/v1/label/__name__/values`)).json() as { data: string[] };
  assert.deepEqual(values.data, ['grace_in_flight']);
  await again.stop();
});
