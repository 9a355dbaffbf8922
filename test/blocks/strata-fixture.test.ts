/**
 * The frozen Strata block (test/fixtures/strata/, see its README): a block
 * written by an earlier Strata must stay readable, and the current writer
 * must write the same input to the same bytes, so that any change to the
 * block format (index, chunk files, tombstones, meta.json) or to the XOR
 * encoder is caught, deliberate ones included (then remake the fixture).
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { BlockReader, listBlockDirs } from '../../src/blocks/block-reader.js';
import { ENCODING_XOR } from '../../src/chunkenc/encoding.js';
import { threadCodec } from '../../src/chunkenc/index.js';
import { MatchType } from '../../src/index/types.js';
import { BlockSeriesReader } from '../../src/query/block-series.js';
import { ByteArena } from '../../src/query/byte-arena.js';
import { FIXTURE_ULID, fixtureExpected, writeFixtureBlock, type FixtureExpected } from '../fixtures/strata/fixture.js';
import { onPath, parseDump, runPromtool, sameFloat } from '../support/promtool-dump.js';

const FIXTURE = new URL('../fixtures/strata/', import.meta.url).pathname;
const BLOCK = join(FIXTURE, 'blocks', FIXTURE_ULID);
const FILES = ['chunks/000001', 'index', 'meta.json', 'tombstones'];
const expected = JSON.parse(readFileSync(join(FIXTURE, 'expected.json'), 'utf8')) as FixtureExpected;

const temps: string[] = [];
after(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'strata-fixture-'));
  temps.push(d);
  return d;
}

const pairs = (labels: Record<string, string>): string[] => Object.entries(labels).flat();
const hex = (bits: bigint): string => bits.toString(16).padStart(16, '0');

describe('the frozen Strata block', () => {
  test('expected.json is what fixture.ts describes (the input was not changed without remaking)', () => {
    assert.deepEqual(fixtureExpected(), expected);
  });

  test('is one block with exactly the four files', () => {
    assert.deepEqual(listBlockDirs(join(FIXTURE, 'blocks')), [BLOCK]);
    const files = [...readdirSync(BLOCK).filter((f) => f !== 'chunks'), ...readdirSync(join(BLOCK, 'chunks')).map((f) => `chunks/${f}`)].sort();
    assert.deepEqual(files, FILES);
  });

  test('reads back with BlockReader: meta, every series, chunk and sample', () => {
    const block = BlockReader.open(BLOCK);
    try {
      assert.equal(block.ulid, expected.ulid);
      assert.deepEqual([block.minTime, block.maxTime], [expected.minTime, expected.maxTime]);
      assert.deepEqual(block.meta.stats, expected.stats);
      assert.deepEqual(block.meta.compaction, { level: 1, sources: [FIXTURE_ULID] });
      assert.equal(block.meta.thanos?.source, expected.thanos.source);
      assert.deepEqual(block.meta.thanos?.labels, expected.thanos.labels);
      assert.deepEqual(block.meta.thanos?.downsample, { resolution: 0 });
      assert.equal(block.tombstones, 0);
      assert.deepEqual(block.chunks.checkAll().chunks, expected.stats.numChunks, 'every chunk CRC');

      const codec = threadCodec();
      const refs = block.index.allPostings();
      assert.equal(refs.length, expected.series.length);
      const scratch = { labels: [] as string[], chunks: [] as number[] };
      let stale = 0;
      refs.forEach((ref, i) => {
        const want = expected.series[i]!;
        block.index.series(ref, scratch);
        assert.deepEqual(scratch.labels, pairs(want.labels), `series ${i}: labels`);
        const chunks: Array<[number, number, number]> = [];
        const samples: Array<[number, string]> = [];
        for (let k = 0; k < scratch.chunks.length; k += 3) {
          const c = block.chunks.chunk(scratch.chunks[k + 2]!);
          assert.equal(c.encoding, ENCODING_XOR);
          const { timestamps, values } = codec.decode(c.data);
          const bits = new BigUint64Array(values.buffer, values.byteOffset, values.length);
          chunks.push([scratch.chunks[k]!, scratch.chunks[k + 1]!, timestamps.length]);
          for (let j = 0; j < timestamps.length; j++) samples.push([Number(timestamps[j]), hex(bits[j]!)]);
        }
        assert.deepEqual(chunks, want.chunks, `series ${i}: chunk metas`);
        assert.deepEqual(samples, want.samples, `series ${i}: samples (raw bits)`);
        stale += samples.filter(([, b]) => b === '7ff0000000000002').length;
      });
      assert.equal(stale, 2, 'both stale markers kept their bits');

      const names = [...new Set(expected.series.flatMap((s) => Object.keys(s.labels)))].sort();
      assert.deepEqual(block.index.labelNames(), names);
      assert.deepEqual(block.index.labelValues('zone'), ['Zürich', '😀']);
      assert.deepEqual(block.index.labelValues('job'), ['api', 'new\nline', '中文']);
    } finally {
      block.close();
    }
  });

  test('BlockSeriesReader selects by matchers and reads chunks in a range', () => {
    const block = BlockReader.open(BLOCK);
    try {
      const reader = new BlockSeriesReader(block);
      assert.equal(reader.hasSurrogates(), true, 'an astral character (😀) is among the symbols');
      const got = reader.series([{ type: MatchType.RE, name: 'zone', value: '.+' }, { type: MatchType.NEQ, name: 'job', value: 'api' }], expected.minTime, expected.maxTime - 1);
      const want = expected.series.filter((s) => s.labels.zone !== undefined && s.labels.job !== 'api');
      assert.deepEqual(got.map((s) => [...s.labels]), want.map((s) => pairs(s.labels)));
      // A window: only chunks overlapping it, samples inside it as expected.
      const minT = expected.minTime + 1_800_000;
      const maxT = expected.minTime + 2_000_000;
      const all = reader.series([{ type: MatchType.EQ, name: '__name__', value: 'fx_counter' }], minT, maxT);
      assert.equal(all.length, 1);
      const chunks = reader.chunks(all[0]!.handle, minT, maxT, new ByteArena());
      assert.deepEqual(chunks.map((c) => [c.minT, c.maxT]), expected.series[0]!.chunks.filter(([a, b]) => b >= minT && a <= maxT).map(([a, b]) => [a, b]));
      const codec = threadCodec();
      const samples = chunks.flatMap((c) => {
        const { timestamps, values } = codec.decode(c.data);
        const bits = new BigUint64Array(values.buffer, values.byteOffset, values.length);
        return Array.from(timestamps, (t, j) => [Number(t), hex(bits[j]!)] as [number, string]);
      }).filter(([t]) => t >= minT && t <= maxT);
      assert.deepEqual(samples, expected.series[0]!.samples.filter(([t]) => t >= minT && t <= maxT));
      assert.deepEqual(reader.labelValues('job', [], expected.minTime, expected.minTime + 60_000), ['api', 'new\nline'], 'values of series with data in the first minute');
    } finally {
      block.close();
    }
  });

  test('writing the same input again gives the same bytes: index, chunks/000001, tombstones, meta.json', async () => {
    const dir = tempDir();
    await writeFixtureBlock(dir);
    const written = join(dir, FIXTURE_ULID);
    for (const f of FILES) {
      const a = readFileSync(join(written, f));
      const b = readFileSync(join(BLOCK, f));
      if (a.equals(b)) continue;
      let i = 0;
      while (i < a.length && i < b.length && a[i] === b[i]) i++;
      assert.fail(`${f} differs from the committed fixture at byte ${i} (written ${a.length} bytes, committed ${b.length}): the block format changed; if on purpose, remake the fixture (test/fixtures/strata/README.md)`);
    }
  });

  test('promtool tsdb dump of the committed block prints expected.json', (t) => {
    if (!onPath('promtool')) return t.skip('promtool not on PATH');
    const data = join(tempDir(), 'data');
    // promtool dump wants a data directory with a wal/ (and writes chunks_head/): a copy.
    cpSync(BLOCK, join(data, FIXTURE_ULID), { recursive: true });
    mkdirSync(join(data, 'wal'));
    const dump = parseDump(runPromtool(['tsdb', 'dump', `--min-time=${expected.minTime}`, `--max-time=${expected.maxTime - 1}`, data]));
    assert.deepEqual([...dump.keys()], expected.series.map((s) => JSON.stringify(pairs(s.labels))));
    for (const s of expected.series) {
      const got = dump.get(JSON.stringify(pairs(s.labels)))!;
      assert.deepEqual(got.samples.map((x) => x.t), s.samples.map(([ts]) => ts));
      got.samples.forEach((x, i) => {
        const want = new Float64Array(BigUint64Array.of(BigInt(`0x${s.samples[i]![1]}`)).buffer)[0]!;
        assert.ok(sameFloat(x.value, want), `${JSON.stringify(s.labels)} at ${x.t}: ${x.value} vs ${want}`);
      });
    }
  });
});
