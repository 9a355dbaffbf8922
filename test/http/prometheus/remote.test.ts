// Prometheus remote write and remote read over HTTP, black box: a `strata
// serve` process written to and read back as a Prometheus would (WIRE.md
// "Prometheus remote write and read over HTTP", "Tenants", "Stale markers").
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { compressSync } from 'snappy';
import { assertProblem } from '../support/problem.js';
import {
  STALE, ReadRequest_ResponseType as RT, bitsOf, chunkSamples, decodeFrames, decodeReadResponse, postRead, postWrite,
  readRequestBody, samples, show, writeRequestBytes, type AnsweredSeries, type Labels, type ReadQuery, type Sample, type Series,
} from './support/prom-wire.js';
import { removeTempDirs, serve, stopAll, type Served } from './support/serve.js';

const MAX_BODY = 256 * 1024;
const T0 = 1_700_000_000_000;
/** After rt_long (44 h from T0): suites that write later start here, as a store's time only moves forward. */
const LATER = T0 + 48 * 3_600_000;
const STEP = 15_000;
const EQ = 0;
const NEQ = 1;
const RE = 2;
const NRE = 3;
const ALL = { start: -8.64e15, end: 8.64e15 };

let strata: Served;

before(async () => {
  strata = await serve({ args: ['--http-max-body-bytes', String(MAX_BODY)] });
});

after(async () => {
  await stopAll();
  removeTempDirs();
});

/** Special values, each as raw bits: the stale marker, other NaNs, infinities, signed zeros, extremes. */
const SPECIALS = [STALE, 0x7ff8000000000001n, bitsOf(NaN), bitsOf(Infinity), bitsOf(-Infinity), bitsOf(-0), bitsOf(0), bitsOf(Number.MIN_VALUE), bitsOf(-Number.MAX_VALUE)];

function valueAt(i: number): bigint {
  return i % 29 === 3 ? SPECIALS[i % SPECIALS.length]! : bitsOf(Math.sin(i) * 1e3 + i);
}

function seriesOf(name: string, extra: Labels, n: number, t0 = T0): Series {
  return { labels: [['__name__', name], ...extra], samples: samples(n, t0, STEP, valueAt) };
}

const eq = (name: string): ReadQuery['matchers'] => [[EQ, '__name__', name]];

function sameSamples(got: readonly Sample[], want: readonly Sample[], what: string): void {
  assert.equal(got.length, want.length, `${what}: sample count`);
  for (let i = 0; i < want.length; i++) {
    assert.equal(got[i]!.t, want[i]!.t, `${what}: timestamp of sample ${i}`);
    assert.equal(got[i]!.bits, want[i]!.bits, `${what}: value bits of sample ${i} (0x${got[i]!.bits.toString(16)} vs 0x${want[i]!.bits.toString(16)})`);
  }
}

async function readSamples(queries: ReadQuery[], tenant?: string): Promise<AnsweredSeries[][]> {
  const a = await postRead(strata.base, queries, { types: [RT.SAMPLES], ...(tenant === undefined ? {} : { tenant }) });
  assert.equal(a.status, 200, a.body.toString());
  assert.equal(a.headers.get('content-type'), 'application/x-protobuf');
  assert.equal(a.headers.get('content-encoding'), 'snappy');
  return decodeReadResponse(a.body);
}

async function readChunks(queries: ReadQuery[], tenant?: string) {
  const a = await postRead(strata.base, queries, { types: [RT.STREAMED_XOR_CHUNKS, RT.SAMPLES], ...(tenant === undefined ? {} : { tenant }) });
  assert.equal(a.status, 200, a.body.toString());
  assert.equal(a.headers.get('content-type'), 'application/x-streamed-protobuf; proto=prometheus.ChunkedReadResponse');
  return decodeFrames(a.body);
}

async function written(series: Series[], opts: Parameters<typeof postWrite>[2] = {}): Promise<void> {
  const a = await postWrite(strata.base, series, opts);
  assert.equal(a.status, 204, a.text);
}

describe('remote write, then remote read', () => {
  const three = ['a', 'b', 'c'].map((job, j) => seriesOf('rt_roundtrip', [['instance', `h${j}`], ['job', job]], 300, T0 + j));

  before(() => written(three));

  test('SAMPLES answers the series as written, every value bit for bit (stale marker included)', async () => {
    const [result] = await readSamples([{ matchers: eq('rt_roundtrip'), ...ALL }]);
    assert.equal(result!.length, 3);
    result!.forEach((s, j) => {
      assert.deepEqual(s.labels, three[j]!.labels, 'labels as written, without the tenant label');
      sameSamples(s.samples, three[j]!.samples, show(three[j]!.labels));
    });
    assert.ok(result!.some((s) => s.samples.some((x) => x.bits === STALE)), 'the stale marker is in the answer');
  });

  test('STREAMED_XOR_CHUNKS answers one series per frame, XOR chunks (type 1) that decode to the samples written', async () => {
    const frames = await readChunks([{ matchers: eq('rt_roundtrip'), ...ALL }]);
    assert.equal(frames.length, 3, '300 samples a series fit one frame');
    frames.forEach((f, j) => {
      assert.equal(f.seriesInFrame, 1);
      assert.equal(f.queryIndex, 0);
      assert.deepEqual(f.labels, three[j]!.labels);
      assert.ok(f.chunks.length >= 2, '300 samples make more than one chunk');
      const all: Sample[] = [];
      for (const c of f.chunks) {
        assert.equal(c.type, 1, 'Prometheus XOR is 1 in this message');
        const got = chunkSamples(c.data);
        assert.equal(c.minT, got[0]!.t, 'min_time_ms is the chunk\'s first sample');
        assert.equal(c.maxT, got[got.length - 1]!.t, 'max_time_ms is the chunk\'s last sample');
        all.push(...got);
      }
      sameSamples(all, three[j]!.samples, show(three[j]!.labels));
    });
  });

  test('an answer type the client lists first wins; SAMPLES when it lists none', async () => {
    const q = [{ matchers: eq('rt_roundtrip'), ...ALL }];
    const none = await postRead(strata.base, q, { types: [] });
    assert.equal(none.headers.get('content-type'), 'application/x-protobuf');
    const samplesFirst = await postRead(strata.base, q, { types: [RT.SAMPLES, RT.STREAMED_XOR_CHUNKS] });
    assert.equal(samplesFirst.headers.get('content-type'), 'application/x-protobuf');
    const unknownFirst = await postRead(strata.base, q, { types: [7, RT.STREAMED_XOR_CHUNKS] });
    assert.match(unknownFirst.headers.get('content-type') ?? '', /x-streamed-protobuf/);
    const onlyUnknown = await postRead(strata.base, q, { types: [7] });
    assert.equal(onlyUnknown.status, 400);
  });

  test('SAMPLES keeps the samples in the range; chunks overlapping it are streamed whole', async () => {
    const from = T0 + 100 * STEP;
    const to = T0 + 150 * STEP;
    const [result] = await readSamples([{ matchers: [[EQ, '__name__', 'rt_roundtrip'], [EQ, 'job', 'a']], start: from, end: to }]);
    assert.equal(result!.length, 1);
    sameSamples(result![0]!.samples, three[0]!.samples.slice(100, 151), 'in range');
    const frames = await readChunks([{ matchers: [[EQ, '__name__', 'rt_roundtrip'], [EQ, 'job', 'a']], start: from, end: to }]);
    assert.equal(frames.length, 1);
    for (const c of frames[0]!.chunks) assert.ok(c.maxT >= from && c.minT <= to, 'only chunks overlapping the range');
    const got = frames[0]!.chunks.flatMap((c) => chunkSamples(c.data));
    assert.ok(got[0]!.t <= from && got[got.length - 1]!.t >= to, 'chunks are not trimmed');
    const outside = await readSamples([{ matchers: eq('rt_roundtrip'), start: 0, end: T0 - 1 }]);
    assert.deepEqual(outside, [[]]);
  });

  test('several queries: results in order, frames carrying query_index', async () => {
    const queries: ReadQuery[] = [
      { matchers: [[EQ, '__name__', 'rt_roundtrip'], [EQ, 'job', 'c']], ...ALL },
      { matchers: [[EQ, '__name__', 'nothing_here']], ...ALL },
      { matchers: [[EQ, '__name__', 'rt_roundtrip'], [RE, 'job', 'a|b']], ...ALL },
    ];
    const results = await readSamples(queries);
    assert.deepEqual(results.map((r) => r.map((s) => s.labels.find(([n]) => n === 'job')![1])), [['c'], [], ['a', 'b']]);
    const frames = await readChunks(queries);
    assert.deepEqual(frames.map((f) => [f.queryIndex, f.labels.find(([n]) => n === 'job')![1]]), [[0, 'c'], [2, 'a'], [2, 'b']]);
  });

  test('matchers =, !=, =~, !~ select as in Prometheus (fully anchored; empty matches absent labels)', async () => {
    const jobs = async (matchers: ReadQuery['matchers']) =>
      (await readSamples([{ matchers: [[EQ, '__name__', 'rt_roundtrip'], ...matchers], ...ALL }]))[0]!.map((s) => s.labels.find(([n]) => n === 'job')![1]);
    assert.deepEqual(await jobs([[NEQ, 'job', 'b']]), ['a', 'c']);
    assert.deepEqual(await jobs([[RE, 'job', 'a|c']]), ['a', 'c']);
    assert.deepEqual(await jobs([[RE, 'job', 'b.*|']]), ['b']);
    assert.deepEqual(await jobs([[RE, 'job', 'a.']]), [], 'anchored');
    assert.deepEqual(await jobs([[NRE, 'instance', 'h[01]']]), ['c']);
    assert.deepEqual(await jobs([[EQ, 'missing', '']]), ['a', 'b', 'c']);
    assert.deepEqual(await jobs([[NEQ, 'job', '']]), ['a', 'b', 'c']);
  });

  test('an invalid regular expression or matcher type is 400 problem+json', async () => {
    for (const matchers of [[[RE, 'job', 'a(']], [[NRE, 'job', '*']], [[9, 'job', 'a']]] as Array<ReadQuery['matchers']>) {
      const a = await postRead(strata.base, [{ matchers, ...ALL }], { types: [RT.STREAMED_XOR_CHUNKS] });
      assert.equal(a.status, 400, a.body.toString());
      assert.match(a.headers.get('content-type') ?? '', /application\/problem\+json/);
    }
  });

  test('/api/v1/receive takes the same writes as /api/v1/write', async () => {
    const s = seriesOf('rt_receive', [['job', 'r']], 10);
    await written([s], { path: '/api/v1/receive' });
    const [result] = await readSamples([{ matchers: eq('rt_receive'), ...ALL }]);
    sameSamples(result![0]!.samples, s.samples, 'receive');
  });

  test('a series long enough to pass 1 MiB of chunks continues in the next frame, in order', async () => {
    // Random values compress badly: about 8 bytes a sample, 1 MiB in ~140k samples.
    let x = 12345;
    const noise = () => {
      x = (x * 1103515245 + 12345) % 2147483648;
      return bitsOf(x / 7.3);
    };
    const long: Series = { labels: [['__name__', 'rt_long']], samples: samples(160_000, T0, 1000, noise) };
    for (let i = 0; i < long.samples.length; i += 10_000) await written([{ labels: long.labels, samples: long.samples.slice(i, i + 10_000) }]);
    const frames = await readChunks([{ matchers: eq('rt_long'), ...ALL }]);
    assert.ok(frames.length >= 2, `${frames.length} frames`);
    for (const f of frames) assert.deepEqual(f.labels, long.labels);
    sameSamples(frames.flatMap((f) => f.chunks.flatMap((c) => chunkSamples(c.data))), long.samples, 'long series');
  });

  test('a large stream read slowly arrives whole (backpressure), and a client hanging up mid-stream is let go', async () => {
    // Eight times the long series: about 10 MB, more than loopback socket buffers hold.
    const queries: ReadQuery[] = Array.from({ length: 8 }, () => ({ matchers: eq('rt_long'), ...ALL }));
    const body = readRequestBody(queries, [RT.STREAMED_XOR_CHUNKS]);
    const res = await fetch(`${strata.base}/api/v1/read`, { method: 'POST', body, headers: { 'content-type': 'application/x-protobuf' } });
    const reader = res.body!.getReader();
    const parts: Uint8Array[] = [];
    let first = true;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      if (first) await new Promise((r) => setTimeout(r, 300)); // the server meets a full socket meanwhile
      first = false;
    }
    const frames = decodeFrames(Buffer.concat(parts));
    assert.deepEqual([...new Set(frames.map((f) => f.queryIndex))], [0, 1, 2, 3, 4, 5, 6, 7]);
    const perQuery = frames.filter((f) => f.queryIndex === 5).flatMap((f) => f.chunks.flatMap((c) => chunkSamples(c.data)));
    assert.equal(perQuery.length, 160_000);

    const port = Number(new URL(strata.base).port);
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(`POST /api/v1/read HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: ${body.length}\r\n\r\n`);
        socket.write(body);
      });
      socket.once('data', () => {
        socket.destroy();
        resolve();
      });
      socket.once('error', reject);
    });
    await new Promise((r) => setTimeout(r, 200));
    const health = await fetch(`${strata.base}/-/healthy`);
    assert.equal(health.status, 200);
    const metrics = await (await fetch(`${strata.base}/metrics`)).text();
    assert.match(metrics, /strata_http_requests_total\{route="\/api\/v1\/read",method="POST",code="499"\} 1/);
  });
});

describe('tenants', () => {
  const mine = seriesOf('rt_tenant', [['job', 'mine']], 20, LATER);
  const theirs = seriesOf('rt_tenant', [['job', 'theirs']], 20, LATER);
  const plain = seriesOf('rt_tenant', [['job', 'default']], 20, LATER);

  before(async () => {
    await written([mine], { tenant: 'team-a' });
    await written([theirs], { tenant: 'team-b' });
    await written([plain]);
    // A label named like the tenant label is overwritten by the tenant (Thanos Receive's rule).
    await written([seriesOf('rt_tenant_label', [['job', 'x'], ['tenant_id', 'forged']], 5, LATER)], { tenant: 'team-a' });
  });

  test('reads see only their tenant\'s series, without the tenant label, in both answer types', async () => {
    for (const [tenant, want] of [['team-a', mine], ['team-b', theirs], [undefined, plain]] as const) {
      const [result] = await readSamples([{ matchers: eq('rt_tenant'), ...ALL }], tenant);
      assert.deepEqual(result!.map((s) => s.labels), [want.labels], `tenant ${tenant}`);
      sameSamples(result![0]!.samples, want.samples, `tenant ${tenant}`);
      const frames = await readChunks([{ matchers: eq('rt_tenant'), ...ALL }], tenant);
      assert.deepEqual(frames.map((f) => f.labels), [want.labels]);
    }
    const empty = await readSamples([{ matchers: eq('rt_tenant'), ...ALL }], 'team-c');
    assert.deepEqual(empty, [[]]);
  });

  test('an empty THANOS-TENANT header is the default tenant', async () => {
    const [result] = await readSamples([{ matchers: eq('rt_tenant'), ...ALL }], '');
    assert.deepEqual(result!.map((s) => s.labels), [plain.labels]);
  });

  test('the tenant label cannot be matched into another tenant\'s data', async () => {
    const viaLabel = await readSamples([{ matchers: [[EQ, '__name__', 'rt_tenant'], [EQ, 'tenant_id', 'team-b']], ...ALL }], 'team-a');
    assert.deepEqual(viaLabel, [[]], 'tenant_id="team-b" selects nothing: the series as written have no tenant_id');
    const absent = await readSamples([{ matchers: [[EQ, '__name__', 'rt_tenant'], [EQ, 'tenant_id', '']], ...ALL }], 'team-a');
    assert.deepEqual(absent[0]!.map((s) => s.labels), [mine.labels]);
    const forged = await readSamples([{ matchers: eq('rt_tenant_label'), ...ALL }], 'team-a');
    assert.deepEqual(forged[0]!.map((s) => s.labels), [[['__name__', 'rt_tenant_label'], ['job', 'x']]]);
  });
});

describe('remote write errors', () => {
  test('a body that is not snappy, or snappy of something that is not a WriteRequest, is 400 problem+json', async () => {
    assertProblem(await postWrite(strata.base, Buffer.from('definitely not snappy')), 400);
    assertProblem(await postWrite(strata.base, compressSync(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]))), 400);
    assertProblem(await postWrite(strata.base, writeRequestBytes([seriesOf('rt_uncompressed', [], 3, LATER)])), 400);
  });

  test('a body claiming to decompress past the limit is 413 before it is decompressed', async () => {
    // The snappy preamble claims 1 GiB; the body is tiny.
    assertProblem(await postWrite(strata.base, Buffer.from([0x80, 0x80, 0x80, 0x80, 0x04, 0x00])), 413);
  });

  test('invalid label sets are 400, and the valid series of the request are written', async () => {
    const good = seriesOf('rt_partly_invalid', [['job', 'ok']], 5, LATER);
    const unsorted = { labels: [['__name__', 'rt_partly_invalid'], ['z', '1'], ['a', '2']] as Labels, samples: good.samples };
    const a = await postWrite(strata.base, [unsorted, good]);
    assertProblem(a, 400);
    assert.match(a.json.detail, /not sorted/);
    const [result] = await readSamples([{ matchers: eq('rt_partly_invalid'), ...ALL }]);
    assert.deepEqual(result!.map((s) => s.labels), [good.labels]);
  });

  test('sample conflicts are 409, and the valid samples of the request are written', async () => {
    const base = seriesOf('rt_conflict', [['job', 'c']], 10, LATER);
    await written([base]);
    const older: Series = { labels: base.labels, samples: base.samples.slice(0, 2) .map((s) => ({ t: s.t, bits: bitsOf(-1) })) };
    const fresh = seriesOf('rt_conflict', [['job', 'fresh']], 3, LATER);
    const a = await postWrite(strata.base, [older, fresh]);
    assertProblem(a, 409);
    const [result] = await readSamples([{ matchers: eq('rt_conflict'), ...ALL }]);
    assert.deepEqual(result!.map((s) => s.labels), [base.labels, fresh.labels]);
    sameSamples(result![0]!.samples, base.samples, 'unchanged by the conflict');
  });

  test('a body over --http-max-body-bytes is 413', async () => {
    const big = Buffer.alloc(MAX_BODY + 1, 7);
    const a = await postWrite(strata.base, big);
    assertProblem(a, 413);
  });

  test('another protocol or encoding is 415: a protobuf message not served, gzip, a non-protobuf Content-Type (2.0: remote-write-v2.test.ts)', async () => {
    const body = compressSync(writeRequestBytes([seriesOf('rt_415', [], 1, LATER)]));
    assertProblem(await postWrite(strata.base, body, { headers: { 'content-type': 'application/x-protobuf;proto=io.prometheus.write.v3.Request' } }), 415);
    assertProblem(await postWrite(strata.base, body, { headers: { 'content-encoding': 'gzip' } }), 415);
    assertProblem(await postWrite(strata.base, body, { headers: { 'content-type': 'application/json' } }), 415);
    const v1 = await postWrite(strata.base, body, { headers: { 'content-type': 'application/x-protobuf;proto=prometheus.WriteRequest' } });
    assert.equal(v1.status, 204, v1.text);
  });

  test('a remote read body that is not snappy is 400', async () => {
    const a = await postRead(strata.base, [], { body: Buffer.from('nope') });
    assert.equal(a.status, 400);
  });
});
