/**
 * The sidecar's source with native histograms: Prometheus' blocks holding
 * histogram chunks are read from disk as stored, and its head comes
 * through remote read as STREAMED_XOR_CHUNKS frames with chunk types
 * HISTOGRAM (2) and FLOAT_HISTOGRAM (3) (a fake Prometheus on 127.0.0.1
 * answers given chunks). A head chunk that reaches back before the
 * blocks' end is cut there, as an XOR chunk is: its later samples encoded
 * again, in its own encoding, so no sample is answered twice.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { uncompressSync } from 'snappy';
import { writeBlock } from '../../src/blocks/block-writer.js';
import { ChunkedReadResponse, ReadRequest } from '../../src/gen/prometheus/remote.js';
import { MatchType } from '../../src/index/types.js';
import { ByteArena } from '../../src/query/byte-arena.js';
import type { StoredChunk } from '../../src/query/types.js';
import { PrometheusBlocks } from '../../src/sidecar/prometheus-blocks.js';
import { SidecarSource } from '../../src/sidecar/sidecar-source.js';
import type { SeriesQuery } from '../../src/store/store-source.js';
import {
  FLOAT_HISTOGRAM, HISTOGRAM, XOR, comparable, histogramChunk, histogramSamples, samplesOf, type TestChunk,
} from '../support/histogram-series.js';
import { frame } from './support/frame.js';

const quiet = { info() {}, warn() {} };
const H_INT = ['__name__', 'h', 'i', '1'];
const H_FLOAT = ['__name__', 'h', 'i', '2'];
const STEP = 10;
const END = 1000;


/** A remote-read endpoint answering every series whose chunks overlap the query, chunk types as given. */
async function fakePrometheus(series: Array<{ labels: string[]; chunks: TestChunk[] }>): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (b: Buffer) => body.push(b));
    req.on('end', () => {
      const q = ReadRequest.decode(uncompressSync(Buffer.concat(body)) as Buffer).queries[0]!;
      res.writeHead(200, { 'Content-Type': 'application/x-streamed-protobuf; proto=prometheus.ChunkedReadResponse' });
      for (const s of series) {
        const chunks = s.chunks.filter((c) => c.maxT >= q.startTimestampMs && c.minT <= q.endTimestampMs);
        if (chunks.length === 0) continue;
        const labels = [];
        for (let i = 0; i < s.labels.length; i += 2) labels.push({ name: s.labels[i]!, value: s.labels[i + 1]! });
        res.write(frame(ChunkedReadResponse.encode({
          chunkedSeries: [{ labels, chunks: chunks.map((c) => ({ minTimeMs: BigInt(c.minT), maxTimeMs: BigInt(c.maxT), type: c.encoding, data: c.data })) }],
          queryIndex: 0n,
        }).finish()));
      }
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

function query(minT: number, maxT: number): SeriesQuery {
  return { matchers: [{ type: MatchType.EQ, name: '__name__', value: 'h' }], minT, maxT, skipChunks: false, withoutReplicaLabels: [], shard: undefined, limit: 0 };
}

async function read(source: SidecarSource, q: SeriesQuery): Promise<Array<{ labels: readonly string[]; chunks: StoredChunk[] }>> {
  const set = source.series(q);
  const out = [];
  try {
    const arena = new ByteArena();
    for (let batch = await set.next(); batch !== undefined; batch = await set.next()) {
      for (const s of batch) out.push({ labels: s.labels, chunks: [...set.chunks(s, arena)] });
    }
  } finally {
    set.close();
  }
  return out;
}

const asTest = (c: StoredChunk): TestChunk => ({ minT: c.minT, maxT: c.maxT, encoding: c.encoding ?? XOR, data: c.data });

describe('the sidecar source with native histograms', () => {
  // One series of each kind from 0 to 1500 every 10 ms: the block holds [0, 1000),
  // the head (remote read) a chunk from 800 on, reaching back before the block's end.
  const ints = histogramSamples(151, 0, STEP, 1);
  const floats = histogramSamples(151, 0, STEP, 2, { float: true });
  const split = (s: { t: number[]; h: ReturnType<typeof histogramSamples>['h'] }, enc: number) => ({
    block: histogramChunk(enc, s.t.slice(0, 100), s.h.slice(0, 100)),
    head: histogramChunk(enc, s.t.slice(80, 120), s.h.slice(80, 120)),
    later: histogramChunk(enc, s.t.slice(120), s.h.slice(120)),
    whole: samplesOf([histogramChunk(enc, s.t.slice(0, 100), s.h.slice(0, 100)), histogramChunk(enc, s.t.slice(100), s.h.slice(100))]),
  });
  const hi = split(ints, HISTOGRAM);
  const hf = split(floats, FLOAT_HISTOGRAM);
  let dir = '';
  let blocks: PrometheusBlocks;
  let prom: { url: string; server: Server };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'strata-sidecar-hist-'));
    await writeBlock({
      blocksDir: dir, minTime: 0, maxTime: END, symbols: [...H_INT, ...H_FLOAT],
      series: [{ labels: H_INT, chunks: [hi.block] }, { labels: H_FLOAT, chunks: [hf.block] }],
    });
    prom = await fakePrometheus([{ labels: H_INT, chunks: [hi.head, hi.later] }, { labels: H_FLOAT, chunks: [hf.head, hf.later] }]);
    blocks = new PrometheusBlocks(dir, quiet);
    assert.equal(await blocks.refresh(), true);
  });

  after(async () => {
    await new Promise((r) => prom.server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const source = () => new SidecarSource({ prometheusUrl: prom.url, blocks, externalLabels: () => [], lowestTimestamp: () => 0 });

  test('blocks\' histogram chunks as stored, the head\'s cut at the blocks\' end in their own encoding: every sample once', async () => {
    const got = await read(source(), query(0, 2000));
    assert.deepEqual(got.map((s) => s.labels), [H_INT, H_FLOAT]);
    for (const [s, want] of [[got[0]!, hi], [got[1]!, hf]] as const) {
      const enc = want.block.encoding;
      assert.deepEqual(s.chunks.map((c) => c.encoding ?? XOR), [enc, enc, enc], 'each chunk keeps its encoding');
      assert.deepEqual(Buffer.from(s.chunks[0]!.data), Buffer.from(want.block.data), 'the block\'s chunk as stored');
      assert.equal(s.chunks[1]!.minT, END, 'the head chunk crossing the blocks\' end starts there now');
      assert.equal(s.chunks[1]!.maxT, want.head.maxT);
      assert.deepEqual(Buffer.from(s.chunks[2]!.data), Buffer.from(want.later.data), 'a head chunk wholly after the blocks\' end: as stored');
      assert.deepEqual(samplesOf(s.chunks.map(asTest)).map(comparable), want.whole.map(comparable));
    }
  });

  test('a query within the head: the crossing chunk is still cut at the blocks\' end, not at the query\'s start', async () => {
    const got = await read(source(), query(1050, 2000));
    assert.deepEqual(got[0]!.chunks.map((c) => c.minT), [END, hi.later.minT]);
    assert.deepEqual(samplesOf(got[0]!.chunks.map(asTest)).map(comparable), hi.whole.slice(100).map(comparable));
  });
});
