/**
 * Byte-for-byte compatibility with Prometheus: every codec must decode the
 * XOR chunks a real Prometheus (promtool 2.42) wrote into
 * test/fixtures/prometheus/blocks to exactly the samples of expected.json,
 * and encode those samples back to exactly Prometheus' bytes. The fixtures
 * are committed; remaking them (npm run fixtures:prometheus) needs promtool,
 * these tests do not. Values are compared as raw float64 bits, never as
 * numbers, so NaN payloads count.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codecs } from '../../src/chunkenc/index.js';
import type { XorCodec } from '../../src/chunkenc/index.js';
import {
  CHUNK_ENCODING_XOR,
  formatLabels,
  readBlock,
  readChunkSegmentFile,
} from '../support/prometheus-chunks.js';
import type { Block, Label } from '../support/prometheus-chunks.js';

const fixtureDir = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/prometheus');

interface ExpectedFile {
  series: Array<{ labels: Label[]; description: string; samples: Array<[string, string]> }>;
}

interface FixtureChunk {
  /** Where the chunk sits, for messages: block-relative file and offset. */
  where: string;
  minTime: bigint;
  maxTime: bigint;
  encoding: number;
  data: Uint8Array;
}

interface FixtureSeries {
  key: string;
  description: string;
  timestamps: BigInt64Array;
  /** Raw float64 bits of the values. */
  bits: BigUint64Array;
  /** Chunks of all blocks, in time order. */
  chunks: FixtureChunk[];
}

const expected = JSON.parse(readFileSync(join(fixtureDir, 'expected.json'), 'utf8')) as ExpectedFile;
const blocks: Block[] = readdirSync(join(fixtureDir, 'blocks'))
  .map((ulid) => readBlock(join(fixtureDir, 'blocks', ulid)))
  .sort((a, b) => a.meta.minTime - b.meta.minTime);

const series: FixtureSeries[] = expected.series.map((s) => ({
  key: formatLabels(s.labels),
  description: s.description,
  timestamps: BigInt64Array.from(s.samples, ([t]) => BigInt(t)),
  bits: BigUint64Array.from(s.samples, ([, v]) => BigInt(`0x${v}`)),
  chunks: [],
}));
const seriesByKey = new Map(series.map((s) => [s.key, s]));
const unexpectedSeries: string[] = [];
for (const block of blocks) {
  for (const s of block.series) {
    const key = formatLabels(s.labels);
    const target = seriesByKey.get(key);
    if (target === undefined) {
      unexpectedSeries.push(`${key} in block ${block.meta.ulid}`);
      continue;
    }
    for (const c of s.chunks) {
      target.chunks.push({
        where: `${relative(fixtureDir, c.file)} at offset ${c.offset}`,
        minTime: c.minTime,
        maxTime: c.maxTime,
        encoding: c.encoding,
        data: c.data,
      });
    }
  }
}

/** Sample count from the XOR chunk header (2 bytes, big endian). */
function headerCount(data: Uint8Array): number {
  return ((data[0] ?? 0) << 8) | (data[1] ?? 0);
}

function hex64(b: bigint): string {
  return b.toString(16).padStart(16, '0');
}

/** Raw bits of a Float64Array's values, without going through numbers. */
function bitsOf(values: Float64Array): BigUint64Array {
  return new BigUint64Array(values.buffer, values.byteOffset, values.length);
}

/** A fresh Float64Array holding exactly these bits (NaN payloads included). */
function floatsOf(bits: BigUint64Array): Float64Array {
  return new Float64Array(bits.slice().buffer);
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

describe("Prometheus' XOR chunk fixtures", () => {
  test('every chunk in blocks/*/chunks/* is referenced by exactly one series of its index', () => {
    for (const block of blocks) {
      const refs = new Map<string, number>();
      for (const s of block.series) {
        for (const c of s.chunks) {
          const id = `${c.file}@${c.offset}`;
          refs.set(id, (refs.get(id) ?? 0) + 1);
        }
      }
      for (const file of block.segmentFiles) {
        for (const chunk of readChunkSegmentFile(file)) {
          const id = `${file}@${chunk.offset}`;
          assert.equal(refs.get(id), 1, `${relative(fixtureDir, file)} chunk at ${chunk.offset}: references`);
          refs.delete(id);
        }
      }
      assert.deepEqual([...refs.keys()], [], `block ${block.meta.ulid}: references to missing chunks`);
    }
  });

  test('the blocks hold exactly the series of expected.json, in XOR chunks whose counts add up', () => {
    assert.deepEqual(unexpectedSeries, [], 'series in the blocks but not in expected.json');
    for (const s of series) {
      assert.ok(s.chunks.length > 0, `${s.key} has no chunks`);
      let total = 0;
      for (const c of s.chunks) {
        assert.equal(c.encoding, CHUNK_ENCODING_XOR, `${s.key}, ${c.where}: encoding`);
        total += headerCount(c.data);
      }
      assert.equal(total, s.timestamps.length, `${s.key}: samples in its chunks`);
    }
  });

  test("expected.json holds Go's NaN (0x7ff8000000000001), as Prometheus' parser stores \"NaN\"", () => {
    const nan = 0x7ff8000000000001n;
    assert.ok(series.some((s) => s.bits.includes(nan)));
  });
});

for (const codec of codecs) {
  describeCodec(codec);
}

function describeCodec(codec: XorCodec): void {
  describe(`${codec.name} XOR codec against Prometheus' chunks`, () => {
    for (const s of series) {
      test(`decodes ${s.key} bit-exactly: ${s.description}`, () => {
        let at = 0;
        for (const c of s.chunks) {
          const where = `${s.key}, chunk ${c.where}, samples from ${at}`;
          const got = codec.decode(c.data);
          const n = got.timestamps.length;
          assert.equal(got.values.length, n, `${where}: values and timestamps differ in length`);
          assert.ok(n > 0, `${where}: decoded no samples`);
          assert.ok(at + n <= s.timestamps.length, `${where}: ${n} samples run past the series' end`);
          assert.deepEqual(
            Array.from(got.timestamps, String),
            Array.from(s.timestamps.subarray(at, at + n), String),
            `${where}: timestamps`,
          );
          assert.deepEqual(
            Array.from(bitsOf(got.values), hex64),
            Array.from(s.bits.subarray(at, at + n), hex64),
            `${where}: value bits`,
          );
          assert.equal(got.timestamps[0], c.minTime, `${where}: first timestamp vs the index's mint`);
          assert.equal(got.timestamps[n - 1], c.maxTime, `${where}: last timestamp vs the index's maxt`);
          at += n;
        }
        assert.equal(at, s.timestamps.length, `${s.key}: samples decoded from all its chunks`);
      });

      test(`encodes ${s.key} to Prometheus' bytes, chunk by chunk`, () => {
        let at = 0;
        for (const c of s.chunks) {
          const n = headerCount(c.data);
          const encoded = codec.encode(
            s.timestamps.slice(at, at + n),
            floatsOf(s.bits.subarray(at, at + n)),
          );
          const got = Buffer.from(encoded);
          const want = Buffer.from(c.data);
          assert.deepEqual(
            got,
            want,
            `${s.key}, chunk ${c.where} (samples ${at}..${at + n - 1}): ${firstDifference(got, want)}`,
          );
          at += n;
        }
      });
    }
  });
}
