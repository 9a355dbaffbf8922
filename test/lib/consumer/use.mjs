// A program that embeds Strata, written as a user writes one: plain ESM
// JavaScript against the installed package (test/lib/package.test.ts
// installs the packed tarball and runs this with a data directory). It
// opens a store, writes, reads, serves on 127.0.0.1 and is queried over
// HTTP and the Store API, then closes; any assertion failing exits non-zero.
// The gRPC client is @grpc/grpc-js, a dependency of strata, loading the
// .proto files the package ships.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import * as strata from 'strata-tsdb';
import { ClosedError, InvalidArgumentError, SamplesRejectedError, Strata, StrataError } from 'strata-tsdb';

const dataDir = process.argv[2];
assert.ok(dataDir, 'usage: node use.mjs DATA_DIR');

const store = await Strata.open({ dataDir, workers: 1, grpcAddress: '127.0.0.1:0', externalLabels: { replica: 'a' }, retention: '1d' });
const now = Date.now();
const written = await store.append([
  { labels: { __name__: 'up', job: 'api' }, timestamps: [now - 1000, now], values: [1, 1] },
  { labels: [['__name__', 'up'], ['job', 'db']], timestamps: Float64Array.of(now), values: Float64Array.of(0) },
]);
assert.deepEqual(written, { samples: 3, histograms: 0 });

const selected = [];
for await (const s of store.select('up{job=~"api|db"}', { minTime: now - 60_000 })) selected.push(s);
assert.deepEqual(selected.map((s) => s.labels), [
  { __name__: 'up', job: 'api', replica: 'a', tenant_id: 'default-tenant' },
  { __name__: 'up', job: 'db', replica: 'a', tenant_id: 'default-tenant' },
]);
assert.deepEqual([...selected[0].timestamps], [now - 1000, now]);
const chunked = [];
for await (const s of store.select([{ name: 'job', value: 'db' }], { chunks: true })) chunked.push(s);
assert.equal(chunked.length, 1);
assert.equal(chunked[0].chunks[0].encoding, 'XOR');

// A native histogram (integer: bucket deltas), appended and selected back.
const histogram = {
  counterResetHint: 0, schema: 0, zeroThreshold: 1e-128, zeroCount: 1, count: 3, sum: 4.5,
  positiveSpans: [{ offset: 1, length: 2 }], positiveBuckets: [1, 0], negativeSpans: [], negativeBuckets: [],
};
assert.deepEqual(await store.append({ labels: { __name__: 'rpc_seconds', job: 'api' }, histograms: [{ timestamp: now, float: false, histogram }] }), { samples: 0, histograms: 1 });
const rpc = [];
for await (const s of store.select('rpc_seconds')) rpc.push(s);
assert.deepEqual(rpc[0].histograms, [{ timestamp: now, float: false, histogram }]);
assert.deepEqual(await store.labelValues('job'), ['api', 'db']);
assert.ok((await store.labelNames()).includes('replica'));

await assert.rejects(store.append({ labels: { __name__: 'up', job: '' }, timestamps: [now], values: [1] }), (err) => err instanceof InvalidArgumentError && err instanceof StrataError);
await assert.rejects(store.append({ labels: { __name__: 'up', job: 'api' }, timestamps: [now - 5000], values: [2] }), SamplesRejectedError);

// HTTP, started on a running store: the Prometheus API and the probes.
const { http, grpc: grpcAt } = await store.listen({ httpAddress: '127.0.0.1:0' });
assert.equal((await fetch(`http://${http.address}/-/ready`)).status, 200);
const values = await (await fetch(`http://${http.address}/api/v1/label/job/values`)).json();
assert.deepEqual(values.data, ['api', 'db']);

// The Store API over gRPC, with the package's own .proto files.
const protoDir = join(dirname(createRequire(import.meta.url).resolve('strata-tsdb/package.json')), 'proto');
const defs = protoLoader.loadSync('thanos/store/rpc.proto', { includeDirs: [protoDir], keepCase: true, longs: String, defaults: true, oneofs: true });
const StoreClient = grpc.loadPackageDefinition(defs).thanos.Store;
const client = new StoreClient(grpcAt.address, grpc.credentials.createInsecure());
const labelValues = await new Promise((resolve, reject) => {
  client.LabelValues({ label: 'job', start: String(now - 60_000), end: String(now) }, (err, res) => (err ? reject(err) : resolve(res)));
});
assert.deepEqual(labelValues.values, ['api', 'db']);
const frames = await new Promise((resolve, reject) => {
  const out = [];
  const call = client.Series({ min_time: String(now - 60_000), max_time: String(now), matchers: [{ type: 0, name: '__name__', value: 'up' }] });
  call.on('data', (f) => out.push(f));
  call.on('error', reject);
  call.on('end', () => resolve(out));
});
assert.deepEqual(frames.filter((f) => f.result === 'series').map((f) => f.series.labels.find((l) => l.name === 'job').value), ['api', 'db']);
client.close();

await store.close();
await store.close();
await assert.rejects(store.labelNames(), ClosedError);

console.log(JSON.stringify({ exports: Object.keys(strata).sort() }));
