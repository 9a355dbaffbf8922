// thanos.WriteableStore/RemoteWrite, black box: a `strata serve` process
// written to and read back over gRPC as Thanos Receive's router and Thanos
// Query would. Rules: issue 4 "Services" and WIRE.md "Behaviour real
// clients rely on", "Tenants" and "Stale markers".
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rng } from '../support/series.js';
import { StoreClient, eq, grpc, re } from '../store/support/client.js';
import { T0, codeName, seriesOk, write, writeFails } from '../store/support/calls.js';
import { answeredLabels, assertSamplesEqual, decodeSeries, show, shown, writtenSamples } from '../store/support/series-check.js';
import { removeTempDirs, startStrata, stopAll, type StrataGrpc } from '../store/support/strata-grpc.js';
import { encodeWriteRequest, samplesOf, type WriteSample, type WriteSeries } from '../store/support/write-request.js';

const STALE = 0x7ff0000000000002n;
const MAX_RECV = 64 * 1024;

let strata: StrataGrpc;
let client: StoreClient;
/** A second process: --tenant-label-name tenant and a small --grpc-max-recv-bytes. */
let small: StrataGrpc;
let smallClient: StoreClient;
/** A third process that stays empty until the retention tests write to it. */
let empty: StrataGrpc;
let emptyClient: StoreClient;

before(async () => {
  [strata, small, empty] = await Promise.all([
    startStrata(),
    startStrata({ args: ['--tenant-label-name', 'tenant', '--grpc-max-recv-bytes', String(MAX_RECV)] }),
    startStrata(),
  ]);
  client = new StoreClient(strata.grpcAddress);
  smallClient = new StoreClient(small.grpcAddress);
  emptyClient = new StoreClient(empty.grpcAddress);
});

after(async () => {
  client?.close();
  smallClient?.close();
  emptyClient?.close();
  await stopAll();
  removeTempDirs();
});

const byName = (name: string) => ({ matchers: [eq('__name__', name)] });

describe('RemoteWrite writes what Series reads back', () => {
  test('series written are answered with chunks that decode to exactly the samples written', async () => {
    const next = rng(4);
    const specials = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 0, Number.MIN_VALUE, -Number.MAX_VALUE];
    const series: WriteSeries[] = ['a', 'b', 'c'].map((job, j) => ({
      labels: [['__name__', 'rw_roundtrip'], ['instance', `host-${j}`], ['job', job]],
      // 250 samples: more than one chunk (Prometheus cuts at 120 samples aimed, 240 at most).
      samples: samplesOf(250, T0 + BigInt(j), 15_000n, (i) => (i % 37 === 5 ? specials[i % specials.length]! : (next() - 0.5) * 1e6)),
    }));
    await write(client, { timeseries: series });

    const got = await seriesOk(client, byName('rw_roundtrip'));
    assert.deepEqual(shown(got.series), series.map((s) => show(answeredLabels(s.labels))));
    for (const [i, s] of got.series.entries()) {
      assertSamplesEqual(decodeSeries(s), writtenSamples(series[i]!.samples!), show(s.labels));
    }
  });

  test("keeps the stale marker's exact bits (0x7ff0000000000002) from the wire to the chunk answered", async () => {
    const samples: WriteSample[] = [
      { t: T0, v: 1 },
      { t: T0 + 15_000n, bits: STALE },
      { t: T0 + 30_000n, v: 2 },
      { t: T0 + 45_000n, bits: STALE },
      { t: T0 + 60_000n, bits: STALE },
      { t: T0 + 75_000n, v: Number.NaN },
    ];
    await write(client, { timeseries: [{ labels: [['__name__', 'rw_stale']], samples }] });

    const [s, ...rest] = (await seriesOk(client, byName('rw_stale'))).series;
    assert.ok(s, 'rw_stale not answered');
    assert.equal(rest.length, 0);
    const got = decodeSeries(s);
    assertSamplesEqual(got, writtenSamples(samples), 'rw_stale');
    assert.equal(got.bits.filter((b) => b === STALE).length, 3, 'stale markers answered with other bits');
  });

  test('a replicated write (replica set by a Thanos router) is written like any other', async () => {
    const samples = samplesOf(3, T0, 1000n, (i) => i);
    await write(client, { timeseries: [{ labels: [['__name__', 'rw_replica']], samples }], replica: 2n });
    const [s] = (await seriesOk(client, byName('rw_replica'))).series;
    assert.ok(s, 'rw_replica not answered');
    assertSamplesEqual(decodeSeries(s), writtenSamples(samples), 'rw_replica');
  });
});

describe('tenants', () => {
  test("the tenant field picks the tenant; empty and 'default-tenant' are the same tenant", async () => {
    const labels = [['__name__', 'rw_tenant'], ['job', 'x']] as const;
    const first = samplesOf(2, T0, 1000n, (i) => i);
    const second = samplesOf(2, T0 + 2000n, 1000n, (i) => 10 + i);
    const teamA = samplesOf(3, T0, 1000n, (i) => 100 + i);
    await write(client, { timeseries: [{ labels, samples: first }] });
    await write(client, { timeseries: [{ labels, samples: second }], tenant: 'default-tenant' });
    await write(client, { timeseries: [{ labels, samples: teamA }], tenant: 'team-a' });

    const got = (await seriesOk(client, byName('rw_tenant'))).series;
    assert.deepEqual(shown(got), [
      show(answeredLabels(labels, { tenant: 'default-tenant' })),
      show(answeredLabels(labels, { tenant: 'team-a' })),
    ]);
    assertSamplesEqual(decodeSeries(got[0]!), writtenSamples([...first, ...second]), 'default tenant');
    assertSamplesEqual(decodeSeries(got[1]!), writtenSamples(teamA), 'team-a');
  });

  test('every series answered carries the tenant label tenant_id, the default tenant included', async () => {
    const got = (await seriesOk(client, { matchers: [re('__name__', 'rw_.+')], skip_chunks: true })).series;
    assert.ok(got.length >= 5, `only ${got.length} series answered`);
    for (const s of got) {
      const tenant = s.labels.find((l) => l.name === 'tenant_id');
      assert.ok(tenant && tenant.value !== '', `${show(s.labels)} has no tenant_id`);
    }
  });

  test('a tenant label matcher selects that tenant only', async () => {
    const got = (await seriesOk(client, { matchers: [eq('__name__', 'rw_tenant'), eq('tenant_id', 'team-a')] })).series;
    assert.deepEqual(shown(got), [show(answeredLabels([['__name__', 'rw_tenant'], ['job', 'x']], { tenant: 'team-a' }))]);
  });

  test('--tenant-label-name names the tenant label', async () => {
    const labels = [['__name__', 'rw_tenant_name']] as const;
    await write(smallClient, { timeseries: [{ labels, samples: samplesOf(1, T0, 1n, () => 1) }] });
    await write(smallClient, { timeseries: [{ labels, samples: samplesOf(1, T0, 1n, () => 2) }], tenant: 'team-b' });
    const got = (await seriesOk(smallClient, byName('rw_tenant_name'))).series;
    assert.deepEqual(shown(got), [
      show(answeredLabels(labels, { tenantLabel: 'tenant', tenant: 'default-tenant' })),
      show(answeredLabels(labels, { tenantLabel: 'tenant', tenant: 'team-b' })),
    ]);
    for (const s of got) assert.ok(!s.labels.some((l) => l.name === 'tenant_id'), `${show(s.labels)} still has tenant_id`);
  });
});

describe('invalid label sets are INVALID_ARGUMENT; the valid series are written all the same', () => {
  const bad: Array<[string, WriteSeries['labels']]> = [
    ['an empty label name', [['__name__', 'rw_bad_name'], ['', 'x']]],
    ['an empty label value', [['__name__', 'rw_bad_value'], ['job', '']]],
    ['a duplicate label name', [['__name__', 'rw_bad_dup'], ['job', 'a'], ['job', 'b']]],
    ['label names not sorted', [['__name__', 'rw_bad_unsorted'], ['zone', 'z'], ['job', 'a']]],
  ];
  for (const [what, labels] of bad) {
    test(`${what} is INVALID_ARGUMENT and the valid series beside it is written`, async () => {
      const ok = `rw_ok_beside_${String(labels[0]![1]).slice(7)}`;
      const samples = samplesOf(2, T0, 1000n, (i) => i);
      const r = await writeFails(client, {
        timeseries: [{ labels, samples }, { labels: [['__name__', ok]], samples }],
      });
      assert.equal(r.code, grpc.status.INVALID_ARGUMENT, `answered ${codeName(r.code)}: ${r.details}`);
      const got = (await seriesOk(client, byName(ok))).series;
      assert.equal(got.length, 1, `the valid series ${ok} was not written`);
      assertSamplesEqual(decodeSeries(got[0]!), writtenSamples(samples), ok);
    });
  }

  test('nothing of an invalid series is stored', async () => {
    const got = (await seriesOk(client, { matchers: [re('__name__', 'rw_bad_.*')], skip_chunks: true })).series;
    assert.deepEqual(shown(got), []);
  });

  test('the error says how many series were rejected and why', async () => {
    const samples = samplesOf(1, T0, 1n, () => 1);
    const r = await writeFails(client, {
      timeseries: [...bad.map(([, labels]) => ({ labels, samples })), { labels: [['__name__', 'rw_ok_count']], samples }],
    });
    assert.equal(r.code, grpc.status.INVALID_ARGUMENT, `answered ${codeName(r.code)}: ${r.details}`);
    assert.match(r.details, /\b4\b/, `the message does not count the 4 rejected series: ${r.details}`);
    assert.match(r.details, /label/i, `the message does not say labels were wrong: ${r.details}`);
  });
});

describe('sample conflicts are ALREADY_EXISTS; the valid series are written all the same', () => {
  const labels = [['__name__', 'rw_conflict']] as const;
  const base = samplesOf(3, T0, 1000n, (i) => i + 1); // T0: 1, T0+1s: 2, T0+2s: 3

  before(async () => {
    await write(client, { timeseries: [{ labels, samples: base }] });
  });

  test('an out-of-order sample is ALREADY_EXISTS; the valid series of the request is written', async () => {
    const ok = samplesOf(2, T0, 1000n, (i) => i);
    const r = await writeFails(client, {
      timeseries: [
        { labels, samples: [{ t: T0 + 500n, v: 9 }] },
        { labels: [['__name__', 'rw_conflict_ok1']], samples: ok },
      ],
    });
    assert.equal(r.code, grpc.status.ALREADY_EXISTS, `answered ${codeName(r.code)}: ${r.details}`);
    const got = (await seriesOk(client, byName('rw_conflict_ok1'))).series;
    assert.equal(got.length, 1, 'the valid series was not written');
    assertSamplesEqual(decodeSeries(got[0]!), writtenSamples(ok), 'rw_conflict_ok1');
  });

  test('a duplicate timestamp with another value is ALREADY_EXISTS; the valid series of the request is written', async () => {
    const ok = samplesOf(2, T0, 1000n, (i) => i);
    const r = await writeFails(client, {
      timeseries: [
        { labels, samples: [{ t: T0 + 2000n, v: 42 }] },
        { labels: [['__name__', 'rw_conflict_ok2']], samples: ok },
      ],
    });
    assert.equal(r.code, grpc.status.ALREADY_EXISTS, `answered ${codeName(r.code)}: ${r.details}`);
    const got = (await seriesOk(client, byName('rw_conflict_ok2'))).series;
    assert.equal(got.length, 1, 'the valid series was not written');
  });

  test('samples going back in time within one request are ALREADY_EXISTS; the ones in order are kept', async () => {
    const r = await writeFails(client, {
      timeseries: [{ labels: [['__name__', 'rw_back_in_time']], samples: [{ t: T0 + 10_000n, v: 1 }, { t: T0 + 5_000n, v: 2 }, { t: T0 + 20_000n, v: 3 }] }],
    });
    assert.equal(r.code, grpc.status.ALREADY_EXISTS, `answered ${codeName(r.code)}: ${r.details}`);
    const [s] = (await seriesOk(client, byName('rw_back_in_time'))).series;
    assert.ok(s, 'nothing of the series was kept');
    assertSamplesEqual(decodeSeries(s), writtenSamples([{ t: T0 + 10_000n, v: 1 }, { t: T0 + 20_000n, v: 3 }]), 'rw_back_in_time');
  });

  test('the same timestamp with the same value is accepted silently and stored once', async () => {
    await write(client, { timeseries: [{ labels, samples: [{ t: T0 + 2000n, v: 3 }] }] });
    const [s] = (await seriesOk(client, byName('rw_conflict'))).series;
    assert.ok(s);
    assertSamplesEqual(decodeSeries(s), writtenSamples(base), 'rw_conflict after conflicts');
  });

  test('the error counts the rejected samples', async () => {
    const r = await writeFails(client, {
      timeseries: [{ labels, samples: [{ t: T0 + 100n, v: 1 }, { t: T0 + 200n, v: 1 }] }],
    });
    assert.equal(r.code, grpc.status.ALREADY_EXISTS, `answered ${codeName(r.code)}: ${r.details}`);
    assert.match(r.details, /\b2\b/, `the message does not count the 2 rejected samples: ${r.details}`);
  });
});

describe('native histograms and request size', () => {
  test('native histograms are written and read back as HISTOGRAM chunks; an invalid one is INVALID_ARGUMENT naming its series and why, the rest written', async () => {
    const floats = samplesOf(2, T0, 1000n, (i) => i);
    await write(client, {
      timeseries: [
        { labels: [['__name__', 'rw_histogram']], histograms: [{ t: T0, countInt: 3n, sum: 2.5, schema: 1 }, { t: T0 + 1000n, countInt: 5n, sum: 4, schema: 1 }] },
        { labels: [['__name__', 'rw_histogram_floats']], samples: floats },
      ],
    });
    const r = await writeFails(client, {
      timeseries: [
        { labels: [['__name__', 'rw_histogram']], histograms: [{ t: T0 + 2000n, countInt: 6n, sum: 5, schema: 12 }, { t: T0 + 3000n, countInt: 7n, sum: 6, schema: 1 }] },
        { labels: [['__name__', 'rw_histogram_floats']], samples: samplesOf(1, T0 + 5000n, 1000n, () => 9) },
      ],
    });
    assert.equal(r.code, grpc.status.INVALID_ARGUMENT, `answered ${codeName(r.code)}: ${r.details}`);
    assert.match(r.details, /1 invalid native histograms \(first: series 0 \{__name__="rw_histogram"\}: histogram 0 at \d+: histogram has an invalid schema 12, which must be between -4 and 8\)/);
    // The shared stream checks (seriesOk) know XOR chunks only: the frames are read here.
    const a = await client.series({ min_time: String(T0 - 1n), max_time: String(T0 + 10_000n), matchers: [re('__name__', 'rw_histogram.*')] });
    assert.equal(a.code, grpc.status.OK, a.details);
    const got = a.frames.filter((f) => f.result === 'series').map((f) => f.series!);
    assert.deepEqual(got.map((x) => x.labels.find((l) => l.name === '__name__')!.value), ['rw_histogram', 'rw_histogram_floats']);
    const h = got[0]!;
    assert.deepEqual(h.chunks.map((c) => c.raw!.type), [1], 'one chunk of thanos.Chunk type HISTOGRAM');
    assert.equal((h.chunks[0]!.raw!.data[0]! << 8) | h.chunks[0]!.raw!.data[1]!, 3, 'the three valid histograms');
    assert.deepEqual(got[1]!.chunks.map((c) => c.raw!.type), [0]);
    assert.equal(decodeSeries(got[1]!).t.length, 3);
  });

  test('a request larger than --grpc-max-recv-bytes is RESOURCE_EXHAUSTED', async () => {
    const big = encodeWriteRequest({
      timeseries: [{ labels: [['__name__', 'rw_too_big'], ['pad', 'x'.repeat(2 * MAX_RECV)]], samples: samplesOf(1, T0, 1n, () => 1) }],
    });
    assert.ok(big.length > MAX_RECV);
    const r = await smallClient.remoteWrite(big);
    assert.equal(r.code, grpc.status.RESOURCE_EXHAUSTED, `answered ${codeName(r.code)}: ${r.details}`);
    const got = (await seriesOk(smallClient, byName('rw_too_big'), undefined)).series;
    assert.deepEqual(shown(got), []);
  });

  test('a request under --grpc-max-recv-bytes is written', async () => {
    await write(smallClient, { timeseries: [{ labels: [['__name__', 'rw_small_enough']], samples: samplesOf(10, T0, 1000n, (i) => i) }] });
    const got = (await seriesOk(smallClient, byName('rw_small_enough'))).series;
    assert.equal(got.length, 1);
  });
});

describe('time bounds of writes', () => {
  const DAY = 86_400_000n;

  test('an empty store accepts samples of any timestamp, 1970 included', async () => {
    const samples = samplesOf(3, 1000n, 1000n, (i) => i);
    await write(emptyClient, { timeseries: [{ labels: [['__name__', 'rw_1970']], samples }] });
    const [s] = (await seriesOk(emptyClient, byName('rw_1970'))).series;
    assert.ok(s, 'rw_1970 not answered');
    assertSamplesEqual(decodeSeries(s), writtenSamples(samples), 'rw_1970');
  });

  test('a sample older than the retention (15d) back from the newest held is ALREADY_EXISTS (too old); the valid series is written', async () => {
    await write(emptyClient, { timeseries: [{ labels: [['__name__', 'rw_newest']], samples: [{ t: T0, v: 1 }] }] });
    const ok = samplesOf(2, T0 - 3_600_000n, 1000n, (i) => i);
    const r = await writeFails(emptyClient, {
      timeseries: [
        { labels: [['__name__', 'rw_too_old']], samples: [{ t: T0 - 16n * DAY, v: 1 }] },
        { labels: [['__name__', 'rw_old_enough']], samples: ok },
      ],
    });
    assert.equal(r.code, grpc.status.ALREADY_EXISTS, `answered ${codeName(r.code)}: ${r.details}`);
    assert.deepEqual(shown((await seriesOk(emptyClient, byName('rw_too_old'))).series), []);
    const [s] = (await seriesOk(emptyClient, byName('rw_old_enough'))).series;
    assert.ok(s, 'the valid series was not written');
    assertSamplesEqual(decodeSeries(s), writtenSamples(ok), 'rw_old_enough');
  });

  test('once the head spans more than 1.5 block ranges (3 h), a range before newest - 3 h is closed: samples there are too old, as in Prometheus', async () => {
    // The head holds 1970 and T0: everything before the 2 h boundary at or
    // past T0 - 3 h is cut into blocks, and refused.
    const boundary = ((T0 - 3n * 3_600_000n + 7_199_999n) / 7_200_000n) * 7_200_000n;
    const r = await writeFails(emptyClient, {
      timeseries: [
        { labels: [['__name__', 'rw_closed_range']], samples: [{ t: boundary - 1n, v: 1 }] },
        { labels: [['__name__', 'rw_open_range']], samples: [{ t: boundary, v: 1 }] },
      ],
    });
    assert.equal(r.code, grpc.status.ALREADY_EXISTS, `answered ${codeName(r.code)}: ${r.details}`);
    assert.match(r.details, /too old sample \(1, first \{__name__="rw_closed_range"/);
    assert.deepEqual(shown((await seriesOk(emptyClient, byName('rw_closed_range'))).series), []);
    assert.equal((await seriesOk(emptyClient, byName('rw_open_range'))).series.length, 1);
  });
});
