/**
 * The library's API in process: Strata.open, append, select, label names
 * and values, listen, close, and the typed errors each call fails with.
 * Imports the package entry (src/index.ts) as a user imports 'strata-tsdb'.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  ClosedError, DataDirInUseError, InvalidArgumentError, LimitError, ListenError, SamplesRejectedError, Strata, StrataError,
  type SeriesChunks, type SeriesSamples,
} from '../../src/index.js';
import { StoreClient, eq } from '../store/support/client.js';

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'strata-lib-'));
  dirs.push(dir);
  return join(dir, 'data');
}
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Small and quiet: one worker, no fsync timer worth waiting for. */
function open(extra: Partial<Parameters<typeof Strata.open>[0]> = {}): Promise<Strata> {
  return Strata.open({ dataDir: dataDir(), workers: 1, ...extra });
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const up = (job: string, ts: number[], vs: number[]) => ({ labels: { __name__: 'up', job }, timestamps: ts, values: vs });

describe('Strata', () => {
  let store: Strata;
  before(async () => {
    store = await open({ externalLabels: { cluster: 'eu-1' } });
    await store.append([up('api', [1000, 2000, 3000], [1, 0, 1]), up('db', [1000, 2000], [5, 6])]);
    await store.append({ labels: [['__name__', 'load'], ['host', 'a']], timestamps: BigInt64Array.of(1500n), values: Float64Array.of(0.5) }, { tenant: 'team-b' });
  });
  after(() => store.close());

  test('selects by a PromQL selector, with samples in the range and the Store API\'s labels', async () => {
    const got = await collect(store.select('up{job="api"}', { minTime: 1500, maxTime: 3000 }));
    assert.equal(got.length, 1);
    assert.deepEqual(got[0]!.labels, { __name__: 'up', cluster: 'eu-1', job: 'api', tenant_id: 'default-tenant' });
    assert.deepEqual([...got[0]!.timestamps], [2000, 3000]);
    assert.deepEqual([...got[0]!.values], [0, 1]);
  });

  test('selects by matcher objects, sorted by labels', async () => {
    const got = await collect(store.select([{ name: '__name__', value: 'up' }, { name: 'job', type: '=~', value: 'api|db' }]));
    assert.deepEqual(got.map((s) => s.labels.job), ['api', 'db']);
    assert.deepEqual([...got[1]!.values], [5, 6]);
  });

  test('selects raw chunks on request', async () => {
    const got: SeriesChunks[] = await collect(store.select('up{job="db"}', { chunks: true }));
    assert.equal(got.length, 1);
    const [chunk] = got[0]!.chunks;
    assert.equal(chunk!.encoding, 'XOR');
    assert.deepEqual([chunk!.minTime, chunk!.maxTime], [1000, 2000]);
    assert.equal((chunk!.data[0]! << 8) | chunk!.data[1]!, 2, 'the chunk header counts two samples');
  });

  test('appends for a tenant and selects by tenant', async () => {
    const got = await collect(store.select(undefined, { tenant: 'team-b' }));
    assert.deepEqual(got.map((s) => s.labels), [{ __name__: 'load', cluster: 'eu-1', host: 'a', tenant_id: 'team-b' }]);
    assert.deepEqual([...got[0]!.timestamps], [1500]);
  });

  test('answers label names and values, with matchers and range', async () => {
    assert.deepEqual(await store.labelNames(), ['__name__', 'cluster', 'host', 'job', 'tenant_id']);
    assert.deepEqual(await store.labelNames({ selector: 'up' }), ['__name__', 'cluster', 'job', 'tenant_id']);
    assert.deepEqual(await store.labelValues('job'), ['api', 'db']);
    assert.deepEqual(await store.labelValues('job', { selector: '{__name__="up", job!="api"}' }), ['db']);
    assert.deepEqual(await store.labelValues('__name__', { maxTime: 999 }), []);
    assert.deepEqual(await store.labelValues('__name__', { tenant: 'team-b' }), ['load']);
  });

  test('keeps a stale marker\'s NaN bits through append and select', async () => {
    const stale = new Float64Array(1);
    new DataView(stale.buffer).setBigUint64(0, 0x7ff0000000000002n, true);
    await store.append({ labels: { __name__: 'stale_test' }, timestamps: [5000], values: stale });
    const [s] = await collect(store.select('stale_test'));
    assert.equal(new DataView(s!.values.buffer).getBigUint64(0, true), 0x7ff0000000000002n);
  });

  test('reports what it holds', () => {
    const stats = store.stats();
    assert.ok(stats.headSeries >= 3);
    assert.equal(stats.minTime, 1000);
  });

  test('refuses out-of-order samples with SamplesRejectedError, storing the rest', async () => {
    const err = await store.append([up('api', [500], [9]), up('new', [4000], [1])]).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof SamplesRejectedError, String(err));
    assert.equal(err.code, 'samples-rejected');
    assert.equal(err.rejected.outOfOrder + err.rejected.tooOld, 1);
    assert.equal(err.written, 1);
    assert.equal((await collect(store.select('up{job="new"}'))).length, 1);
  });

  test('refuses invalid label sets with InvalidArgumentError naming the series', async () => {
    await assert.rejects(store.append({ labels: { __name__: 'x', job: '' }, timestamps: [1], values: [1] }), (err: unknown) => {
      assert.ok(err instanceof InvalidArgumentError);
      assert.match(err.message, /empty value for label "job"/);
      return true;
    });
    await assert.rejects(store.append({ labels: [['a', '1'], ['a', '2']], timestamps: [1], values: [1] }), /duplicate label name "a"/);
    await assert.rejects(store.append({ labels: { a: '1' }, timestamps: [1, 2], values: [1] }), InvalidArgumentError);
    await assert.rejects(store.append({ labels: { a: '1' }, timestamps: [1.5], values: [1] }), /whole number of milliseconds/);
  });

  test('refuses a bad selector or matcher with InvalidArgumentError from next()', async () => {
    await assert.rejects(collect(store.select('up{')), InvalidArgumentError);
    await assert.rejects(collect(store.select([{ name: 'job', type: '=~', value: '(' }])), InvalidArgumentError);
    await assert.rejects(collect(store.select([{ name: 'job', type: '~' as '=', value: 'a' }])), /not one of = != =~ !~/);
    await assert.rejects(store.labelValues(''), InvalidArgumentError);
  });

  test('a loop broken early lets go of its read', async () => {
    for await (const s of store.select('up')) {
      assert.ok(s.labels.job);
      break;
    }
    assert.equal((await collect(store.select('up'))).length, 3);
  });
});

describe('Strata.open', () => {
  test('refuses unknown and invalid options, naming them', async () => {
    await assert.rejects(Strata.open({ dataDir: dataDir(), retension: '1d' } as never), /unknown option 'retension'/);
    await assert.rejects(Strata.open({ dataDir: dataDir(), retention: 'soon' }), (err: unknown) => err instanceof InvalidArgumentError && /^retention:/.test(err.message));
    await assert.rejects(Strata.open({ dataDir: dataDir(), grpcAddress: 'nowhere' }), /grpcAddress: 'nowhere' is not HOST:PORT/);
    await assert.rejects(Strata.open({ dataDir: dataDir(), retentionSize: '5 GB' }), /retentionSize: '5 GB' is not a size/);
    await assert.rejects(Strata.open({ dataDir: dataDir(), objstoreConfig: { type: 'GCS', config: {} } }), /objstoreConfig: .*GCS is not supported/);
    await assert.rejects(Strata.open({ dataDir: '' }), InvalidArgumentError);
  });

  test('takes durations and sizes as numbers or in the flags\' notation', async () => {
    const store = await open({ retention: '2h', retentionSize: '1GB', walFsyncInterval: 0, tsdbOutOfOrderTimeWindow: 600_000 });
    await store.append(up('a', [1000], [1]));
    await store.append(up('a', [900], [1]));  // within the out-of-order window
    const [s] = await collect(store.select('up'));
    assert.deepEqual([...s!.timestamps], [900, 1000]);
    await store.close();
  });

  test('refuses a data directory open already in this process', async () => {
    const dir = dataDir();
    const a = await Strata.open({ dataDir: dir, workers: 1 });
    await assert.rejects(Strata.open({ dataDir: dir, workers: 1 }), DataDirInUseError);
    await a.close();
    const b = await Strata.open({ dataDir: dir, workers: 1 });
    await b.close();
  });

  test('keeps what was appended across close and open (the head flushed)', async () => {
    const dir = dataDir();
    const a = await Strata.open({ dataDir: dir, workers: 1 });
    await a.append(up('api', [1000, 2000], [1, 2]));
    await a.close();
    const b = await Strata.open({ dataDir: dir, workers: 1 });
    const [s] = await collect(b.select('up'));
    assert.deepEqual([...s!.values], [1, 2]);
    await b.close();
  });

  test('applies the read limits to select as the Store API does', async () => {
    const store = await open({ storeLimitsRequestSeries: 1 });
    await store.append([up('a', [1], [1]), up('b', [1], [1])]);
    await assert.rejects(collect(store.select('up')), (err: unknown) => err instanceof LimitError && /series limit/.test(err.message));
    assert.equal((await collect(store.select('up{job="a"}'))).length, 1);
    await store.close();
  });
});

describe('close', () => {
  test('is graceful and idempotent; every call after it fails with ClosedError', async () => {
    const store = await open();
    await store.append(up('a', [1], [1]));
    const first = store.close();
    assert.equal(store.close(), first);
    await first;
    assert.equal(store.closed, true);
    await assert.rejects(store.append(up('a', [2], [1])), ClosedError);
    await assert.rejects(collect(store.select('up')), ClosedError);
    await assert.rejects(store.labelNames(), ClosedError);
    await assert.rejects(store.labelValues('job'), ClosedError);
    await assert.rejects(store.listen({ httpAddress: '127.0.0.1:0' }), ClosedError);
    await assert.rejects(store.sync(), ClosedError);
    assert.throws(() => store.stats(), ClosedError);
    await store.close();
  });

  test('waits for appends in flight and ends selections being read', async () => {
    const store = await open();
    await store.append([up('a', [1], [1]), up('b', [1], [1])]);
    const reading = store.select('up')[Symbol.asyncIterator]();
    assert.ok(!(await reading.next()).done);
    const writing = store.append(up('c', [1], [1]));
    await store.close();
    assert.deepEqual(await writing, { samples: 1, histograms: 0 });
    await assert.rejects(reading.next(), ClosedError);
  });
});

describe('listen', () => {
  test('serves the Store API over gRPC and HTTP on 127.0.0.1, from open or later', async () => {
    const store = await open({ grpcAddress: '127.0.0.1:0', externalLabels: [['replica', 'a']] });
    await store.append(up('api', [1000], [1]));
    const grpc = store.listening.grpc!;
    assert.ok(grpc.port > 0);
    assert.equal(grpc.address, `127.0.0.1:${grpc.port}`);
    const client = new StoreClient(grpc.address);
    try {
      const answer = await client.series({ min_time: '0', max_time: '5000', matchers: [eq('__name__', 'up')] });
      assert.equal(answer.code, 0, answer.details);
      const labels = answer.frames.flatMap((f) => f.series?.labels ?? []);
      assert.deepEqual(labels.map((l) => `${l.name}=${l.value}`), ['__name__=up', 'job=api', 'replica=a', 'tenant_id=default-tenant']);
    } finally {
      client.close();
    }
    await assert.rejects(store.listen({ grpcAddress: '127.0.0.1:0' }), /gRPC listens already/);
    const { http } = await store.listen({ httpAddress: '127.0.0.1:0' });
    assert.equal((await fetch(`http://${http!.address}/-/ready`)).status, 200);
    const names = await (await fetch(`http://${http!.address}/api/v1/label/job/values`)).json() as { data: string[] };
    assert.deepEqual(names.data, ['api']);
    await store.close();
    await assert.rejects(fetch(`http://${http!.address}/-/ready`));
  });

  test('fails with ListenError on a taken port and releases the data directory', async () => {
    const a = await open({ httpAddress: '127.0.0.1:0' });
    const dir = dataDir();
    await assert.rejects(Strata.open({ dataDir: dir, workers: 1, httpAddress: a.listening.http!.address }), (err: unknown) => {
      assert.ok(err instanceof ListenError && err instanceof StrataError, String(err));
      return true;
    });
    await assert.rejects(Strata.open({ dataDir: dir, workers: 1, grpcAddress: a.listening.http!.address }), ListenError);
    const b = await Strata.open({ dataDir: dir, workers: 1 });
    await b.close();
    await a.close();
  });
});

// Type-level: select's result follows the chunks option.
void (async (s: Strata) => {
  const samples: AsyncIterableIterator<SeriesSamples> = s.select('up');
  const chunks: AsyncIterableIterator<SeriesChunks> = s.select('up', { chunks: true });
  return [samples, chunks];
});
