/**
 * The block readers (src/blocks/{index,chunk,block}-reader.ts) against
 * blocks a real Prometheus wrote: the committed promtool 2.42 fixtures
 * (test/fixtures/prometheus, samples in expected.json) and, when promtool is
 * on the PATH, a bigger block made here from generated OpenMetrics. Also:
 * corrupted copies must fail with an error naming the file and the offset.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32c } from '@node-rs/crc32';
import { threadCodec } from '../../src/chunkenc/index.js';
import { BlockReader, listBlockDirs } from '../../src/blocks/block-reader.js';
import { BlockChunkReader } from '../../src/blocks/chunk-reader.js';
import { BlockFormatError, BlockIndexReader } from '../../src/blocks/index-reader.js';
import { havePromtool, prng, promtoolCreateBlocks, type OmSeries } from './promtool-block.js';

const fixtureDir = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/prometheus');
const blocksDir = join(fixtureDir, 'blocks');

interface ExpectedFile {
  series: Array<{ labels: Array<{ name: string; value: string }>; samples: Array<[string, string]> }>;
}

/** Prometheus' label order: bytewise UTF-8. */
function cmpUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** labels.Compare: pairwise name then value, then length. */
function cmpLabels(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = cmpUtf8(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

function key(labels: readonly string[]): string {
  return JSON.stringify(labels);
}

interface ReadSeries {
  timestamps: bigint[];
  bits: bigint[];
}

/**
 * Reads every series and chunk of `block`: checks index order, chunk metas
 * against the decoded chunks, every chunk CRC, and index/postings agreement;
 * appends samples to `into` by label set.
 */
function readWholeBlock(block: BlockReader, into: Map<string, ReadSeries>): { series: number; chunks: number; samples: number } {
  const { index, chunks } = block;
  const codec = threadCodec();
  const all = index.allPostings();
  const out = { labels: [] as string[], chunks: [] as number[] };
  const byPair = new Map<string, Map<string, number[]>>();
  let prev: string[] | undefined;
  let nChunks = 0;
  let nSamples = 0;
  for (let i = 0; i < all.length; i++) {
    const ref = all[i]!;
    if (i > 0) assert.ok(ref > all[i - 1]!, `allPostings ascending at ${i}`);
    index.series(ref, out);
    const labels = out.labels.slice();
    assert.ok(labels.length >= 2 && labels.length % 2 === 0, 'labels are pairs');
    for (let j = 2; j < labels.length; j += 2) assert.ok(cmpUtf8(labels[j - 2]!, labels[j]!) < 0, `label names sorted and unique in ${key(labels)}`);
    if (prev !== undefined) assert.ok(cmpLabels(prev, labels) < 0, `series in label order: ${key(prev)} before ${key(labels)}`);
    prev = labels;
    for (let j = 0; j < labels.length; j += 2) {
      let values = byPair.get(labels[j]!);
      if (values === undefined) byPair.set(labels[j]!, (values = new Map()));
      const refs = values.get(labels[j + 1]!) ?? [];
      refs.push(ref);
      values.set(labels[j + 1]!, refs);
    }
    let target = into.get(key(labels));
    if (target === undefined) into.set(key(labels), (target = { timestamps: [], bits: [] }));
    const metas = out.chunks;
    assert.equal(metas.length % 3, 0);
    for (let k = 0; k < metas.length; k += 3) {
      const [minT, maxT, cref] = [metas[k]!, metas[k + 1]!, metas[k + 2]!];
      chunks.verify(cref);
      const c = chunks.chunk(cref);
      assert.equal(c.encoding, 1, 'XOR chunk');
      const { timestamps, values } = codec.decode(c.data);
      assert.ok(timestamps.length > 0);
      assert.equal(timestamps[0], BigInt(minT), `chunk minT of ${key(labels)}`);
      assert.equal(timestamps[timestamps.length - 1], BigInt(maxT), `chunk maxT of ${key(labels)}`);
      assert.ok(minT >= block.minTime && maxT < block.maxTime, 'chunk inside the block range');
      const bits = new BigUint64Array(values.buffer, values.byteOffset, values.length);
      for (let s = 0; s < timestamps.length; s++) {
        target.timestamps.push(timestamps[s]!);
        target.bits.push(bits[s]!);
      }
      nChunks++;
      nSamples += timestamps.length;
    }
  }

  // Label names, values and postings agree with the series.
  const names = [...byPair.keys()].sort(cmpUtf8);
  assert.deepEqual(index.labelNames(), names);
  for (const name of names) {
    const values = [...byPair.get(name)!.keys()].sort(cmpUtf8);
    assert.deepEqual(index.labelValues(name), values, `values of ${name}`);
    const po = index.postingsOffsets(name)!;
    assert.deepEqual(po.values, values);
    for (let v = 0; v < values.length; v++) {
      const want = byPair.get(name)!.get(values[v]!)!;
      assert.deepEqual([...index.postings(name, values[v]!)], want, `postings ${name}=${values[v]}`);
      assert.deepEqual([...index.postingsAt(po.offsets[v]!)], want);
    }
    assert.equal(index.postings(name, '\u{10FFFF}no such value').length, 0);
    assert.equal(index.postings(name, '').length, 0);
  }
  assert.equal(index.postings('no_such_label', 'x').length, 0);
  assert.equal(index.postingsOffsets('no_such_label'), undefined);
  assert.deepEqual(index.labelValues('no_such_label'), []);
  assert.equal(chunks.checkAll().chunks, nChunks, 'every chunk of the segments is referenced once');
  return { series: all.length, chunks: nChunks, samples: nSamples };
}

function fileSizes(dir: string): number {
  let n = 0;
  for (const f of ['meta.json', 'index', 'tombstones']) n += statSync(join(dir, f)).size;
  for (const f of readdirSync(join(dir, 'chunks'))) n += statSync(join(dir, 'chunks', f)).size;
  return n;
}

describe('block readers on promtool 2.42 fixtures', () => {
  test('every series and chunk gives exactly the samples of expected.json', () => {
    const expected = JSON.parse(readFileSync(join(fixtureDir, 'expected.json'), 'utf8')) as ExpectedFile;
    const dirs = listBlockDirs(blocksDir);
    assert.equal(dirs.length, readdirSync(blocksDir).length);
    const blocks = dirs.map((d) => BlockReader.open(d)).sort((a, b) => a.minTime - b.minTime);
    const got = new Map<string, ReadSeries>();
    for (const b of blocks) {
      const n = readWholeBlock(b, got);
      assert.equal(n.series, b.meta.stats.numSeries, `numSeries of ${b.ulid}`);
      assert.equal(n.chunks, b.meta.stats.numChunks, `numChunks of ${b.ulid}`);
      assert.equal(n.samples, b.meta.stats.numSamples, `numSamples of ${b.ulid}`);
      assert.equal(b.tombstones, 0);
      assert.equal(b.sizeBytes(), fileSizes(b.dir));
      assert.equal(b.ulid, b.dir.split('/').pop());
      assert.equal(b.index.version, 2);
      b.close();
    }
    assert.equal(got.size, expected.series.length);
    for (const s of expected.series) {
      const labels = s.labels.flatMap((l) => [l.name, l.value]);
      const g = got.get(key(labels));
      assert.ok(g !== undefined, `series ${key(labels)} read`);
      assert.equal(g.timestamps.length, s.samples.length, `sample count of ${key(labels)}`);
      for (let i = 0; i < s.samples.length; i++) {
        const [t, v] = s.samples[i]!;
        if (g.timestamps[i] !== BigInt(t) || g.bits[i] !== BigInt(`0x${v}`)) {
          assert.fail(`${key(labels)} sample ${i}: got ${g.timestamps[i]} ${g.bits[i]!.toString(16)}, want ${t} ${v}`);
        }
      }
    }
  });

  test('symbols, series reuse of out arrays, close', () => {
    const dir = listBlockDirs(blocksDir)[0]!;
    const index = BlockIndexReader.open(join(dir, 'index'));
    const out = { labels: ['stale', 'x'], chunks: [1, 2, 3, 4, 5, 6] };
    const ref = index.allPostings()[0]!;
    index.series(ref, out);
    assert.equal(out.labels[0], '__name__');
    assert.equal(out.chunks.length, 3);
    assert.equal(index.symbol(0) <= index.symbol(1), true);
    assert.throws(() => index.symbol(1e6), /symbol reference 1000000 out of range/);
    assert.throws(() => index.series(0, out), (e: unknown) => e instanceof BlockFormatError && /series ref 0/.test(e.message));
    assert.throws(() => index.series(ref + 0.5, out), BlockFormatError);
    assert.throws(() => index.series(1e9, out), BlockFormatError);
    assert.throws(() => index.postingsAt(1), BlockFormatError);
    index.close();
    assert.throws(() => index.series(ref, out), /closed/);
    assert.throws(() => index.labelNames(), /closed/);
  });

  test('chunk refs past the end, in a missing segment or in the header are errors', () => {
    const dir = listBlockDirs(blocksDir)[0]!;
    const cr = BlockChunkReader.open(join(dir, 'chunks'));
    const seg = join(dir, 'chunks', '000001');
    assert.throws(() => cr.chunk(cr.size), (e: unknown) => e instanceof BlockFormatError && e.file === seg && e.offset === cr.size && e.message.includes(seg));
    assert.throws(() => cr.chunk(cr.size - 3), (e: unknown) => e instanceof BlockFormatError && /runs past the segment's end/.test(e.message));
    assert.throws(() => cr.chunk(2 ** 32 + 8), /segment index 1 .*1 segment file/);
    assert.throws(() => cr.chunk(4), /outside the segment's chunks/);
    assert.throws(() => cr.chunk(-1), /not a non-negative integer/);
    assert.throws(() => cr.verify(cr.size + 100), BlockFormatError);
    cr.close();
    assert.throws(() => cr.chunk(8), /closed/);
  });
});

describe('corrupted copies fail with the file and the offset', () => {
  let work: string;
  let source: string;
  let toc: number[];
  let indexSize: number;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'strata-blocks-'));
    // The block with the most series.
    source = listBlockDirs(blocksDir).sort((a, b) => statSync(join(b, 'index')).size - statSync(join(a, 'index')).size)[0]!;
    const idx = readFileSync(join(source, 'index'));
    indexSize = idx.length;
    toc = [0, 1, 2, 3, 4, 5].map((i) => Number(idx.readBigUInt64BE(idx.length - 52 + i * 8)));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  let n = 0;
  /** A fresh copy of the source block with `edit` applied to one of its files. */
  function corrupt(file: string, edit: (b: Buffer) => Buffer): string {
    const dir = join(work, `copy${n++}`, '01M7YE74X93T4B2X74PCD6ZRCV');
    mkdirSync(dirname(dir), { recursive: true });
    cpSync(source, dir, { recursive: true });
    const path = join(dir, file);
    writeFileSync(path, edit(readFileSync(path)));
    return dir;
  }
  function flip(at: number): (b: Buffer) => Buffer {
    return (b) => {
      b[at] = b[at]! ^ 0x20;
      return b;
    };
  }
  function fails(fn: () => unknown, file: string, offset: number | undefined, problem: RegExp): void {
    assert.throws(fn, (e: unknown) => {
      assert.ok(e instanceof BlockFormatError, `a BlockFormatError, got ${String(e)}`);
      assert.equal(e.file, file);
      if (offset !== undefined) assert.equal(e.offset, offset);
      assert.match(e.message, problem);
      assert.ok(e.message.includes(file) && e.message.includes(`at byte offset ${e.offset}`), e.message);
      return true;
    });
  }

  test('a byte of the symbol table', () => {
    const dir = corrupt('index', flip(toc[0]! + 4 + 4 + 1));
    fails(() => BlockReader.open(dir), join(dir, 'index'), undefined, /symbol table CRC32C mismatch/);
  });

  test('a byte of a series entry: open works, reading that series fails', () => {
    const idx = readFileSync(join(source, 'index'));
    const first = Math.ceil(toc[1]! / 16) * 16;
    const dir = corrupt('index', flip(first + 3));
    const b = BlockReader.open(dir);
    const out = { labels: [] as string[], chunks: [] as number[] };
    fails(() => b.index.series(first / 16, out), join(dir, 'index'), first + 1 + idx[first]!, /series \d+: CRC32C mismatch/);
    // The other series still read.
    const all = b.index.allPostings();
    for (const ref of all.subarray(1)) b.index.series(ref, out);
    b.close();
  });

  test('a byte of the TOC', () => {
    const dir = corrupt('index', flip(indexSize - 52 + 7));
    fails(() => BlockIndexReader.open(join(dir, 'index')), join(dir, 'index'), indexSize - 4, /TOC CRC32C mismatch/);
  });

  test('a byte of the postings offset table', () => {
    const dir = corrupt('index', flip(toc[5]! + 10));
    fails(() => BlockIndexReader.open(join(dir, 'index')), join(dir, 'index'), undefined, /postings offset table CRC32C mismatch/);
  });

  test('a byte of a postings list', () => {
    const dir = corrupt('index', flip(toc[4]! + 4 + 4 + 3));
    const ir = BlockIndexReader.open(join(dir, 'index'));
    fails(() => ir.allPostings(), join(dir, 'index'), undefined, /postings list CRC32C mismatch/);
  });

  test('a truncated index', () => {
    for (const size of [indexSize - 1, indexSize - 60, 40, 3]) {
      const dir = corrupt('index', (b) => b.subarray(0, size));
      fails(() => BlockIndexReader.open(join(dir, 'index')), join(dir, 'index'), undefined, size < 57 ? /too short/ : /TOC CRC32C mismatch/);
    }
    const empty = corrupt('index', () => Buffer.alloc(0));
    fails(() => BlockReader.open(empty), join(empty, 'index'), 0, /empty/);
  });

  test('bad magic and version', () => {
    const dir = corrupt('index', flip(0));
    fails(() => BlockReader.open(dir), join(dir, 'index'), 0, /bad index magic/);
    const v1 = corrupt('index', (b) => {
      b[4] = 1;
      return b;
    });
    fails(() => BlockReader.open(v1), join(v1, 'index'), 4, /version 1/);
    const seg = corrupt('chunks/000001', flip(4));
    fails(() => BlockReader.open(seg), join(seg, 'chunks/000001'), 4, /chunk segment format version/);
  });

  test('a byte of a chunk: chunk() still hands out its view, verify() and checkAll() fail', () => {
    const dir = corrupt('chunks/000001', flip(8 + 5));
    const b = BlockReader.open(dir);
    const out = { labels: [] as string[], chunks: [] as number[] };
    b.index.series(b.index.allPostings()[0]!, out);
    const ref = out.chunks[2]!;
    assert.equal(ref, 8);
    assert.equal(b.chunks.chunk(ref).encoding, 1);
    fails(() => b.chunks.verify(ref), join(dir, 'chunks/000001'), undefined, /CRC32C mismatch of the chunk at offset 8/);
    fails(() => b.chunks.checkAll(), join(dir, 'chunks/000001'), undefined, /CRC32C mismatch/);
  });

  test('a truncated chunk segment', () => {
    const size = statSync(join(source, 'chunks/000001')).size;
    const dir = corrupt('chunks/000001', (b) => b.subarray(0, size - 2));
    const b = BlockReader.open(dir);
    fails(() => b.chunks.checkAll(), join(dir, 'chunks/000001'), undefined, /runs past the segment's end/);
    const short = corrupt('chunks/000001', (x) => x.subarray(0, 5));
    fails(() => BlockReader.open(short), join(short, 'chunks/000001'), 0, /too short/);
  });

  test('meta.json and tombstones', () => {
    const meta = JSON.parse(readFileSync(join(source, 'meta.json'), 'utf8')) as Record<string, unknown>;
    const cases: Array<[unknown, RegExp]> = [
      [{ ...meta, version: 2 }, /meta file version 2/],
      [{ ...meta, ulid: 'nope' }, /not a ULID/],
      [{ ...meta, minTime: 10, maxTime: 5 }, /minTime 10 is after maxTime 5/],
      [{ ...meta, minTime: '1' }, /minTime/],
      [{ ...meta, stats: { numSamples: -1 } }, /stats.numSamples/],
      [{ ...meta, thanos: { labels: { a: 1 } } }, /thanos.labels.a/],
    ];
    for (const [m, problem] of cases) {
      const dir = corrupt('meta.json', () => Buffer.from(JSON.stringify(m)));
      fails(() => BlockReader.open(dir), join(dir, 'meta.json'), 0, problem);
    }
    const notJson = corrupt('meta.json', (b) => b.subarray(0, 10));
    fails(() => BlockReader.open(notJson), join(notJson, 'meta.json'), 0, /not valid JSON/);
    const thanos = corrupt('meta.json', () =>
      Buffer.from(JSON.stringify({ ...meta, thanos: { labels: { replica: 'a' }, downsample: { resolution: 0 }, source: 'sidecar' } })),
    );
    const tb = BlockReader.open(thanos);
    assert.deepEqual(tb.meta.thanos, { labels: { replica: 'a' }, downsample: { resolution: 0 }, source: 'sidecar' });
    assert.equal(tb.meta.compaction.level, 1);

    const badCrc = corrupt('tombstones', () => Buffer.from([0x01, 0x30, 0xba, 0x30, 1, 5, 2, 4, 0, 0, 0, 1]));
    fails(() => BlockReader.open(badCrc), join(badCrc, 'tombstones'), 8, /tombstones CRC32C mismatch/);
    const badMagic = corrupt('tombstones', flip(1));
    fails(() => BlockReader.open(badMagic), join(badMagic, 'tombstones'), 0, /tombstones magic/);
  });

  test('a block with tombstones is readable and counts them', () => {
    // Two intervals: series 4 [-10, 20], series 4 [100, 200] (zig-zag varints).
    const body = Buffer.from([4, 19, 40, 4, 0xc8, 0x01, 0x90, 0x03]);
    const file = Buffer.alloc(5 + body.length + 4);
    file.writeUInt32BE(0x0130ba30, 0);
    file[4] = 1;
    body.copy(file, 5);
    file.writeUInt32BE(crc32c(body) >>> 0, 5 + body.length);
    const dir = corrupt('tombstones', () => file);
    const b = BlockReader.open(dir);
    assert.equal(b.tombstones, 2);
    assert.equal(b.sizeBytes(), fileSizes(dir));
    const none = corrupt('tombstones', (x) => x);
    rmSync(join(none, 'tombstones'));
    assert.equal(BlockReader.open(none).tombstones, 0);
  });
});

test('listBlockDirs keeps ULID directories only, sorted', () => {
  const dir = mkdtempSync(join(tmpdir(), 'strata-list-'));
  try {
    const names = ['01M7YE74X93T4B2X74PCD6ZRCV', '01H00000000000000000000000', '01M7YE74R1BP8N5CZP462MGEFV'];
    for (const n of names) mkdirSync(join(dir, n));
    mkdirSync(join(dir, '01M7YE74V2DA3AEM4H968Q75J9.tmp-for-creation'));
    mkdirSync(join(dir, '01M7YE74W3VMHGYFYEFMNEZZ0D.tmp-for-deletion'));
    mkdirSync(join(dir, 'wal'));
    mkdirSync(join(dir, 'chunks_head'));
    mkdirSync(join(dir, '01M7YE74W3VMHGYFYEFMNEZZ0I')); // I is not Crockford
    mkdirSync(join(dir, '81M7YE74W3VMHGYFYEFMNEZZ0D')); // over 2^128
    writeFileSync(join(dir, '01M7YE74SNPEY81VFFG6WYFXJD'), ''); // a file
    assert.deepEqual(listBlockDirs(dir), [...names].sort().map((n) => join(dir, n)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('a bigger block made by promtool', { skip: havePromtool() ? false : 'promtool is not on the PATH' }, () => {
  test('2,000 series x 100 samples with unicode label values read back exactly', () => {
    const work = mkdtempSync(join(tmpdir(), 'strata-promtool-'));
    try {
      const rand = prng(42);
      const cities = ['Zürich', 'Ｔｏｋｙｏ', '😀 smile', 'São Paulo', 'Ａ', 'plain', 'quote"d \\ back', 'Ωmega', '\u00e9t\u00e9', '東京'];
      const series: OmSeries[] = [];
      const start = 1_700_006_400_000 + 3_600_000; // one hour before a 2 h block edge
      const specials = [Number.NaN, Infinity, -Infinity, -0, 0, Number.MIN_VALUE, Number.MAX_VALUE];
      for (let m = 0; m < 10; m++) {
        const group: OmSeries[] = [];
        for (let i = 0; i < 200; i++) {
          const labels = [
            '__name__', `strata_reader_test_${m}`,
            'city', cities[i % cities.length]!,
            'id', `${i}-${'é'.repeat(i % 3)}${i % 7 === 0 ? '\u{1F680}' : ''}`,
            'job', i % 2 === 0 ? 'api' : 'db',
          ];
          const timestamps: number[] = [];
          const values: number[] = [];
          const first = start + (i % 120) * 500;
          let v = rand() * 1000;
          for (let s = 0; s < 100; s++) {
            timestamps.push(first + s * 60_000 + (s % 5 === 4 ? 500 : 0));
            const r = rand();
            v = r < 0.02 ? specials[Math.floor(r * 350) % specials.length]! : r < 0.3 ? v : r < 0.6 ? Math.round(v + rand() * 10) : (rand() - 0.5) * 10 ** Math.floor(rand() * 20 - 10);
            values.push(v);
          }
          group.push({ labels, timestamps, values });
        }
        series.push(...group);
      }
      const out = join(work, 'blocks');
      mkdirSync(out);
      promtoolCreateBlocks(series, work, out);
      const dirs = listBlockDirs(out);
      assert.ok(dirs.length >= 2, `blocks on both sides of the 2 h edge: ${dirs.length}`);
      const got = new Map<string, ReadSeries>();
      const blocks = dirs.map((d) => BlockReader.open(d)).sort((a, b) => a.minTime - b.minTime);
      for (const b of blocks) {
        const n = readWholeBlock(b, got);
        assert.equal(n.series, b.meta.stats.numSeries);
        assert.equal(n.samples, b.meta.stats.numSamples);
        assert.equal(b.sizeBytes(), fileSizes(b.dir));
        // UTF-8 order, not UTF-16: U+FF21 'Ａ' sorts before U+1F600.
        const cityValues = b.index.labelValues('city');
        assert.ok(cityValues.indexOf('Ａ') < cityValues.indexOf('😀 smile'), cityValues.join(' | '));
        b.close();
      }
      assert.equal(got.size, series.length);
      const bits = new BigUint64Array(1);
      const f = new Float64Array(bits.buffer);
      for (const s of series) {
        const g = got.get(key(s.labels));
        assert.ok(g !== undefined, `series ${key(s.labels)} read`);
        assert.equal(g.timestamps.length, s.timestamps.length);
        for (let i = 0; i < s.timestamps.length; i++) {
          f[0] = s.values[i]!;
          const want = Number.isNaN(s.values[i]) ? 0x7ff8000000000001n : bits[0]!;
          if (g.timestamps[i] !== BigInt(s.timestamps[i]!) || g.bits[i] !== want) {
            assert.fail(`${key(s.labels)} sample ${i}: got ${g.timestamps[i]} ${g.bits[i]!.toString(16)}, want ${s.timestamps[i]} ${want.toString(16)}`);
          }
        }
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
