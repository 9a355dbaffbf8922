// grpc.health.v1.Health as src/grpc/health.ts serves it, called by a client
// built from grpc-health-check's copy of health.proto (protobufjs encodes
// the messages: an encoder other than ours).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { Health, NOT_SERVING, SERVING } from '../../src/grpc/health.js';

const require = createRequire(import.meta.url);
const healthProto = (require('grpc-health-check') as { protoPath: string }).protoPath;
const defs = grpc.loadPackageDefinition(loadSync(healthProto, { keepCase: true, enums: String, defaults: true }));
type HealthClient = grpc.Client & Record<string, (...args: unknown[]) => unknown>;
const HealthClientCtor = (defs.grpc as grpc.GrpcObject & { health: { v1: { Health: grpc.ServiceClientConstructor } } }).health.v1.Health;

const server = new grpc.Server();
const health = new Health({ '': NOT_SERVING, 'thanos.Store': SERVING });
health.addToServer(server);
const port = await new Promise<number>((done, fail) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? fail(e) : done(p))));
const client = new HealthClientCtor(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as HealthClient;
after(() => {
  client.close();
  server.forceShutdown();
});

function check(service: string): Promise<{ code: number; status?: string; details?: string }> {
  return new Promise((done) => {
    client.check!({ service }, { deadline: Date.now() + 5000 }, (err: grpc.ServiceError | null, res?: { status: string }) => {
      done(err === null ? { code: 0, status: res!.status } : { code: err.code, details: err.details });
    });
  });
}

test('Check answers the status of a known service and of the server as a whole', async () => {
  assert.deepEqual(await check('thanos.Store'), { code: 0, status: 'SERVING' });
  assert.deepEqual(await check(''), { code: 0, status: 'NOT_SERVING' });
});

test('Check answers NOT_FOUND for a service it does not know', async () => {
  const a = await check('nope');
  assert.equal(a.code, grpc.status.NOT_FOUND);
  assert.match(a.details!, /nope/);
});

test('Watch sends the current status at once, then each change, until cancelled', async () => {
  const call = client.watch!({ service: 'later' }) as grpc.ClientReadableStream<{ status: string }>;
  const seen: string[] = [];
  const three = new Promise<void>((done) => {
    call.on('data', (m: { status: string }) => {
      seen.push(m.status);
      if (seen.length === 1) health.setStatus('later', SERVING);
      else if (seen.length === 2) health.setStatus('later', NOT_SERVING);
      else done();
    });
  });
  call.on('error', () => {});
  await three;
  call.cancel();
  assert.deepEqual(seen, ['SERVICE_UNKNOWN', 'SERVING', 'NOT_SERVING']);
});

test('List answers every service with its status', async () => {
  const res = await new Promise<{ statuses: Record<string, { status: string }> }>((done, fail) => {
    client.list!({}, (err: grpc.ServiceError | null, r: { statuses: Record<string, { status: string }> }) => (err ? fail(err) : done(r)));
  });
  assert.equal(res.statuses['thanos.Store']?.status, 'SERVING');
  assert.equal(res.statuses['']?.status, 'NOT_SERVING');
  assert.equal(res.statuses.later?.status, 'NOT_SERVING');
});
