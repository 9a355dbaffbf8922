/**
 * The block writer against Prometheus' format: the fixture blocks written by
 * a real Prometheus are rewritten byte for byte, and an independent reader
 * (below, written from tsdb/docs/format/index.md) checks every section of
 * what we write.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { crc32c } from '@node-rs/crc32';
import { chunkSampleCount, removeTmpBlockDirs, writeBlock } from '../../src/blocks/block-writer.js';
import { ChunkWriter, DEFAULT_SEGMENT_BYTES, splitChunkRef } from '../../src/blocks/chunk-writer.js';
import { ByteBuffer } from '../../src/encoding/byte-buffer.js';
import { putVarint, readUvarint, readVarint, varintSize } from '../../src/encoding/varint.js';
import { IndexWriter } from '../../src/blocks/index-writer.js';
import { encodeMeta, readMetaFile, writeMetaFile } from '../../src/blocks/meta.js';
import { addInterval, parseTombstones, readTombstones, writeEmptyTombstones } from '../../src/blocks/tombstones.js';
import { ENCODING_XOR } from '../../src/chunkenc/encoding.js';
import { type BlockMeta, type BlockSeriesInput } from '../../src/blocks/types.js';
import { isUlid, newUlid } from '../../src/blocks/ulid.js';
import { threadCodec } from '../../src/chunkenc/index.js';
import { readBlock, readChunkSegmentFile } from '../support/prometheus-chunks.js';
import { rng } from '../support/series.js';

const FIXTURES = 'test/fixtures/prometheus/blocks';
const temps: string[] = [];
after(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'strata-blocks-'));
  temps.push(d);
  return d;
}

// ------------------------------------------------------------ an independent index reader

const utf8 = new TextDecoder('utf-8', { fatal: true });

class Reader {
  constructor(
    readonly b: Uint8Array,
    public pos: number,
  ) {}
  u8(): number {
    assert.ok(this.pos < this.b.length, 'read past end');
    return this.b[this.pos++]!;
  }
  be32(): number {
    const v = new DataView(this.b.buffer, this.b.byteOffset + this.pos, 4).getUint32(0);
    this.pos += 4;
    return v;
  }
  be64(): number {
    const v = new DataView(this.b.buffer, this.b.byteOffset + this.pos, 8).getBigUint64(0);
    this.pos += 8;
    return Number(v);
  }
  uvarint(): number {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const x = this.u8();
      v |= BigInt(x & 0x7f) << shift;
      if (x < 0x80) return Number(v);
    }
  }
  varint(): number {
    let u = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const x = this.u8();
      u |= BigInt(x & 0x7f) << shift;
      if (x < 0x80) break;
    }
    return Number(BigInt.asIntN(64, (u >> 1n) ^ -(u & 1n)));
  }
  str(): string {
    const n = this.uvarint();
    const s = utf8.decode(this.b.subarray(this.pos, this.pos + n));
    this.pos += n;
    return s;
  }
}

/** A section `len <4b> | body | CRC32C`: checks the CRC and returns a reader over the body. */
function section(b: Uint8Array, at: number, what: string): { r: Reader; end: number } {
  const r = new Reader(b, at);
  const len = r.be32();
  const body = b.subarray(at + 4, at + 4 + len);
  const stored = new DataView(b.buffer, b.byteOffset + at + 4 + len, 4).getUint32(0);
  assert.equal(stored, crc32c(body) >>> 0, `${what} CRC at ${at}`);
  return { r, end: at + 4 + len + 4 };
}

interface ParsedIndex {
  toc: number[];
  symbols: string[];
  seriesOffsets: number[];
  series: Array<{ labels: string[]; chunks: Array<{ minT: number; maxT: number; ref: number }> }>;
  labelIndices: Array<{ name: string; offset: number; values: string[] }>;
  postings: Array<{ name: string; value: string; offset: number; refs: number[] }>;
}

function parseIndex(b: Uint8Array): ParsedIndex {
  const head = new Reader(b, 0);
  assert.equal(head.be32(), 0xbaaad700, 'magic');
  assert.equal(head.u8(), 2, 'version');
  const tocAt = b.length - 52;
  const tr = new Reader(b, tocAt);
  const toc = Array.from({ length: 6 }, () => tr.be64());
  assert.equal(tr.be32(), crc32c(b.subarray(tocAt, tocAt + 48)) >>> 0, 'TOC CRC');
  const [symbolsAt, seriesAt, labelIndicesAt, labelTableAt, postingsAt, postingsTableAt] = toc as [number, number, number, number, number, number];
  assert.equal(symbolsAt, 5);

  const sym = section(b, symbolsAt, 'symbol table');
  const count = sym.r.be32();
  const symbols = Array.from({ length: count }, () => sym.r.str());
  assert.equal(sym.r.pos, sym.end - 4, 'symbol table length');
  assert.equal(seriesAt, sym.end, 'series start right after the symbol table');

  const seriesOffsets: number[] = [];
  const series: ParsedIndex['series'] = [];
  let pos = seriesAt;
  while (true) {
    while (pos < labelIndicesAt && pos % 16 !== 0) {
      assert.equal(b[pos], 0, 'padding before a series is zero');
      pos++;
    }
    if (pos >= labelIndicesAt) break;
    seriesOffsets.push(pos);
    const r = new Reader(b, pos);
    const len = r.uvarint();
    const bodyAt = r.pos;
    assert.equal(new DataView(b.buffer, b.byteOffset + bodyAt + len, 4).getUint32(0), crc32c(b.subarray(bodyAt, bodyAt + len)) >>> 0, 'series CRC');
    const n = r.uvarint();
    const labels: string[] = [];
    for (let i = 0; i < n; i++) labels.push(symbols[r.uvarint()]!, symbols[r.uvarint()]!);
    const nc = r.uvarint();
    const chunks: Array<{ minT: number; maxT: number; ref: number }> = [];
    for (let i = 0; i < nc; i++) {
      const prev = chunks[i - 1];
      const minT = prev === undefined ? r.varint() : prev.maxT + r.uvarint();
      const maxT = minT + r.uvarint();
      const ref = prev === undefined ? r.uvarint() : prev.ref + r.varint();
      chunks.push({ minT, maxT, ref });
    }
    assert.equal(r.pos, bodyAt + len, 'series body length');
    series.push({ labels, chunks });
    pos = bodyAt + len + 4;
  }
  assert.equal(pos, labelIndicesAt, 'series end where label indices start');

  // Label offset table, then each label index it points at.
  const lt = section(b, labelTableAt, 'label offset table');
  const labelIndices: ParsedIndex['labelIndices'] = [];
  const nNames = lt.r.be32();
  for (let i = 0; i < nNames; i++) {
    assert.equal(lt.r.uvarint(), 1);
    const name = lt.r.str();
    const offset = lt.r.uvarint();
    assert.equal(offset % 4, 0, 'label index 4-byte aligned');
    const li = section(b, offset, `label index ${name}`);
    assert.equal(li.r.be32(), 1, '#names');
    const n = li.r.be32();
    labelIndices.push({ name, offset, values: Array.from({ length: n }, () => symbols[li.r.be32()]!) });
  }
  assert.equal(lt.end, postingsTableAt, 'postings offset table right after the label offset table');

  const pt = section(b, postingsTableAt, 'postings offset table');
  assert.equal(pt.end, tocAt, 'TOC right after the postings offset table');
  const postings: ParsedIndex['postings'] = [];
  const nPostings = pt.r.be32();
  for (let i = 0; i < nPostings; i++) {
    assert.equal(pt.r.uvarint(), 2);
    const name = pt.r.str();
    const value = pt.r.str();
    const offset = pt.r.uvarint();
    assert.equal(offset % 4, 0, 'postings list 4-byte aligned');
    assert.ok(offset >= postingsAt && offset < labelTableAt, 'postings list inside the postings section');
    const pl = section(b, offset, `postings ${name}=${value}`);
    const n = pl.r.be32();
    postings.push({ name, value, offset, refs: Array.from({ length: n }, () => pl.r.be32()) });
  }
  return { toc, symbols, seriesOffsets, series, labelIndices, postings };
}

function utf8Order(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function xorChunk(timestamps: number[], values: number[]): { minT: number; maxT: number; encoding: number; data: Uint8Array } {
  const data = threadCodec().encode(BigInt64Array.from(timestamps.map(BigInt)), Float64Array.from(values));
  return { minT: timestamps[0]!, maxT: timestamps[timestamps.length - 1]!, encoding: ENCODING_XOR, data };
}

function flat(labels: Record<string, string>): string[] {
  return Object.keys(labels)
    .sort(utf8Order)
    .flatMap((k) => [k, labels[k]!]);
}

// ------------------------------------------------------------ tests

describe('byte-compatibility with Prometheus 2.42', () => {
  for (const id of readdirSync(FIXTURES)) {
    test(`rewrites fixture block ${id} byte for byte`, async () => {
      const src = join(FIXTURES, id);
      const block = readBlock(src);
      const out = tempDir();
      const series: BlockSeriesInput[] = block.series.map((s) => ({
        labels: s.labels.flatMap((l) => [l.name, l.value]),
        chunks: s.chunks.map((c) => ({ minT: Number(c.minTime), maxT: Number(c.maxTime), encoding: c.encoding, data: c.data })),
      }));
      const meta = await writeBlock({
        blocksDir: out,
        ulid: id,
        minTime: block.meta.minTime,
        maxTime: block.meta.maxTime,
        symbols: series.flatMap((s) => s.labels),
        series,
      });
      assert.ok(meta);
      for (const f of ['index', 'chunks/000001', 'tombstones', 'meta.json']) {
        assert.ok(readFileSync(join(out, id, f)).equals(readFileSync(join(src, f))), `${f} differs from Prometheus'`);
      }
      assert.deepEqual(readdirSync(out), [id]);
    });
  }
});

describe('index format', () => {
  const labelSets = ([
    { __name__: 'up', job: 'api', zone: 'a' },
    { __name__: 'up', job: 'api', zone: 'b' },
    { __name__: 'up', job: 'db' },
    { __name__: 'up', job: 'é' },
    { __name__: 'up', job: '\uffff' },
    { __name__: 'up', job: '😀' },
    { __name__: 'up', job: '中文' },
    { __name__: 'up', job: 'Z' },
    { __name__: 'temp', city: 'Zürich', 'ünïcode': 'x' },
    { __name__: 'temp', city: 'Ångström' },
    { __name__: 'temp', city: '𝔘' },
  ] as Array<Record<string, string>>).map(flat);

  async function writeSample(segmentBytes?: number): Promise<{ dir: string; meta: BlockMeta; sorted: string[][] }> {
    const sorted = [...labelSets].sort((a, b) => {
      for (let i = 0; i < Math.min(a.length, b.length); i++) {
        const c = utf8Order(a[i]!, b[i]!);
        if (c !== 0) return c;
      }
      return a.length - b.length;
    });
    const out = tempDir();
    const meta = await writeBlock({
      blocksDir: out,
      minTime: 1000,
      maxTime: 100_000,
      symbols: labelSets.flat(),
      ...(segmentBytes !== undefined ? { segmentBytes } : {}),
      series: sorted.map((labels, i) => ({
        labels,
        chunks: [xorChunk([1000 + i, 2000, 3000], [1, 2, i]), xorChunk([4000, 5000 + i], [3, 4])],
      })),
    });
    assert.ok(meta);
    return { dir: join(out, meta.ulid), meta, sorted };
  }

  test('magic, version, TOC, symbols, series, label indices and postings', async () => {
    const { dir, meta, sorted } = await writeSample();
    const idx = parseIndex(readFileSync(join(dir, 'index')));

    // Symbols: distinct, sorted by UTF-8 bytes (\uffff before astral
    // characters, unlike UTF-16 order), the empty string first.
    const expected = [...new Set(['', ...labelSets.flat()])].sort(utf8Order);
    assert.deepEqual(idx.symbols, expected);
    assert.ok(idx.symbols.indexOf('\uffff') < idx.symbols.indexOf('😀'));

    // Series: 16-byte aligned, in label order, chunks as written.
    assert.deepEqual(
      idx.series.map((s) => s.labels),
      sorted,
    );
    for (const off of idx.seriesOffsets) assert.equal(off % 16, 0);
    const refs = idx.seriesOffsets.map((o) => o / 16);
    for (const [i, s] of idx.series.entries()) {
      assert.deepEqual(
        s.chunks.map((c) => [c.minT, c.maxT]),
        [
          [1000 + i, 3000],
          [4000, 5000 + i],
        ],
      );
    }

    // Postings: ("", "") first with every series, then by name and value.
    assert.deepEqual([idx.postings[0]!.name, idx.postings[0]!.value], ['', '']);
    assert.deepEqual(idx.postings[0]!.refs, refs);
    const pairs = idx.postings.slice(1).map((p) => [p.name, p.value]);
    const expectedPairs: string[][] = [];
    for (const ls of sorted) for (let i = 0; i < ls.length; i += 2) expectedPairs.push([ls[i]!, ls[i + 1]!]);
    const uniq = [...new Map(expectedPairs.map((p) => [JSON.stringify(p), p])).values()].sort(
      (a, b) => utf8Order(a[0]!, b[0]!) || utf8Order(a[1]!, b[1]!),
    );
    assert.deepEqual(pairs, uniq);
    for (const p of idx.postings.slice(1)) {
      const want = sorted.flatMap((ls, i) => (ls.some((x, j) => j % 2 === 0 && x === p.name && ls[j + 1] === p.value) ? [refs[i]!] : []));
      assert.deepEqual(p.refs, want, `postings of ${p.name}=${p.value}`);
    }

    // Label indices: one per name, sorted, values sorted.
    const names = [...new Set(uniq.map((p) => p[0]!))];
    assert.deepEqual(
      idx.labelIndices.map((l) => l.name),
      names,
    );
    for (const li of idx.labelIndices) {
      assert.deepEqual(
        li.values,
        uniq.filter((p) => p[0] === li.name).map((p) => p[1]),
      );
    }

    // Stats.
    assert.equal(meta.stats.numSeries, sorted.length);
    assert.equal(meta.stats.numChunks, 2 * sorted.length);
    assert.equal(meta.stats.numSamples, 5 * sorted.length);

    // Our readBlock (test/support) agrees on every chunk.
    const block = readBlock(dir);
    assert.equal(block.series.length, sorted.length);
    for (const s of block.series) {
      assert.deepEqual(
        s.chunks.map((c) => chunkSampleCount(c.encoding, c.data)),
        [3, 2],
      );
    }
  });

  test('chunk segments roll over at segmentBytes', async () => {
    const { dir, meta } = await writeSample(120);
    const files = readdirSync(join(dir, 'chunks')).sort();
    assert.ok(files.length > 3, `several segments, got ${files.join(',')}`);
    assert.deepEqual(
      files,
      files.map((_, i) => String(i + 1).padStart(6, '0')),
    );
    for (const f of files) {
      const size = statSync(join(dir, 'chunks', f)).size;
      assert.ok(size <= 120, `${f} is ${size} bytes`);
      assert.ok(readChunkSegmentFile(join(dir, 'chunks', f)).length > 0, `${f} holds chunks`);
    }
    // Every reference resolves to the start of a chunk (readBlock checks).
    const block = readBlock(dir);
    const segs = new Set(block.series.flatMap((s) => s.chunks.map((c) => c.segment)));
    assert.equal(segs.size, files.length);
    assert.equal(block.series.reduce((n, s) => n + s.chunks.length, 0), meta.stats.numChunks);
    assert.deepEqual(splitChunkRef(3 * 2 ** 32 + 17), { index: 3, offset: 17 });
  });

  test('segments are cut where Prometheus cuts them', async () => {
    // Segment limit 100: header 8; estimated chunk size 5 + 1 + 20 + 4 = 30.
    const dir = tempDir();
    const w = await ChunkWriter.create(join(dir, 'chunks'), { segmentBytes: 100 });
    const c = { encoding: 1, data: new Uint8Array(20) };
    // First call on a new segment: 8 + 30k ≤ 100 for k ≤ 3 chunks.
    assert.deepEqual(
      (await w.writeChunks([c, c, c, c])).map((r) => splitChunkRef(r)),
      [
        { index: 0, offset: 8 },
        { index: 0, offset: 34 },
        { index: 0, offset: 60 },
        { index: 1, offset: 8 },
      ],
    );
    // Segment 1 holds 34 bytes: 34 + 30 + 30 = 94 fit, a third cuts.
    assert.deepEqual(
      (await w.writeChunks([c, c, c])).map((r) => splitChunkRef(r)),
      [
        { index: 1, offset: 34 },
        { index: 1, offset: 60 },
        { index: 2, offset: 8 },
      ],
    );
    // A chunk larger than a segment goes alone into a segment.
    const big = { encoding: 1, data: new Uint8Array(200) };
    assert.deepEqual(
      (await w.writeChunks([big, c])).map((r) => splitChunkRef(r)),
      [
        { index: 3, offset: 8 },
        { index: 4, offset: 8 },
      ],
    );
    const segs = await w.close();
    assert.deepEqual(
      segs.map((s) => [s.name, s.size]),
      [
        ['000001', 86],
        ['000002', 86],
        ['000003', 34],
        ['000004', 8 + 2 + 1 + 200 + 4],
        ['000005', 34],
      ],
    );
    assert.equal(DEFAULT_SEGMENT_BYTES, 512 * 1024 * 1024);
  });

  test('out-of-order series are rejected and the tmp directory removed', async () => {
    const out = tempDir();
    const a = flat({ __name__: 'm', job: 'b' });
    const b = flat({ __name__: 'm', job: 'a' });
    await assert.rejects(
      writeBlock({
        blocksDir: out,
        minTime: 0,
        maxTime: 10_000,
        symbols: [...a, ...b],
        series: [
          { labels: a, chunks: [xorChunk([1], [1])] },
          { labels: b, chunks: [xorChunk([1], [1])] },
        ],
      }),
      /out-of-order series \{__name__="m", job="a"\} after \{__name__="m", job="b"\}/,
    );
    assert.deepEqual(readdirSync(out), []);
    // UTF-8 order, not UTF-16: '\uffff' sorts before '😀'.
    await assert.rejects(
      writeBlock({
        blocksDir: out,
        minTime: 0,
        maxTime: 10_000,
        symbols: ['a', '😀', '\uffff'],
        series: [
          { labels: ['a', '😀'], chunks: [xorChunk([1], [1])] },
          { labels: ['a', '\uffff'], chunks: [xorChunk([1], [1])] },
        ],
      }),
      /out-of-order series/,
    );
    // A shorter label set sorts first.
    await assert.rejects(
      writeBlock({
        blocksDir: out,
        minTime: 0,
        maxTime: 10_000,
        symbols: ['a', 'b', 'c'],
        series: [
          { labels: ['a', 'b', 'c', 'c'], chunks: [xorChunk([1], [1])] },
          { labels: ['a', 'b'], chunks: [xorChunk([1], [1])] },
        ],
      }),
      /out-of-order series/,
    );
    assert.deepEqual(readdirSync(out), []);
  });

  test('errors name the problem and leave nothing behind', async () => {
    const out = tempDir();
    const base = { blocksDir: out, minTime: 0, maxTime: 10_000 };
    await assert.rejects(
      writeBlock({ ...base, symbols: ['m'], series: [{ labels: ['m', 'x'], chunks: [xorChunk([1], [1])] }] }),
      /symbol "x" of series \{m="x"\} is not in the symbol table/,
    );
    await assert.rejects(
      writeBlock({ ...base, symbols: ['b', 'a'], series: [{ labels: ['b', 'a', 'a', 'b'], chunks: [xorChunk([1], [1])] }] }),
      /label names of .* are not sorted and unique/,
    );
    await assert.rejects(
      writeBlock({ ...base, symbols: ['m', 'x'], series: [{ labels: ['m', 'x'], chunks: [xorChunk([10, 20_000], [1, 2])] }] }),
      /outside the block's \[0, 10000\)/,
    );
    await assert.rejects(
      writeBlock({
        ...base,
        symbols: ['m', 'x'],
        series: [{ labels: ['m', 'x'], chunks: [xorChunk([10, 20], [1, 2]), xorChunk([20, 30], [1, 2])] }],
      }),
      /not after the previous chunk's end 20/,
    );
    async function* failing(): AsyncGenerator<BlockSeriesInput> {
      yield { labels: ['m', 'x'], chunks: [xorChunk([1], [1])] };
      throw new Error('source failed');
    }
    await assert.rejects(writeBlock({ ...base, symbols: ['m', 'x'], series: failing() }), /source failed/);
    assert.deepEqual(readdirSync(out), []);
  });

  test('leftover temporary block directories are removed at start-up', async () => {
    const out = tempDir();
    const meta = await writeBlock({ blocksDir: out, minTime: 0, maxTime: 10, symbols: ['a', 'b'], series: [{ labels: ['a', 'b'], chunks: [xorChunk([1], [1])] }] });
    assert.ok(meta);
    mkdirSync(join(out, `${newUlid()}.tmp-for-creation`, 'chunks'), { recursive: true });
    mkdirSync(join(out, `${newUlid()}.tmp-for-deletion`));
    const removed = await removeTmpBlockDirs(out);
    assert.equal(removed.length, 2);
    assert.deepEqual(readdirSync(out), [meta.ulid]);
    assert.deepEqual(await removeTmpBlockDirs(join(out, 'missing')), []);
  });

  test('no samples, no block', async () => {
    const out = tempDir();
    assert.equal(await writeBlock({ blocksDir: out, minTime: 0, maxTime: 10, symbols: [], series: [] }), undefined);
    assert.equal(
      await writeBlock({ blocksDir: out, minTime: 0, maxTime: 10, symbols: ['a', 'b'], series: [{ labels: ['a', 'b'], chunks: [] }] }),
      undefined,
    );
    assert.deepEqual(readdirSync(out), []);
  });

  test('series without chunks are skipped', async () => {
    const out = tempDir();
    const meta = await writeBlock({
      blocksDir: out,
      minTime: 0,
      maxTime: 10,
      symbols: ['a', 'b', 'c'],
      series: [
        { labels: ['a', 'b'], chunks: [] },
        { labels: ['a', 'c'], chunks: [xorChunk([1, 2], [1, 2])] },
      ],
    });
    assert.ok(meta);
    assert.equal(meta.stats.numSeries, 1);
    const idx = parseIndex(readFileSync(join(out, meta.ulid, 'index')));
    assert.deepEqual(
      idx.series.map((s) => s.labels),
      [['a', 'c']],
    );
    // The symbol table keeps what it was given.
    assert.deepEqual(idx.symbols, ['', 'a', 'b', 'c']);
  });

  test('an index with no series is still well formed', async () => {
    const dir = tempDir();
    const w = await IndexWriter.create(join(dir, 'index'));
    await w.addSymbols(['x']);
    const res = await w.close();
    const idx = parseIndex(readFileSync(join(dir, 'index')));
    assert.deepEqual(idx.symbols, ['', 'x']);
    assert.deepEqual(idx.series, []);
    assert.deepEqual(
      idx.postings.map((p) => [p.name, p.value, p.refs.length]),
      [['', '', 0]],
    );
    assert.equal(res.numSeries, 0);
  });

  test('many series: postings and alignment at scale, event loop kept responsive', async () => {
    const next = rng(7);
    const n = 30_000;
    const labels: string[][] = [];
    for (let i = 0; i < n; i++) {
      labels.push(
        flat({
          __name__: `metric_${i % 7}`,
          instance: `host-${String(i).padStart(6, '0')}`,
          job: ['api', 'db', 'cache', 'ëdge', '🚀'][i % 5]!,
          shard: String(Math.floor(next() * 50)),
        }),
      );
    }
    labels.sort((a, b) => {
      for (let i = 0; i < Math.min(a.length, b.length); i++) {
        const c = utf8Order(a[i]!, b[i]!);
        if (c !== 0) return c;
      }
      return a.length - b.length;
    });
    const chunk = xorChunk([1000, 2000], [1, 2]);
    const out = tempDir();
    const symbols = labels.flat();
    const series = labels.map((l) => ({ labels: l, chunks: [chunk] }));
    // The longest stretch without a turn of the event loop, in the process'
    // CPU time (not wall time: on a loaded machine the thread also waits
    // for a core between turns, which is no step of the writer).
    let maxGap = 0;
    let maxCpuGap = 0;
    let last = performance.now();
    let lastCpu = process.cpuUsage();
    const timer = setInterval(() => {
      const now = performance.now();
      const cpu = process.cpuUsage(lastCpu);
      maxGap = Math.max(maxGap, now - last);
      maxCpuGap = Math.max(maxCpuGap, (cpu.user + cpu.system) / 1000);
      last = now;
      lastCpu = process.cpuUsage();
    }, 1);
    let meta: BlockMeta | undefined;
    const t0 = performance.now();
    try {
      meta = await writeBlock({
        blocksDir: out,
        minTime: 0,
        maxTime: 10_000,
        symbols,
        series,
      });
    } finally {
      clearInterval(timer);
    }
    const took = performance.now() - t0;
    assert.ok(meta);
    assert.equal(meta.stats.numSeries, n);
    const idx = parseIndex(readFileSync(join(out, meta.ulid, 'index')));
    assert.equal(idx.series.length, n);
    assert.deepEqual(
      idx.series.map((s) => s.labels),
      labels,
    );
    const refs = idx.seriesOffsets.map((o) => o / 16);
    assert.deepEqual(idx.postings[0]!.refs, refs);
    const byPair = new Map<string, number[]>();
    labels.forEach((ls, i) => {
      for (let j = 0; j < ls.length; j += 2) {
        const k = `${ls[j]}\u0000${ls[j + 1]}`;
        const list = byPair.get(k);
        if (list === undefined) byPair.set(k, [refs[i]!]);
        else list.push(refs[i]!);
      }
    });
    assert.equal(idx.postings.length, byPair.size + 1);
    for (const p of idx.postings.slice(1)) assert.deepEqual(p.refs, byPair.get(`${p.name}\u0000${p.value}`));
    // A generous bound: the point is that no step runs for long.
    assert.ok(maxCpuGap < 250, `event loop blocked for ${maxCpuGap.toFixed(0)} ms of CPU, ${maxGap.toFixed(0)} ms of wall time (write took ${took.toFixed(0)} ms)`);
    if (process.env.STRATA_BLOCKS_VERBOSE) console.log(`30k series: ${took.toFixed(0)} ms, longest event-loop gap ${maxGap.toFixed(1)} ms (${maxCpuGap.toFixed(1)} ms CPU)`);
  });
});

describe('meta.json', () => {
  test('written as Prometheus writes it, read back and checked', async () => {
    const dir = tempDir();
    const meta: BlockMeta = {
      ulid: '01M7YE74R1BP8N5CZP462MGEFV',
      minTime: -7_200_000,
      maxTime: 0,
      stats: { numSamples: 16, numSeries: 2, numChunks: 2 },
      compaction: { level: 1, sources: ['01M7YE74R1BP8N5CZP462MGEFV'] },
      version: 1,
    };
    await writeMetaFile(dir, meta);
    assert.equal(readFileSync(join(dir, 'meta.json'), 'utf8'), readFileSync(join(FIXTURES, meta.ulid, 'meta.json'), 'utf8'));
    assert.ok(!existsSync(join(dir, 'meta.json.tmp')));
    assert.deepEqual(await readMetaFile(dir), meta);
  });

  test('with a Thanos section: files as GatherFileStats lists them', async () => {
    const out = tempDir();
    const meta = await writeBlock({
      blocksDir: out,
      minTime: 0,
      maxTime: 100,
      symbols: ['a', 'b'],
      series: [{ labels: ['a', 'b'], chunks: [xorChunk([1, 2, 3], [1, 2, 3])] }],
      thanos: { labels: { tenant: 'x<y>', cluster: 'ê' }, source: 'receive' },
      compaction: { level: 2, sources: ['01M7YE74R1BP8N5CZP462MGEFV', '01M7YE74RCQHY09JJ3VV35T2TD'] },
    });
    assert.ok(meta?.thanos);
    const dir = join(out, meta.ulid);
    assert.deepEqual(meta.thanos.files, [
      { rel_path: 'chunks/000001', size_bytes: statSync(join(dir, 'chunks/000001')).size },
      { rel_path: 'index', size_bytes: statSync(join(dir, 'index')).size },
      { rel_path: 'meta.json' },
    ]);
    const text = readFileSync(join(dir, 'meta.json'), 'utf8');
    assert.ok(text.endsWith('}\n'), 'json.Encoder ends with a newline');
    assert.ok(text.includes('"tenant": "x\\u003cy\\u003e"'), 'HTML characters escaped as Go escapes them');
    assert.ok(text.indexOf('"cluster"') < text.indexOf('"tenant"'), 'map keys sorted');
    assert.match(text, /"thanos": \{\n\t\t"version": 1,\n\t\t"labels": \{/);
    assert.deepEqual(await readMetaFile(dir), meta);
    assert.equal(encodeMeta(meta), text);
  });

  test('readMetaFile names the file and the problem', async () => {
    const dir = tempDir();
    const path = join(dir, 'meta.json');
    const good = JSON.parse(readFileSync(join(FIXTURES, '01M7YE74R1BP8N5CZP462MGEFV', 'meta.json'), 'utf8'));
    const cases: Array<[unknown, RegExp]> = [
      [{ ...good, version: 2 }, /unexpected meta file version 2/],
      [{ ...good, ulid: 'nope' }, /ulid "nope" is not a ULID/],
      [{ ...good, minTime: 1.5 }, /minTime is 1.5/],
      [{ ...good, maxTime: '0' }, /maxTime is "0"/],
      [{ ...good, compaction: undefined }, /compaction is missing/],
      [{ ...good, stats: { numSamples: -1 } }, /stats.numSamples is -1/],
    ];
    for (const [json, re] of cases) {
      writeFileSync(path, JSON.stringify(json));
      await assert.rejects(readMetaFile(dir), (err: Error) => {
        assert.ok(err.message.startsWith(`${path}: `), err.message);
        assert.match(err.message, re);
        return true;
      });
    }
    writeFileSync(path, '{');
    await assert.rejects(readMetaFile(dir), /meta\.json: not valid JSON/);
  });
});

describe('tombstones', () => {
  test('an empty file is the 9 bytes Prometheus writes', async () => {
    const dir = tempDir();
    assert.equal(await writeEmptyTombstones(dir), 9);
    const bytes = readFileSync(join(dir, 'tombstones'));
    assert.deepEqual([...bytes], [0x01, 0x30, 0xba, 0x30, 0x01, 0, 0, 0, 0]);
    assert.ok(bytes.equals(readFileSync(join(FIXTURES, '01M7YE74R1BP8N5CZP462MGEFV', 'tombstones'))));
    assert.equal((await readTombstones(join(dir, 'tombstones'))).count, 0);
    assert.equal((await readTombstones(join(dir, 'missing'))).count, 0);
  });

  test('stones are parsed and merged; corruption is reported', async () => {
    const body = new ByteBuffer();
    const stone = (ref: number, a: number, b: number) => {
      body.uvarint(ref);
      body.varint(a);
      body.varint(b);
    };
    stone(5, 10, 20);
    stone(5, 21, 30); // touches: merged
    stone(5, 100, 200);
    stone(7, -50, -10);
    // math.MinInt64 .. math.MaxInt64, as Prometheus writes open ends.
    body.uvarint(9);
    body.put(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]));
    body.put(Uint8Array.from([0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]));
    const stones = body.view();
    const file = new Uint8Array(5 + stones.length + 4);
    new DataView(file.buffer).setUint32(0, 0x0130ba30);
    file[4] = 1;
    file.set(stones, 5);
    new DataView(file.buffer).setUint32(5 + stones.length, crc32c(stones) >>> 0);
    const t = parseTombstones(file, 'x/tombstones');
    assert.equal(t.count, 4);
    assert.deepEqual(t.bySeries.get(5), [
      { minT: 10, maxT: 30 },
      { minT: 100, maxT: 200 },
    ]);
    assert.deepEqual(t.bySeries.get(7), [{ minT: -50, maxT: -10 }]);
    assert.deepEqual(t.bySeries.get(9), [{ minT: Number.MIN_SAFE_INTEGER, maxT: Number.MAX_SAFE_INTEGER }]);

    const bad = file.slice();
    bad[6]! ^= 1;
    assert.throws(() => parseTombstones(bad, 'x/tombstones'), /^BlockFormatError: x\/tombstones: tombstones CRC32C mismatch/);
    const magic = file.slice();
    magic[0] = 0;
    assert.throws(() => parseTombstones(magic, 'x/tombstones'), /x\/tombstones: bad tombstones magic/);
    assert.throws(() => parseTombstones(file.subarray(0, 6), 'x/tombstones'), /too short/);
  });

  test('intervals merge as Prometheus merges them', () => {
    let l = addInterval([], { minT: 10, maxT: 20 });
    l = addInterval(l, { minT: 30, maxT: 40 });
    l = addInterval(l, { minT: 0, maxT: 5 });
    assert.deepEqual(l, [
      { minT: 0, maxT: 5 },
      { minT: 10, maxT: 20 },
      { minT: 30, maxT: 40 },
    ]);
    l = addInterval(l, { minT: 6, maxT: 29 });
    assert.deepEqual(l, [{ minT: 0, maxT: 40 }]);
  });
});

describe('encoding', () => {
  test('signed varints are Go varints over ±(2^53 - 1)', () => {
    const goVarint = (v: bigint): number[] => {
      let u = BigInt.asUintN(64, (v << 1n) ^ (v < 0n ? -1n : 0n));
      const out: number[] = [];
      while (u >= 0x80n) {
        out.push(Number(u & 0x7fn) | 0x80);
        u >>= 7n;
      }
      out.push(Number(u));
      return out;
    };
    const buf = new Uint8Array(16);
    const r = { value: 0, next: 0 };
    const values = [0, 1, -1, 63, 64, -64, -65, 8191, -8192, 2 ** 31, -(2 ** 31), 1_700_000_000_000, -7_200_000, 2 ** 52, -(2 ** 52) - 1];
    values.push(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER);
    for (const v of values) {
      const end = putVarint(buf, 0, v);
      assert.deepEqual([...buf.subarray(0, end)], goVarint(BigInt(v)), `varint ${v}`);
      assert.equal(varintSize(v), end);
      readVarint(buf, 0, end, r);
      assert.deepEqual([r.value, r.next], [v, end]);
      assert.equal(readVarint(buf, 0, end - 1, r).next, -1, 'truncated');
    }
    const b = new ByteBuffer();
    b.uvarint(300);
    readUvarint(b.bytes, 0, b.length, r);
    assert.deepEqual([r.value, r.next], [300, 2]);
    assert.throws(() => b.uvarint(-1), RangeError);
    assert.throws(() => b.varint(2 ** 53), RangeError);
  });
});

describe('ulid', () => {
  test('new ULIDs are valid and increase', () => {
    const a = newUlid();
    const b = newUlid();
    assert.ok(isUlid(a) && isUlid(b));
    assert.ok(a < b);
    assert.ok(!isUlid('01m7ye74r1bp8n5czp462mgefv'));
    assert.ok(!isUlid('81M7YE74R1BP8N5CZP462MGEFV'));
    assert.ok(!isUlid('01M7YE74R1BP8N5CZP462MGEF'));
    assert.equal(newUlid(1_700_000_000_000 + 10 ** 12).length, 26);
  });
});
