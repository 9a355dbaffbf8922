/**
 * Byte-for-byte compatibility with Prometheus' native histogram chunks:
 * every histogram codec must decode the HISTOGRAM and FLOAT_HISTOGRAM
 * chunks a real Prometheus 2.42 wrote (test/fixtures/prometheus-histograms:
 * its head chunk files and two blocks) to exactly the samples its query API
 * answered, rendered as that API renders them (count, sum, every non-empty
 * bucket's boundaries and count), and encode the decoded samples back to
 * exactly Prometheus' bytes. The fixtures are committed; remaking them
 * (npm run fixtures:prometheus) needs Prometheus, these tests do not.
 *
 * Counting: the two blocks (the head's first 2 h, compacted, and the rest of
 * the head, written as a block by the snapshot API) hold every sample once.
 * The head chunk files hold the head chunks Prometheus memory-mapped, which
 * are the same chunks again (a block keeps a head chunk's bytes); they are
 * decoded and re-encoded too but not counted twice. Open head chunks exist
 * only in memory and the WAL, so the snapshot block is their only copy.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { DecodedHistogramChunk, HistogramChunkCodec } from '../../src/chunkenc/histogram/codec.js';
import { histogramCodecSets } from '../../src/chunkenc/histogram/impl.js';
import type { HistogramCodecSet } from '../../src/chunkenc/histogram/impl.js';
import { ENCODING_FLOAT_HISTOGRAM, ENCODING_HISTOGRAM } from '../../src/chunkenc/encoding.js';
import type { FloatHistogram, Histogram } from '../../src/chunkenc/histogram/types.js';
import { expandBuckets } from '../fixtures/prometheus-histograms/expected-format.js';
import type { ExpectedFile } from '../fixtures/prometheus-histograms/expected-format.js';
import { CHUNK_ENCODING_XOR, formatLabels, readBlock } from '../support/prometheus-chunks.js';
import { renderApiHistogram } from '../support/prometheus-histogram-api.js';
import type { ApiHistogram } from '../support/prometheus-histogram-api.js';
import { readHeadChunkFile } from '../support/prometheus-head-chunks.js';

const fixtureDir = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/prometheus-histograms');
const STALE_NAN_BITS = 0x7ff0000000000002n;

interface ExpectedSample {
  t: bigint;
  /** undefined for a stale marker. */
  api: ApiHistogram | undefined;
}

interface FixtureChunk {
  /** File and offset, for messages. */
  where: string;
  encoding: number;
  minTime: bigint;
  maxTime: bigint;
  data: Uint8Array;
}

interface FixtureSeries {
  key: string;
  description: string;
  /** Samples and stale markers in time order. */
  samples: ExpectedSample[];
  /** Chunks of both blocks, in time order. */
  blockChunks: FixtureChunk[];
  /** Histogram chunks of the head chunk files, in file order. */
  headChunks: FixtureChunk[];
}

const expected = JSON.parse(gunzipSync(readFileSync(join(fixtureDir, 'expected.json.gz'))).toString('utf8')) as ExpectedFile;

const series: FixtureSeries[] = expected.series.map((s) => {
  const samples: ExpectedSample[] = s.samples.map(([t, count, sum, counts]) => ({
    t: BigInt(t),
    api: { count, sum, buckets: expandBuckets(s, counts) },
  }));
  for (const t of s.staleMarkers) samples.push({ t: BigInt(t), api: undefined });
  samples.sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : 0));
  return { key: formatLabels(s.labels), description: s.description, samples, blockChunks: [], headChunks: [] };
});
const seriesByKey = new Map(series.map((s) => [s.key, s]));

const blocks = readdirSync(join(fixtureDir, 'blocks'))
  .map((ulid) => readBlock(join(fixtureDir, 'blocks', ulid)))
  .sort((a, b) => a.meta.minTime - b.meta.minTime);
const strayBlockSeries: string[] = [];
for (const block of blocks) {
  for (const s of block.series) {
    const target = seriesByKey.get(formatLabels(s.labels));
    if (target === undefined) {
      strayBlockSeries.push(`${formatLabels(s.labels)} in block ${block.meta.ulid}`);
      continue;
    }
    for (const c of s.chunks) {
      target.blockChunks.push({ where: `${relative(fixtureDir, c.file)} at offset ${c.offset}`, ...c });
    }
  }
}

const headSeries = new Map(expected.headSeries.map((h) => [BigInt(h.ref), formatLabels(h.labels)]));
/** chunkenc.EncOOOXOR: an out-of-order XOR chunk (encoding 1 with chunkenc.OutOfOrderMask, 0x80). */
const ENCODING_OOO_XOR = 0x81;

/** Chunks of the head files that are not histogram chunks: Prometheus' own series (up & co.). */
const otherHeadChunks: Array<FixtureChunk & { key: string | undefined }> = [];
const strayHeadChunks: string[] = [];
const headFiles = readdirSync(join(fixtureDir, 'chunks_head')).sort();
for (const name of headFiles) {
  const file = join(fixtureDir, 'chunks_head', name);
  for (const c of readHeadChunkFile(file).chunks) {
    const chunk = { where: `chunks_head/${name} at offset ${c.offset}`, ...c };
    const key = headSeries.get(c.seriesRef);
    const target = key === undefined ? undefined : seriesByKey.get(key);
    if (c.encoding !== ENCODING_HISTOGRAM && c.encoding !== ENCODING_FLOAT_HISTOGRAM) {
      otherHeadChunks.push({ ...chunk, key });
    } else if (target === undefined) {
      strayHeadChunks.push(`${chunk.where}: series ref ${c.seriesRef} (${key ?? 'no labels in expected.json'})`);
    } else {
      target.headChunks.push(chunk);
    }
  }
}

const scratch = new DataView(new ArrayBuffer(8));

/** The float64 bits of `v`, NaN payload included (a JS array would quieten a signaling NaN). */
function bitsOf(v: number): bigint {
  scratch.setFloat64(0, v);
  return scratch.getBigUint64(0);
}

type AnyHistogramCodec = HistogramChunkCodec<Histogram | FloatHistogram>;

/** The set's codec for the chunk's encoding; it is only given back what it decoded. */
function codecFor(set: HistogramCodecSet, c: FixtureChunk): AnyHistogramCodec {
  if (c.encoding === ENCODING_HISTOGRAM) return set.histogram as AnyHistogramCodec;
  if (c.encoding === ENCODING_FLOAT_HISTOGRAM) return set.floatHistogram as AnyHistogramCodec;
  throw new Error(`${c.where}: encoding ${c.encoding} is not a histogram encoding`);
}

/** The counter-reset header bits of a histogram chunk (top bits of its third byte). */
function headerOf(data: Uint8Array): number {
  return (data[2] ?? 0) >> 6;
}

/** Names the first differing byte, for a failure message. */
function firstDifference(got: Uint8Array, want: Uint8Array): string {
  const n = Math.min(got.length, want.length);
  let i = 0;
  while (i < n && got[i] === want[i]) i++;
  if (i === n && got.length === want.length) return 'bytes are identical';
  const around = (b: Uint8Array): string => Buffer.from(b.subarray(Math.max(0, i - 4), i + 8)).toString('hex');
  return (
    `first differing byte at offset ${i} of ${want.length} (got ${got.length} bytes); ` +
    `from offset ${Math.max(0, i - 4)}: got ${around(got)}, Prometheus ${around(want)}`
  );
}

/**
 * Decodes `c` with the set's codec and compares it with the expected samples
 * starting at `at`; returns the number of samples the chunk holds.
 */
function checkDecoded(set: HistogramCodecSet, s: FixtureSeries, c: FixtureChunk, at: number): number {
  const where = `${s.key}, chunk ${c.where}`;
  let decoded: DecodedHistogramChunk<Histogram | FloatHistogram>;
  try {
    decoded = codecFor(set, c).decode(c.data);
  } catch (err) {
    assert.fail(`${where}: decode threw ${String(err)}`);
  }
  const n = decoded.timestamps.length;
  assert.equal(decoded.histograms.length, n, `${where}: histograms and timestamps differ in length`);
  assert.ok(n > 0, `${where}: decoded no samples`);
  assert.ok(at + n <= s.samples.length, `${where}: ${n} samples from ${at} run past the series' ${s.samples.length}`);
  assert.equal(decoded.timestamps[0], c.minTime, `${where}: first timestamp vs the chunk's mint`);
  assert.equal(decoded.timestamps[n - 1], c.maxTime, `${where}: last timestamp vs the chunk's maxt`);
  assert.equal(decoded.header, headerOf(c.data), `${where}: counter reset header`);
  for (let i = 0; i < n; i++) {
    const want = s.samples[at + i]!;
    const t = decoded.timestamps[i]!;
    const h = decoded.histograms[i]!;
    const here = `${where}, sample ${i} (t=${t})`;
    assert.equal(t, want.t, `${here}: timestamp`);
    if (want.api === undefined) {
      assert.equal(bitsOf(h.sum).toString(16), STALE_NAN_BITS.toString(16), `${here}: a stale marker's sum bits`);
      continue;
    }
    assert.notEqual(bitsOf(h.sum), STALE_NAN_BITS, `${here}: a stale marker where the API has a sample`);
    assert.deepEqual(renderApiHistogram(h, c.encoding === ENCODING_HISTOGRAM), want.api, `${here}: as the query API renders it`);
  }
  return n;
}

describe("Prometheus' native histogram chunk fixtures", () => {
  test('the blocks hold exactly the series of expected.json, in histogram chunks only', () => {
    assert.deepEqual(strayBlockSeries, [], 'series in the blocks but not in expected.json');
    assert.equal(blocks.length, 2, 'the compacted block and the head snapshot');
    for (const s of series) {
      assert.ok(s.blockChunks.length > 0, `${s.key} has no block chunks`);
      for (const c of s.blockChunks) {
        assert.ok(c.encoding === ENCODING_HISTOGRAM || c.encoding === ENCODING_FLOAT_HISTOGRAM, `${c.where}: encoding ${c.encoding}`);
      }
    }
  });

  test('every sample and stale marker lies in exactly one block chunk, which starts and ends on samples', () => {
    for (const s of series) {
      const times = new Set(s.samples.map((x) => x.t));
      for (const c of s.blockChunks) {
        assert.ok(times.has(c.minTime) && times.has(c.maxTime), `${s.key}, ${c.where}: [${c.minTime}, ${c.maxTime}] not on samples`);
      }
      for (const x of s.samples) {
        const holders = s.blockChunks.filter((c) => c.minTime <= x.t && x.t <= c.maxTime);
        assert.equal(holders.length, 1, `${s.key}: the sample at ${x.t} lies in ${holders.length} block chunks`);
      }
    }
  });

  test("every histogram chunk of chunks_head is its series' block chunk, byte for byte", () => {
    assert.deepEqual(strayHeadChunks, [], 'histogram chunks of series not in expected.json');
    let n = 0;
    for (const s of series) {
      for (const c of s.headChunks) {
        const same = s.blockChunks.filter((b) => b.minTime === c.minTime);
        assert.equal(same.length, 1, `${s.key}, ${c.where}: block chunks starting at ${c.minTime}`);
        const b = same[0]!;
        assert.equal(b.maxTime, c.maxTime, `${s.key}, ${c.where}: maxt vs ${b.where}`);
        assert.equal(b.encoding, c.encoding, `${s.key}, ${c.where}: encoding vs ${b.where}`);
        assert.deepEqual(Buffer.from(c.data), Buffer.from(b.data), `${s.key}, ${c.where}: bytes vs ${b.where}`);
        n++;
      }
    }
    const encodings = new Set(series.flatMap((s) => s.headChunks.map((c) => c.encoding)));
    assert.ok(n > 0 && encodings.size === 2, `head chunk files hold ${n} histogram chunks of encodings ${[...encodings]}`);
  });

  test("the other chunks of chunks_head are XOR chunks, in order or not, of Prometheus' own series", () => {
    for (const c of otherHeadChunks) {
      assert.ok(c.encoding === CHUNK_ENCODING_XOR || c.encoding === ENCODING_OOO_XOR, `${c.where}: encoding ${c.encoding}`);
      assert.ok(c.key !== undefined && !seriesByKey.has(c.key), `${c.where}: series ${c.key ?? '(unknown)'}`);
    }
  });

  test('the chunks carry all four counter reset headers', () => {
    const headers = new Set(series.flatMap((s) => s.blockChunks.map((c) => headerOf(c.data))));
    assert.deepEqual([...headers].sort(), [0, 1, 2, 3]);
  });
});

for (const set of histogramCodecSets()) {
  describe(`${set.name} histogram codecs against Prometheus' chunks`, () => {
    for (const s of series) {
      test(`decodes every chunk of ${s.key} to the query API's samples: ${s.description}`, () => {
        let at = 0;
        for (const c of s.blockChunks) at += checkDecoded(set, s, c, at);
        assert.equal(at, s.samples.length, `${s.key}: samples decoded from the blocks`);
        for (const c of s.headChunks) {
          const from = s.samples.findIndex((x) => x.t === c.minTime);
          assert.ok(from >= 0, `${s.key}, ${c.where}: no sample at its mint ${c.minTime}`);
          checkDecoded(set, s, c, from);
        }
      });

      test(`encodes the decoded samples of every chunk of ${s.key} to Prometheus' bytes`, () => {
        for (const c of [...s.blockChunks, ...s.headChunks]) {
          const codec = codecFor(set, c);
          const decoded = codec.decode(c.data);
          let got: Uint8Array;
          try {
            got = codec.encode(decoded.timestamps, decoded.histograms, decoded.header);
          } catch (err) {
            assert.fail(`${s.key}, chunk ${c.where} (${decoded.timestamps.length} samples): encode threw ${String(err)}`);
          }
          const want = Buffer.from(c.data);
          assert.deepEqual(Buffer.from(got), want, `${s.key}, chunk ${c.where}: ${firstDifference(got, want)}`);
        }
      });
    }
  });
}
