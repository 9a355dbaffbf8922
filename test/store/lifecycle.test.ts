// SIGTERM stops gracefully: a Series stream in flight finishes, data is
// flushed, the exit code is 0; a restart on the same data directory serves
// the same data. Rules: issue 4 (SIGTERM), DESIGN.md "Data path".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rng } from '../support/series.js';
import { StoreClient, eq, re, grpc } from './support/client.js';
import { ALL_TIME, T0, codeName, seriesOk, write } from './support/calls.js';
import { rawSeries } from './support/raw-grpc.js';
import { assertSamplesEqual, decodeSeries, seriesOf, show, shown, writtenSamples, type DecodedSamples } from './support/series-check.js';
import { removeTempDirs, startStrata, stopAll, type StrataGrpc } from './support/strata-grpc.js';
import { encodeWriteRequest, samplesOf, type WriteSample } from './support/write-request.js';

const ARGS = ['--label', 'region="eu-west"'];
/** Big enough (~2 MiB of chunks) that the answer cannot sit in socket buffers while the client pauses. */
const N = 200_000;

let first: StrataGrpc;
let second: StrataGrpc | undefined;
let client: StoreClient;
let big: WriteSample[];
/** Every series answered before the stop, decoded. */
let before_: Map<string, DecodedSamples>;
let infoBefore: { min: string; labelSets: string[] };

async function snapshot(c: StoreClient): Promise<Map<string, DecodedSamples>> {
  const got = await seriesOk(c, { matchers: [re('__name__', 'm_life.*')] }, 60_000);
  return new Map(got.series.map((s) => [show(s.labels), decodeSeries(s)]));
}

async function infoOf(c: StoreClient): Promise<{ min: string; labelSets: string[] }> {
  const a = await c.info();
  assert.equal(a.code, 0, `Info answered ${codeName(a.code)}: ${a.details}`);
  return {
    min: a.response!.store!.min_time,
    labelSets: a.response!.label_sets.map((s) => show(s.labels)).sort(),
  };
}

before(async () => {
  first = await startStrata({ args: ARGS });
  client = new StoreClient(first.grpcAddress);
  const next = rng(11);
  big = samplesOf(N, T0, 1000n, () => (next() - 0.5) * 1e9);
  await write(client, { timeseries: [{ labels: [['__name__', 'm_life'], ['job', 'a']], samples: samplesOf(300, T0, 15_000n, (i) => i) }] });
  await write(client, {
    timeseries: [{ labels: [['__name__', 'm_life'], ['job', 'b']], samples: samplesOf(5, T0, 15_000n, (i) => -i) }],
    tenant: 'team-a',
  });
  // Last: it spans many hours, and the head then closes the early ranges for writing.
  await write(client, { timeseries: [{ labels: [['__name__', 'm_life_big']], samples: big }] });
  before_ = await snapshot(client);
  infoBefore = await infoOf(client);
  assert.equal(before_.size, 3);
});

after(async () => {
  client?.close();
  await stopAll();
  removeTempDirs();
});

describe('SIGTERM and restart', () => {
  test('SIGTERM lets a Series stream in flight finish, then exits 0', async () => {
    // A bare HTTP/2 stream that is not read: the server blocks on flow control with most of the
    // ~2 MiB answer unsent, so the call is truly in flight when SIGTERM comes.
    const call = rawSeries(first.grpcAddress, { ...ALL_TIME, matchers: [eq('__name__', 'm_life_big')] }, 60_000);
    try {
      await call.started;
      await new Promise((r) => setTimeout(r, 200));
      first.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 1_000));
      assert.equal(first.child.exitCode, null, `the process exited with a call in flight:\n${first.stderr().slice(-2000)}`);
      const answer = await call.readAll();
      assert.equal(answer.code, grpc.status.OK, `the stream in flight ended ${codeName(answer.code)}: ${answer.details}`);
      const series = seriesOf(answer.frames);
      assert.equal(series.length, 1);
      assertSamplesEqual(decodeSeries(series[0]!), writtenSamples(big), 'm_life_big streamed across SIGTERM');
    } finally {
      call.close();
    }
    const exit = await first.exit(15_000);
    assert.deepEqual(exit, { code: 0, signal: null }, `exit after SIGTERM:\n${first.stderr().slice(-2000)}`);
  });

  test('a restart on the same data directory serves the same data', async () => {
    assert.notEqual(first.child.exitCode, null, 'the first process still runs');
    second = await startStrata({ dataDir: first.dataDir, args: ARGS });
    const c = new StoreClient(second.grpcAddress);
    try {
      const after_ = await snapshot(c);
      assert.deepEqual([...after_.keys()], [...before_.keys()]);
      for (const [key, samples] of before_) assertSamplesEqual(after_.get(key)!, samples, `${key} after restart`);
      assert.deepEqual(await infoOf(c), infoBefore);
      // And it still takes writes after the newest sample.
      await write(c, { timeseries: [{ labels: [['__name__', 'm_life'], ['job', 'a']], samples: [{ t: T0 + BigInt(N) * 1000n, v: 1 }] }] });
      const got = await seriesOk(c, { matchers: [eq('__name__', 'm_life'), eq('job', 'a')] });
      assert.deepEqual(shown(got.series).length, 1);
      assert.equal(decodeSeries(got.series[0]!).t.length, 301);
    } finally {
      c.close();
    }
  });

  test('a RemoteWrite in flight at SIGTERM is answered OK and kept, or refused UNAVAILABLE and not stored', async (t) => {
    assert.ok(second, 'no second process');
    const c = new StoreClient(second.grpcAddress);
    const samples = samplesOf(N, T0 + 3n * 10n ** 8n, 1000n, (i) => i);
    let result: { code: number; details: string };
    try {
      const pending = c.remoteWrite(encodeWriteRequest({ timeseries: [{ labels: [['__name__', 'm_life_inflight']], samples }] }), 30_000);
      await new Promise((r) => setTimeout(r, 20));
      second.child.kill('SIGTERM');
      result = await pending;
    } finally {
      c.close();
    }
    const exit = await second.exit(15_000);
    assert.deepEqual(exit, { code: 0, signal: null }, `exit after SIGTERM:\n${second.stderr().slice(-2000)}`);
    t.diagnostic(`the write in flight answered ${codeName(result.code)} ${result.details}`);
    assert.ok(result.code === grpc.status.OK || result.code === grpc.status.UNAVAILABLE, `answered ${codeName(result.code)}: ${result.details}`);

    const third = await startStrata({ dataDir: first.dataDir, args: ARGS });
    const c3 = new StoreClient(third.grpcAddress);
    try {
      const got = (await seriesOk(c3, { matchers: [eq('__name__', 'm_life_inflight')] }, 60_000)).series;
      if (result.code === grpc.status.OK) {
        assert.equal(got.length, 1, 'an acknowledged write was lost');
        assertSamplesEqual(decodeSeries(got[0]!), writtenSamples(samples), 'm_life_inflight after restart');
      } else {
        assert.deepEqual(shown(got), [], 'a refused write was stored');
      }
      assert.deepEqual(await third.stop(), { code: 0, signal: null });
    } finally {
      c3.close();
    }
  });
});
