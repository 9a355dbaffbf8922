// The decorators' rules that the acceptance suite cannot see from outside:
// panic recovery (a source's own fault becomes Internal, named, and ends
// the stream instead of crashing or hanging), every read let go on every
// path (complete, failed, cancelled), and the engine's read held from plan
// to close. (What the decorators answer is the acceptance suite's.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { LabelNamesRequest, LabelValuesRequest, SeriesRequest } from '../../src/gen/thanos/store/rpc.js';
import type { Db } from '../../src/db/db.js';
import { instantiateHeadWasm } from '../../src/wasm/head.js';
import { MatchType } from '../../src/index/index.js';
import { EngineSource } from '../../src/store/engine-source.js';
import { grpcStatusOf } from '../../src/errors/status.js';
import { limitExceeded } from '../../src/errors/errors.js';
import { ExternalLabels } from '../../src/store/external-labels.js';
import { serveStoreApi, type RunningGrpcServer } from '../../src/grpc/server.js';
import type { SeriesSink } from '../../src/store/series-sink.js';
import { storeApiOver, type StoreApiConfig } from '../../src/store/store-stack.js';
import type { SeriesSet, StoreSource } from '../../src/store/store-source.js';
import { batchBuilder, openSmallDb, tempDir } from '../support/db.js';
import { MemorySource } from './acceptance/memory-source.js';
import { StoreClient, eq } from './support/client.js';
import { ALL_TIME, T0 } from './support/calls.js';
import { samplesOf } from './support/write-request.js';

const wasm = instantiateHeadWasm();
const config: StoreApiConfig = {
  externalLabels: new ExternalLabels([['region', 'eu-west']]),
  replicaLabels: new Set(),
  tenantLabel: 'tenant_id',
  seriesLimit: 0,
  samplesLimit: 0,
};

/** 50 series of m, 2000 samples each (17 chunks), in memory. */
function memory(): MemorySource {
  const m = new MemorySource('tenant_id');
  for (let i = 0; i < 50; i++) m.add(['__name__', 'm', 'i', String(i).padStart(2, '0')], 'default-tenant', samplesOf(2000, T0, 1000n, (k) => k));
  return m;
}

type Fault = 'series' | 'next' | 'chunks' | 'labelNames' | 'labelValues' | 'info' | 'close';

/** A source over `inner` that counts its open sets and throws a TypeError where told (chunks: at the 10th series). */
class Faulty implements StoreSource {
  open = 0;
  closes = 0;

  constructor(private readonly inner: StoreSource, private readonly fault?: Fault, private readonly thrown: () => unknown = () => new TypeError('boom')) {}

  series(query: Parameters<StoreSource['series']>[0]): SeriesSet {
    if (this.fault === 'series') throw this.thrown();
    const set = this.inner.series(query);
    this.open++;
    let read = 0;
    return {
      next: async () => {
        if (this.fault === 'next') throw this.thrown();
        return set.next();
      },
      chunks: (s, arena) => {
        if (this.fault === 'chunks' && ++read === 10) throw this.thrown();
        return set.chunks(s, arena);
      },
      hasSurrogates: () => set.hasSurrogates(),
      close: () => {
        this.closes++;
        this.open--;
        set.close();
        if (this.fault === 'close') throw this.thrown();
      },
    };
  }

  labelNames(q: Parameters<StoreSource['labelNames']>[0]) {
    if (this.fault === 'labelNames') throw this.thrown();
    return this.inner.labelNames(q);
  }

  labelValues(q: Parameters<StoreSource['labelValues']>[0]) {
    if (this.fault === 'labelValues') return Promise.reject(this.thrown());
    return this.inner.labelValues(q);
  }

  info() {
    if (this.fault === 'info') throw this.thrown();
    return this.inner.info();
  }
}

class Sink implements SeriesSink {
  blocked = false;
  frames = 0;
  alloc(size: number): Buffer {
    return Buffer.allocUnsafe(size);
  }
  send(): void {
    this.frames++;
  }
  drained(): Promise<void> {
    return Promise.resolve();
  }
  flush(): void {}
}

const seriesRequest = SeriesRequest.fromPartial({ minTime: -(2n ** 63n), maxTime: 2n ** 63n - 1n, matchers: [{ type: 0, name: '__name__', value: 'm' }] });
const all = LabelNamesRequest.fromPartial({ start: -(2n ** 63n), end: 2n ** 63n - 1n });

async function outcome(p: Promise<unknown>): Promise<{ code: grpc.status; message: string; kind?: string }> {
  try {
    await p;
    return { code: grpc.status.OK, message: '' };
  } catch (err) {
    return { code: grpcStatusOf(err), message: (err as Error).message, kind: (err as { kind?: string }).kind };
  }
}

describe('panic recovery', () => {
  for (const [fault, call] of [
    ['series', 'Series'], ['next', 'Series (reading series)'], ['chunks', 'Series (reading chunks)'], ['close', 'Series (closing)'],
  ] as const) {
    test(`a TypeError thrown by the source's ${fault}() ends Series with Internal naming the call; the set is closed once`, async () => {
      const source = new Faulty(memory(), fault);
      const sink = new Sink();
      const o = await outcome(storeApiOver(source, config, wasm, 'faulty source', 'receive').series(seriesRequest, sink));
      assert.equal(o.code, grpc.status.INTERNAL);
      assert.equal(o.kind, 'internal');
      assert.equal(o.message, `${call}: the faulty source failed: boom`);
      assert.equal(source.open, 0, 'a set was left open');
      assert.equal(source.closes, fault === 'series' ? 0 : 1);
      if (fault === 'chunks') assert.equal(sink.frames, 9, 'the frames before the fault were sent');
    });
  }

  for (const fault of ['labelNames', 'labelValues', 'info'] as const) {
    test(`a TypeError thrown by the source's ${fault}() is Internal naming the call`, async () => {
      const api = storeApiOver(new Faulty(memory(), fault), config, wasm, 'faulty source', 'receive');
      const run = { labelNames: () => api.labelNames(all), labelValues: () => api.labelValues(LabelValuesRequest.fromPartial({ ...all, label: 'i' })), info: () => api.infoService() }[fault];
      const o = await outcome(run());
      assert.equal(o.code, grpc.status.INTERNAL);
      assert.equal(o.message, `${fault === 'info' ? 'Info' : fault === 'labelNames' ? 'LabelNames' : 'LabelValues'}: the faulty source failed: boom`);
    });
  }

  test('a thrown non-Error is Internal too, and says what was thrown', async () => {
    const o = await outcome(storeApiOver(new Faulty(memory(), 'next', () => 'a string'), config, wasm, 'faulty source', 'receive').series(seriesRequest, new Sink()));
    assert.equal(o.code, grpc.status.INTERNAL);
    assert.equal(o.message, 'Series (reading series): the faulty source failed: non-error value thrown: a string');
  });

  test("a source's typed errors pass unchanged (a limit stays ResourceExhausted)", async () => {
    const source = new Faulty(memory(), 'next', () => limitExceeded('too much for this source'));
    const o = await outcome(storeApiOver(source, config, wasm, 'faulty source', 'receive').series(seriesRequest, new Sink()));
    assert.equal(o.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.equal(o.message, 'too much for this source');
    assert.equal(source.open, 0);
  });
});

describe('reads are let go on every path', () => {
  test('a complete answer, a limit refused and a sink gone each close the set once', async () => {
    const ok = new Faulty(memory());
    await storeApiOver(ok, config, wasm, 'memory', 'receive').series(seriesRequest, new Sink());
    assert.deepEqual([ok.open, ok.closes], [0, 1]);

    const limited = new Faulty(memory());
    const o = await outcome(storeApiOver(limited, { ...config, seriesLimit: 3 }, wasm, 'memory', 'receive').series(seriesRequest, new Sink()));
    assert.equal(o.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.deepEqual([limited.open, limited.closes], [0, 1]);

    const gone = new Faulty(memory());
    const sink = new Sink();
    sink.blocked = true;
    sink.drained = () => Promise.reject(Object.assign(new Error('gone'), { kind: 'cancelled' }));
    const c = await outcome(storeApiOver(gone, config, wasm, 'memory', 'receive').series(seriesRequest, sink));
    assert.equal(c.code, grpc.status.CANCELLED);
    assert.deepEqual([gone.open, gone.closes], [0, 1]);
  });

  test('the engine source holds db.holdRead() from the plan until the set is closed', async () => {
    const { dir, remove } = tempDir();
    const db = await openSmallDb(dir);
    try {
      const b = batchBuilder(['tenant_id', 'default-tenant']);
      b.add(['__name__', 'm'], BigInt64Array.of(1000n, 2000n), Float64Array.of(1, 2));
      db.append(b.finish());
      let held = 0;
      const spy = Object.create(db) as Db;
      spy.holdRead = () => {
        held++;
        const release = db.holdRead();
        return () => {
          held--;
          release();
        };
      };
      const set = new EngineSource(spy, 'tenant_id').series({
        matchers: [{ type: MatchType.EQ, name: '__name__', value: 'm' }], minT: -Infinity, maxT: Infinity, skipChunks: false, withoutReplicaLabels: [], shard: undefined, limit: 0,
      });
      assert.equal(held, 1, 'no read held while the set is open');
      assert.equal((await set.next())!.length, 1);
      assert.equal(held, 1);
      set.close();
      set.close();
      assert.equal(held, 0, 'the read was not let go (or let go twice)');
    } finally {
      await db.close();
      remove();
    }
  });
});

describe('over gRPC', () => {
  let server: RunningGrpcServer;
  let client: StoreClient;
  const errors: object[] = [];
  let source: Faulty;
  let next: Faulty | undefined;
  const dispatch: StoreSource = {
    series: (q) => (next ?? source).series(q),
    labelNames: (q) => (next ?? source).labelNames(q),
    labelValues: (q) => (next ?? source).labelValues(q),
    info: () => (next ?? source).info(),
  };

  before(async () => {
    source = new Faulty(memory());
    const log = { info: () => {}, warn: () => {}, error: (o: object) => errors.push(o) };
    server = await serveStoreApi(storeApiOver(dispatch, config, wasm, 'test source', 'receive'), { host: '127.0.0.1', port: 0, maxRecvBytes: 1 << 20, log });
    client = new StoreClient(`127.0.0.1:${server.port}`);
  });

  after(async () => {
    client?.close();
    await server?.close(0);
  });

  test('a source fault mid-stream ends the call INTERNAL after the frames sent, is logged, and the server goes on serving', async () => {
    next = new Faulty(memory(), 'chunks');
    const a = await client.series({ ...ALL_TIME, matchers: [eq('__name__', 'm')] });
    assert.equal(a.code, grpc.status.INTERNAL);
    assert.equal(a.details, 'Series (reading chunks): the test source failed: boom');
    assert.ok(errors.length >= 1, 'the fault was not logged');
    assert.equal(next.open, 0);
    next = undefined;
    const b = await client.series({ ...ALL_TIME, matchers: [eq('__name__', 'm')] });
    assert.equal(b.code, grpc.status.OK);
    assert.equal(b.frames.length, 50);
  });

  test('a client that cancels mid-answer lets the read go', async () => {
    next = new Faulty(memory());
    const watched = next;
    await client.series({ ...ALL_TIME, matchers: [eq('__name__', 'm')] }, {
      onCall: (c) => {
        c.pause();
        setTimeout(() => c.cancel(), 200);
      },
    });
    const deadline = Date.now() + 5_000;
    while (watched.open > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(watched.open, 0, 'the cancelled read is still open');
    next = undefined;
  });
});
