/**
 * The sidecar's source (src/sidecar/sidecar-source.ts) over blocks written
 * into a directory as Prometheus lays them out, and a remote-read endpoint
 * on 127.0.0.1 that answers STREAMED_XOR_CHUNKS frames of given series (as
 * Prometheus does: external labels added, chunks whole, a head chunk that
 * may reach back before the newest block's end). The real Prometheus is in
 * test/e2e/sidecar.test.ts; here each boundary case is set up exactly.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { crc32c } from '@node-rs/crc32';
import { uncompressSync } from 'snappy';
import { writeBlock } from '../../src/blocks/block-writer.js';
import { ENCODING_XOR } from '../../src/chunkenc/encoding.js';
import { TOMBSTONES_FILENAME } from '../../src/blocks/tombstones.js';
import { threadCodec } from '../../src/chunkenc/index.js';
import { ChunkedReadResponse, ReadRequest } from '../../src/gen/prometheus/remote.js';
import { MatchType, type LabelMatcher } from '../../src/index/types.js';
import { ByteArena } from '../../src/query/byte-arena.js';
import { PrometheusBlocks } from '../../src/sidecar/prometheus-blocks.js';
import { SidecarSource } from '../../src/sidecar/sidecar-source.js';
import type { SeriesQuery } from '../../src/store/store-source.js';
import { frame } from './support/frame.js';

const quiet = { info() {}, warn() {} };
const codec = threadCodec();
const EXT: Array<[string, string]> = [['cluster', 'eu1'], ['replica', 'a']];

interface Samples {
  t: number[];
  v: number[];
}

function xor(s: Samples): { minT: number; maxT: number; encoding: number; data: Uint8Array } {
  return { minT: s.t[0]!, maxT: s.t[s.t.length - 1]!, encoding: ENCODING_XOR, data: codec.encode(BigInt64Array.from(s.t.map(BigInt)), Float64Array.from(s.v)) };
}

function range(from: number, to: number, step: number, value: (t: number) => number): Samples {
  const t: number[] = [];
  const v: number[] = [];
  for (let x = from; x <= to; x += step) {
    t.push(x);
    v.push(value(x));
  }
  return { t, v };
}

/** What a remote read answers: labels (external labels merged in, as Prometheus does) and chunks. */
interface RemoteSeries {
  labels: string[];
  chunks: Array<{ minT: number; maxT: number; data: Uint8Array }>;
}

function withExternal(labels: string[]): string[] {
  const map = new Map<string, string>();
  for (let i = 0; i < labels.length; i += 2) map.set(labels[i]!, labels[i + 1]!);
  for (const [n, v] of EXT) if (!map.has(n)) map.set(n, v);
  return [...map].sort(([a], [b]) => (a < b ? -1 : 1)).flat();
}


/** A matcher as Prometheus applies it (anchored; a missing label reads as ""). */
function matches(m: { type: number; name: string; value: string }, labels: string[]): boolean {
  const i = labels.findIndex((x, k) => k % 2 === 0 && x === m.name);
  const v = i < 0 ? '' : labels[i + 1]!;
  const re = new RegExp(`^(?:${m.value})$`);
  return [v === m.value, v !== m.value, re.test(v), !re.test(v)][m.type]!;
}

/** A remote-read endpoint answering `series()` one frame per series; records each query's range. */
async function fakePrometheus(series: () => RemoteSeries[]): Promise<{ url: string; queries: Array<{ start: number; end: number }>; server: Server }> {
  const queries: Array<{ start: number; end: number }> = [];
  const server = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (b: Buffer) => body.push(b));
    req.on('end', () => {
      const q = ReadRequest.decode(uncompressSync(Buffer.concat(body)) as Buffer).queries[0]!;
      queries.push({ start: Number(q.startTimestampMs), end: Number(q.endTimestampMs) });
      res.writeHead(200, { 'Content-Type': 'application/x-streamed-protobuf; proto=prometheus.ChunkedReadResponse' });
      for (const s of series()) {
        if (!q.matchers.every((m) => matches(m, s.labels))) continue;
        const labels = [];
        for (let i = 0; i < s.labels.length; i += 2) labels.push({ name: s.labels[i]!, value: s.labels[i + 1]! });
        const overlapping = s.chunks.filter((c) => c.maxT >= q.startTimestampMs && c.minT <= q.endTimestampMs);
        if (overlapping.length === 0) continue;
        const msg = ChunkedReadResponse.encode({
          chunkedSeries: [{ labels, chunks: overlapping.map((c) => ({ minTimeMs: BigInt(c.minT), maxTimeMs: BigInt(c.maxT), type: 1, data: c.data })) }],
          queryIndex: 0n,
        }).finish();
        res.write(frame(msg));
      }
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, queries, server };
}

function query(matchers: LabelMatcher[], minT: number, maxT: number, warnings: string[] = []): SeriesQuery {
  return { matchers, minT, maxT, skipChunks: false, withoutReplicaLabels: [], shard: undefined, limit: 0, warn: (w) => warnings.push(w) };
}

/** Every series answered with its samples (t:v) in order. */
async function read(source: SidecarSource, q: SeriesQuery): Promise<Map<string, string[]>> {
  const set = source.series(q);
  const out = new Map<string, string[]>();
  try {
    const arena = new ByteArena();
    let previous: string | undefined;
    for (let batch = await set.next(); batch !== undefined; batch = await set.next()) {
      for (const s of batch) {
        const key = JSON.stringify(s.labels);
        if (previous !== undefined) assert.ok(previous < key, `series out of order: ${previous} then ${key}`);
        previous = key;
        const samples: string[] = [];
        for (const c of set.chunks(s, arena)) {
          const d = codec.decode(c.data);
          assert.equal(Number(d.timestamps[0]), c.minT, `${key}: chunk minT is its first sample`);
          for (let i = 0; i < d.timestamps.length; i++) {
            const t = Number(d.timestamps[i]);
            if (t >= q.minT && t <= q.maxT) samples.push(`${t}:${d.values[i]}`);
          }
        }
        out.set(key, samples);
      }
    }
  } finally {
    set.close();
  }
  return out;
}

const A1 = ['__name__', 'up', 'i', '1'];
const A2 = ['__name__', 'up', 'i', '2'];
const HEAD_ONLY = ['__name__', 'up', 'i', '3'];
/** Stores an external label's very pair (a Prometheus receiving writes from agents that share its labels). */
const A4 = ['__name__', 'up', 'cluster', 'eu1', 'i', '4'];
const value = (t: number): number => t / 10;

describe('the sidecar source: blocks from disk, the head through remote read, merged at the blocks\' end', () => {
  let dir = '';
  let blocks: PrometheusBlocks;
  let prom: Awaited<ReturnType<typeof fakePrometheus>>;
  let remote: RemoteSeries[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-sidecar-source-'));
    // Two level-1 blocks [0, 1000) and [1000, 2000), samples every 10 ms.
    for (const [from, to] of [[0, 1000], [1000, 2000]] as const) {
      await writeBlock({
        blocksDir: dir, minTime: from, maxTime: to, symbols: [...A1, ...A2, ...A4],
        series: [A4, A1, A2].map((labels) => ({ labels, chunks: [xor(range(from, to - 10, 10, value))] })),
      });
    }
    // The head as remote read answers it from 2000 on: a chunk of A1 reaching
    // back to 1500 (a head not truncated yet), one wholly before 2000 (gone
    // from the answer), A2 from 2000, and a series only in the head.
    remote = [
      { labels: withExternal(A1), chunks: [xor(range(1200, 1490, 10, value)), xor(range(1500, 2500, 10, value))] },
      { labels: withExternal(A2), chunks: [xor(range(2000, 2500, 10, value))] },
      { labels: withExternal(HEAD_ONLY), chunks: [xor(range(2100, 2500, 10, value))] },
      { labels: withExternal(A4), chunks: [xor(range(2000, 2500, 10, value))] },
    ];
    prom = await fakePrometheus(() => remote);
    blocks = new PrometheusBlocks(dir, quiet);
    assert.equal(await blocks.refresh(), true);
  });

  after(async () => {
    await new Promise((r) => prom.server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const source = (url = prom.url) => new SidecarSource({ prometheusUrl: url, blocks, externalLabels: () => EXT, lowestTimestamp: () => 0 });
  const every = range(0, 2500, 10, value).t.map((t) => `${t}:${value(t)}`);

  test('every sample once across the boundary, labels as stored', async () => {
    const got = await read(source(), query([{ type: MatchType.EQ, name: '__name__', value: 'up' }], 0, 3000));
    assert.deepEqual([...got.keys()], [A4, A1, A2, HEAD_ONLY].map((l) => JSON.stringify(l)));
    assert.deepEqual(got.get(JSON.stringify(A1)), every, 'A1: blocks then the head, the head chunk cut at 2000');
    assert.deepEqual(got.get(JSON.stringify(A4)), every, 'a stored external pair: blocks and head joined, one series');
    assert.deepEqual(got.get(JSON.stringify(A2)), every);
    assert.deepEqual(got.get(JSON.stringify(HEAD_ONLY)), range(2100, 2500, 10, value).t.map((t) => `${t}:${value(t)}`));
    assert.deepEqual(prom.queries.at(-1), { start: 2000, end: 3000 }, 'remote read asked from the blocks\' end only');
  });

  test('a range within the blocks asks Prometheus nothing', async () => {
    const before = prom.queries.length;
    const got = await read(source(), query([{ type: MatchType.RE, name: 'i', value: '1|3' }], 500, 1500));
    assert.deepEqual([...got.keys()], [JSON.stringify(A1)]);
    assert.equal(got.get(JSON.stringify(A1))!.length, 101);
    assert.equal(prom.queries.length, before);
  });

  test('a range within the head reads remote read only, its chunks passed on whole', async () => {
    const got = await read(source(), query([{ type: MatchType.NEQ, name: 'i', value: '2' }], 2200, 2300));
    assert.deepEqual([...got.keys()], [A1, HEAD_ONLY, ['__name__', 'up', 'i', '4']].map((l) => JSON.stringify(l)), 'a head-only answer: external pairs left to the decorator');
    assert.deepEqual(prom.queries.at(-1), { start: 2200, end: 2300 });
    // A2's head chunk [2000, 2500] starts before the range and after the blocks.
    const set = source().series(query([{ type: MatchType.EQ, name: 'i', value: '2' }], 2200, 2300));
    try {
      const [a2] = (await set.next())!;
      const [chunk] = set.chunks(a2!, new ByteArena());
      assert.equal(chunk!.minT, 2000, 'the head chunk as Prometheus sent it, not decoded and cut');
      assert.ok(Buffer.from(chunk!.data).equals(Buffer.from(remote[1]!.chunks[0]!.data)), 'its bytes as sent');
    } finally {
      set.close();
    }
  });

  test('Prometheus down: the blocks answer, with a warning naming it', async () => {
    const warnings: string[] = [];
    const got = await read(source('http://127.0.0.1:1'), query([{ type: MatchType.EQ, name: '__name__', value: 'up' }], 0, 3000, warnings));
    assert.deepEqual([...got.keys()], [A4, A1, A2].map((l) => JSON.stringify(l)));
    assert.deepEqual(got.get(JSON.stringify(A1)), every.filter((s) => Number(s.split(':')[0]) < 2000));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /Prometheus at http:\/\/127\.0\.0\.1:1 did not answer/);
    assert.match(warnings[0]!, /1970-01-01T00:00:02\.000Z/);
  });

  test('label names and values: the blocks\' and Prometheus\' label API, merged; a warning when it is down', async () => {
    const api = createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (url.pathname === '/api/v1/labels') res.end(JSON.stringify({ status: 'success', data: ['__name__', 'head_only_name', 'i'] }));
      else res.end(JSON.stringify({ status: 'success', data: ['3', url.searchParams.get('match[]') ?? ''] }));
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(api.address() as { port: number }).port}`;
      const s = source(url);
      const base = { matchers: [{ type: MatchType.EQ, name: '__name__', value: 'up' }], minT: 0, maxT: 3000, withoutReplicaLabels: [], limit: 0 };
      assert.deepEqual(await s.labelNames(base), ['__name__', 'cluster', 'head_only_name', 'i']);
      assert.deepEqual(await s.labelValues({ ...base, name: 'i' }), ['1', '2', '3', '4', '{__name__="up"}']);
      const warnings: string[] = [];
      assert.deepEqual(await source('http://127.0.0.1:1').labelNames({ ...base, warn: (w) => warnings.push(w) }), ['__name__', 'cluster', 'i']);
      assert.equal(warnings.length, 1);
    } finally {
      await new Promise((r) => api.close(r));
    }
  });

  test('a compacted block replaces its parents at once, before Prometheus deletes them', async () => {
    const [b1, b2] = blocks.readers.map((r) => r.block);
    const meta = await writeBlock({
      blocksDir: dir, minTime: 0, maxTime: 2000, symbols: [...A1, ...A2],
      compaction: { level: 2, sources: [b1!.ulid, b2!.ulid], parents: [b1!, b2!].map((b) => ({ ulid: b.ulid, minTime: b.minTime, maxTime: b.maxTime })) },
      series: [A1, A2].map((labels) => ({ labels, chunks: [xor(range(0, 990, 10, value)), xor(range(1000, 1990, 10, value))] })),
    });
    await blocks.refresh();
    assert.equal(blocks.readers.length, 3);
    try {
      const got = await read(source(), query([{ type: MatchType.EQ, name: '__name__', value: 'up' }], 0, 3000));
      assert.deepEqual(got.get(JSON.stringify(A2)), every, 'no sample twice');
    } finally {
      rmSync(join(dir, meta!.ulid), { recursive: true });
      await blocks.refresh();
    }
  });

  test('a block with tombstones is read through remote read, which applies them', async () => {
    const last = blocks.readers.at(-1)!.block;
    // One stone: series ref 0 (any), 1000..1100; parsing counts it.
    const stone = Buffer.from([0x00, 0xd0, 0x0f, 0xf8, 0x10]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32c(stone) >>> 0);
    writeFileSync(join(last.dir, TOMBSTONES_FILENAME), Buffer.concat([Buffer.from([0x01, 0x30, 0xba, 0x30, 0x01]), stone, crc]));
    const fresh = new PrometheusBlocks(dir, quiet);
    await fresh.refresh();
    assert.ok(fresh.readers.at(-1)!.block.tombstones > 0, 'the tombstone is seen');
    const s = new SidecarSource({ prometheusUrl: prom.url, blocks: fresh, externalLabels: () => EXT, lowestTimestamp: () => 0 });
    await read(s, query([{ type: MatchType.EQ, name: '__name__', value: 'up' }], 0, 3000));
    assert.deepEqual(prom.queries.at(-1), { start: 1000, end: 3000 }, 'remote read from the tombstoned block\'s start');
  });

  test('a block deleted while a read holds it: the read finishes from its memory maps', async () => {
    const s = source();
    const set = s.series(query([{ type: MatchType.EQ, name: '__name__', value: 'up' }], 0, 1999));
    try {
      const batch = (await set.next())!;
      for (const r of blocks.readers) rmSync(r.block.dir, { recursive: true });
      assert.equal(await blocks.refresh(), true);
      assert.equal(blocks.readers.length, 0, 'deleted blocks are forgotten');
      const arena = new ByteArena();
      let n = 0;
      for (const x of batch) for (const c of set.chunks(x, arena)) n += codec.decode(c.data).timestamps.length;
      assert.equal(n, 3 * 200);
    } finally {
      set.close();
    }
  });
});
