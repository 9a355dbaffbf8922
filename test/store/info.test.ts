// What a Thanos client finds before it calls the Store API: gRPC health
// and server reflection (grpcurl without proto files). Info itself, before
// and after data, is in the acceptance suite (acceptance/groups/info.ts).
// Rules: issue 4.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { StoreClient, grpc } from './support/client.js';
import { codeName } from './support/calls.js';
import { removeTempDirs, startStrata, stopAll, type StrataGrpc } from './support/strata-grpc.js';

let strata: StrataGrpc;
let client: StoreClient;

before(async () => {
  strata = await startStrata({ args: ['--label', 'region="eu-west"'] });
  client = new StoreClient(strata.grpcAddress);
});

after(async () => {
  client?.close();
  await stopAll();
  removeTempDirs();
});

describe('health and reflection', () => {
  test('grpc.health.v1.Health/Check answers SERVING once started', async () => {
    const deadline = Date.now() + 5_000;
    let a = await client.health();
    while (a.response?.status !== 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      a = await client.health();
    }
    assert.equal(a.code, grpc.status.OK, `Health/Check answered ${codeName(a.code)}: ${a.details}`);
    assert.equal(a.response!.status, 1, 'not SERVING');
  });

  before(async () => {
    // Reflection is added a moment after the server starts (src/grpc/reflection.ts): wait for it, 10 s at most.
    const deadline = Date.now() + 10_000;
    while ((await client.reflect('v1', { host: '', list_services: '*' })).code === grpc.status.UNIMPLEMENTED && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  async function reflectedServices(): Promise<Record<string, string[] | string>> {
    const listed: Record<string, string[] | string> = {};
    for (const version of ['v1', 'v1alpha'] as const) {
      const a = await client.reflect(version, { host: '', list_services: '*' });
      listed[version] = a.code === 0 ? (a.response!.list_services_response?.service ?? []).map((s) => s.name) : `${codeName(a.code)}: ${a.details}`;
    }
    return listed;
  }

  for (const want of [
    ['thanos.Store', 'thanos.WriteableStore', 'thanos.info.Info'],
    // grpcurl calls health through reflection too (`grpcurl HOST grpc.health.v1.Health/Check`), as with any Go server.
    ['grpc.health.v1.Health'],
  ]) {
    test(`server reflection (v1 or v1alpha) lists ${want.join(', ')}`, async () => {
      const listed = await reflectedServices();
      const ok = Object.values(listed).some((names) => Array.isArray(names) && want.every((w) => names.includes(w)));
      assert.ok(ok, `reflection does not list ${want.join(', ')}: ${JSON.stringify(listed)}`);
    });
  }

  test('server reflection serves the file descriptors of thanos.Store (what grpcurl needs)', async () => {
    const answers: string[] = [];
    for (const version of ['v1', 'v1alpha'] as const) {
      const a = await client.reflect(version, { host: '', file_containing_symbol: 'thanos.Store' });
      const files = a.response?.file_descriptor_response?.file_descriptor_proto ?? [];
      if (a.code === 0 && files.length > 0 && files.some((f) => f.includes(Buffer.from('thanos.Store')) || f.includes(Buffer.from('Series')))) return;
      answers.push(`${version}: ${codeName(a.code)} ${a.details} ${files.length} files ${JSON.stringify(a.response?.error_response ?? null)}`);
    }
    assert.fail(`no file descriptor for thanos.Store: ${answers.join('; ')}`);
  });
});
