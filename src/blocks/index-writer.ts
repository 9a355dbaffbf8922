/**
 * Streams a block's `index` file in Prometheus 2.x's format, version 2, byte
 * for byte as Prometheus 2.42's index.Writer lays it out
 * (tsdb/index/index.go, tsdb/docs/format/index.md):
 *
 *   magic 0xBAAAD700 | version 2 | symbol table | series (16-byte aligned)
 *   | label indices (4-byte aligned) | postings (4-byte aligned, the
 *   all-postings list first) | label offset table | postings offset table | TOC
 *
 * Usage: {@link IndexWriter.create}, {@link IndexWriter.addSymbols} once,
 * {@link IndexWriter.addSeries} per series in label order, then
 * {@link IndexWriter.close}. Strings are ordered by UTF-8 bytes, as Go
 * compares them. Postings are collected as two flat uint32 columns (label
 * pair, series ref) and grouped by counting sorts at the end: 8 bytes per
 * label of a series, no object per series. Long loops yield to the event
 * loop every few milliseconds. Format: docs/format/block.md.
 */
import { crc32c } from '@node-rs/crc32';
import { compareLabels, compareUtf8, hasSurrogate } from '../encoding/utf8.js';
import { putBE32, putBE64 } from '../encoding/big-endian.js';
import { ByteBuffer } from '../encoding/byte-buffer.js';
import { BufferedFile } from '../files/buffered-file.js';
import { uvarintSize } from '../encoding/varint.js';
import { Yielder, sortYielding } from '../background/yielder.js';

export const INDEX_MAGIC = 0xbaaad700;
export const INDEX_FORMAT_V2 = 2;
/** Six big-endian uint64 section offsets and a CRC32C. */
export const INDEX_TOC_BYTES = 6 * 8 + 4;
const TWO_32 = 0x1_0000_0000;

/** Offsets of the index's sections, as its table of contents holds them. */
export interface IndexToc {
  symbols: number;
  series: number;
  labelIndices: number;
  labelIndicesTable: number;
  postings: number;
  postingsTable: number;
}

/** Time range of a chunk (inclusive, ms) as the index needs it. */
export interface IndexChunkTimes {
  minT: number;
  maxT: number;
}

/** What {@link IndexWriter.close} reports. */
export interface IndexWriteResult {
  /** Size of the index file in bytes. */
  size: number;
  numSeries: number;
  numSymbols: number;
  /** Postings lists written, the all-postings list included. */
  numPostings: number;
  /** Bytes of the largest series entry, from its 16-byte aligned start to its end (CRC included). */
  maxSeriesBytes: number;
  toc: IndexToc;
}

export interface IndexWriterOptions {
  /** Bytes buffered before a write to disk; default 4 MiB. */
  flushBytes?: number;
  /** Longest stretch without yielding to the event loop, in ms; default 4. */
  yieldMs?: number;
}

/** A growable column of uint32. */
class U32Column {
  data: Uint32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.data = new Uint32Array(capacity);
  }

  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

function describeLabels(labels: readonly string[]): string {
  const parts: string[] = [];
  for (let i = 0; i + 1 < labels.length; i += 2) parts.push(`${labels[i]}=${JSON.stringify(labels[i + 1])}`);
  return `{${parts.join(', ')}}`;
}


/** Whether `s` holds a lone UTF-16 surrogate (which has no UTF-8 form). */
function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    return true;
  }
  return false;
}

export class IndexWriter {
  private stage: 'new' | 'series' | 'done' = 'new';
  private readonly y: Yielder;
  private readonly toc: IndexToc = {
    symbols: 0,
    series: 0,
    labelIndices: 0,
    labelIndicesTable: 0,
    postings: 0,
    postingsTable: 0,
  };

  // Symbols, sorted by UTF-8 bytes; a string's reference is its position.
  private symbols: string[] = [];
  private symbolRef = new Map<string, number>();
  private symbolBytes = new Uint32Array(0);

  // Series.
  private readonly body = new ByteBuffer(1024);
  private readonly labelRefs: number[] = [];
  private readonly crcBytes = new Uint8Array(4);
  private lastLabels: readonly string[] = [];
  private numSeries = 0;
  private maxSeriesBytes = 0;

  // Postings, as columns. A label pair (name ref, value ref) gets a dense id.
  private pairIdOfKey = new Map<number, number>();
  private pairName = new U32Column();
  private pairValue = new U32Column();
  private pairCount = new U32Column();
  private entryPair = new U32Column(1 << 14);
  private entrySeries = new U32Column(1 << 14);
  private allSeries = new U32Column(1 << 12);

  private constructor(private readonly file: BufferedFile, yieldMs: number) {
    this.y = new Yielder(yieldMs);
  }

  /** Creates the index file at `path` (which must not exist) and writes its header. */
  static async create(path: string, opts: IndexWriterOptions = {}): Promise<IndexWriter> {
    const file = await BufferedFile.create(path, opts.flushBytes ?? 4 << 20);
    const w = new IndexWriter(file, opts.yieldMs ?? 4);
    file.out.be32(INDEX_MAGIC);
    file.out.u8(INDEX_FORMAT_V2);
    return w;
  }

  get path(): string {
    return this.file.path;
  }

  /**
   * Writes the symbol table: every label name and value of the series to
   * come, in any order, duplicates allowed. The empty string is always
   * added, as Prometheus does.
   * Call once, before the first series.
   */
  async addSymbols(symbols: Iterable<string> | AsyncIterable<string>): Promise<void> {
    if (this.stage !== 'new') throw new Error(`${this.path}: symbols must be added once, before any series`);
    this.stage = 'series';
    const y = this.y;
    // Prometheus' symbol tables always hold the empty string (the name and
    // value of the all-postings key are among the head's symbols), first.
    const distinct = new Set<string>(['']);
    let surrogates = false;
    const add = (s: string): void => {
      if (typeof s !== 'string') throw new TypeError(`${this.path}: symbol ${String(s)} is not a string`);
      if (distinct.has(s)) return;
      if (hasSurrogate(s)) {
        if (hasLoneSurrogate(s)) {
          throw new Error(`${this.path}: symbol ${JSON.stringify(s)} holds a lone UTF-16 surrogate, which has no UTF-8 form`);
        }
        surrogates = true;
      }
      distinct.add(s);
    };
    if (Symbol.iterator in symbols) {
      for (const s of symbols) {
        add(s);
        const p = y.tick();
        if (p !== undefined) await p;
      }
    } else {
      for await (const s of symbols) {
        add(s);
        await y.tick();
      }
    }
    const sorted = await sortYielding([...distinct], surrogates ? compareUtf8 : (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0), y);
    distinct.clear();
    await this.writeSymbols(sorted);
  }

  private async writeSymbols(sorted: string[]): Promise<void> {
    const n = sorted.length;
    if (n > 0xffffffff) throw new RangeError(`${this.path}: ${n} symbols exceed 2^32 - 1`);
    if (n * n > Number.MAX_SAFE_INTEGER) throw new RangeError(`${this.path}: ${n} symbols are too many to index label pairs`);
    const bytes = new Uint32Array(n);
    let tableBytes = 4; // the count
    for (let i = 0; i < n; i++) {
      const b = Buffer.byteLength(sorted[i]!, 'utf8');
      bytes[i] = b;
      tableBytes += uvarintSize(b) + b;
      this.symbolRef.set(sorted[i]!, i);
      if ((i & 1023) === 1023) await this.y.tick(1024);
    }
    if (tableBytes > 0xffffffff) throw new RangeError(`${this.path}: symbol table of ${tableBytes} bytes exceeds 2^32 - 1`);
    this.symbols = sorted;
    this.symbolBytes = bytes;

    const f = this.file;
    this.toc.symbols = f.pos;
    f.out.be32(tableBytes);
    f.crcBegin();
    f.out.be32(n);
    for (let i = 0; i < n; i++) {
      f.out.uvarintStr(sorted[i]!);
      if (f.out.length >= 1 << 22) await f.flush();
      if ((i & 1023) === 1023) await this.y.tick(1024);
    }
    f.out.be32(f.crcEnd());
    this.toc.series = f.pos;
  }

  /**
   * Adds the next series: `labels` flat [name, value, ...], names sorted by
   * UTF-8 bytes and unique, values not empty, every string a symbol; the set
   * must sort after the previous series' (labels.Compare). `chunks` in time
   * order with their references in the chunk segments. Returns the series
   * reference (its offset / 16).
   */
  async addSeries(labels: readonly string[], chunks: readonly IndexChunkTimes[], refs: readonly number[]): Promise<number> {
    if (this.stage === 'new') await this.addSymbols([]);
    if (this.stage !== 'series') throw new Error(`${this.path}: series added after the index was closed`);
    if (labels.length === 0 || labels.length % 2 !== 0) {
      throw new Error(`${this.path}: a series needs a non-empty, even-length flat label array, got ${labels.length} strings`);
    }
    if (chunks.length !== refs.length) {
      throw new Error(`${this.path}: ${chunks.length} chunks but ${refs.length} chunk references for ${describeLabels(labels)}`);
    }
    if (this.numSeries > 0 && compareLabels(labels, this.lastLabels) <= 0) {
      throw new Error(
        `${this.path}: out-of-order series ${describeLabels(labels)} after ${describeLabels(this.lastLabels)} ` +
          '(series must be added sorted by label set, names and values compared by UTF-8 bytes)',
      );
    }

    // Validate everything before any state changes.
    const numLabels = labels.length / 2;
    const refsOf = this.labelRefs;
    refsOf.length = 0;
    for (let i = 0; i < labels.length; i += 2) {
      const name = labels[i]!;
      const value = labels[i + 1]!;
      if (i > 0 && compareUtf8(labels[i - 2]!, name) >= 0) {
        throw new Error(`${this.path}: label names of ${describeLabels(labels)} are not sorted and unique`);
      }
      if (value === '') {
        throw new Error(`${this.path}: label ${JSON.stringify(name)} of ${describeLabels(labels)} has an empty value`);
      }
      const nameRef = this.symbolRef.get(name);
      const valueRef = this.symbolRef.get(value);
      if (nameRef === undefined || valueRef === undefined) {
        const missing = nameRef === undefined ? name : value;
        throw new Error(`${this.path}: symbol ${JSON.stringify(missing)} of series ${describeLabels(labels)} is not in the symbol table`);
      }
      refsOf.push(nameRef, valueRef);
    }
    for (let i = 0; i < chunks.length; i++) {
      const { minT, maxT } = chunks[i]!;
      const ref = refs[i]!;
      if (!Number.isSafeInteger(minT) || !Number.isSafeInteger(maxT) || maxT < minT) {
        throw new Error(`${this.path}: chunk ${i} of ${describeLabels(labels)} has a bad time range [${minT}, ${maxT}]`);
      }
      if (i > 0 && minT < chunks[i - 1]!.maxT) {
        throw new Error(
          `${this.path}: chunk ${i} of ${describeLabels(labels)} starts at ${minT}, before the previous chunk's end ${chunks[i - 1]!.maxT}`,
        );
      }
      if (!Number.isSafeInteger(ref) || ref < 0) {
        throw new Error(`${this.path}: chunk ${i} of ${describeLabels(labels)} has a bad reference ${ref}`);
      }
    }
    const f = this.file;
    const start = f.pos + ((16 - (f.pos % 16)) % 16);
    const seriesRef = start / 16;
    if (seriesRef >= TWO_32) {
      throw new RangeError(`${this.path}: index exceeds 64 GiB, series references no longer fit 32 bits`);
    }

    const body = this.body;
    body.reset();
    body.uvarint(numLabels);
    for (let i = 0; i < refsOf.length; i++) body.uvarint(refsOf[i]!);
    body.uvarint(chunks.length);
    let prevMaxT = 0;
    let prevRef = 0;
    for (let i = 0; i < chunks.length; i++) {
      const { minT, maxT } = chunks[i]!;
      const ref = refs[i]!;
      if (i === 0) {
        body.varint(minT);
        body.uvarint(maxT - minT);
        body.uvarint(ref);
      } else {
        body.uvarint(minT - prevMaxT);
        body.uvarint(maxT - minT);
        body.varint(ref - prevRef);
      }
      prevMaxT = maxT;
      prevRef = ref;
    }

    f.out.pad(16, f.pos - f.out.length);
    if (f.pos !== start) throw new Error(`${this.path}: series not 16-byte aligned at ${f.pos}`);
    const content = body.view();
    f.out.uvarint(content.length);
    f.out.put(content);
    putBE32(this.crcBytes, 0, crc32c(content) >>> 0);
    f.out.put(this.crcBytes);
    const size = f.pos - start;
    if (size > this.maxSeriesBytes) this.maxSeriesBytes = size;

    // Postings: one (pair, series) entry per label.
    const nSym = this.symbols.length;
    for (let i = 0; i < refsOf.length; i += 2) {
      const nameRef = refsOf[i]!;
      const valueRef = refsOf[i + 1]!;
      const key = nameRef * nSym + valueRef;
      let pair = this.pairIdOfKey.get(key);
      if (pair === undefined) {
        pair = this.pairName.length;
        this.pairIdOfKey.set(key, pair);
        this.pairName.push(nameRef);
        this.pairValue.push(valueRef);
        this.pairCount.push(0);
      }
      this.entryPair.push(pair);
      this.entrySeries.push(seriesRef);
      this.pairCount.data[pair]!++;
    }
    this.allSeries.push(seriesRef);
    this.lastLabels = labels.slice();
    this.numSeries++;

    if (f.out.length >= 1 << 22) await f.flush();
    const p = this.y.tick();
    if (p !== undefined) await p;
    return seriesRef;
  }

  /**
   * Writes label indices, postings, the two offset tables and the TOC, then
   * flushes, fsyncs and closes the file.
   */
  async close(): Promise<IndexWriteResult> {
    if (this.stage === 'new') await this.addSymbols([]);
    if (this.stage !== 'series') throw new Error(`${this.path}: index closed twice`);
    this.stage = 'done';
    const f = this.file;
    const y = this.y;

    // Order the label pairs by (name, value): their refs are positions in
    // the sorted symbol table, so two stable counting sorts (by value, then
    // by name) do it in linear time.
    const numPairs = this.pairName.length;
    const names = this.pairName.data;
    const values = this.pairValue.data;
    const byValue = await this.countingSort(null, values, numPairs);
    const order = await this.countingSort(byValue, names, numPairs);

    // Lay the postings out in that order: start of each pair's list, then
    // every entry scattered in series order (so each list stays sorted).
    const counts = this.pairCount.data;
    const cursor = new Uint32Array(numPairs);
    let total = 0;
    for (let r = 0; r < numPairs; r++) {
      const pair = order[r]!;
      cursor[pair] = total;
      total += counts[pair]!;
    }
    const postings = new Uint32Array(total);
    {
      const ep = this.entryPair.data;
      const es = this.entrySeries.data;
      const n = this.entryPair.length;
      for (let e = 0; e < n; e++) {
        postings[cursor[ep[e]!]!++] = es[e]!;
        if ((e & 0xffff) === 0xffff) await y.tick(0x10000);
      }
    }
    this.entryPair = new U32Column(1);
    this.entrySeries = new U32Column(1);
    this.pairIdOfKey = new Map();

    // Label indices: per name, the refs of its values, 4-byte aligned.
    this.toc.labelIndices = f.pos;
    const labelIndexNames: number[] = [];
    const labelIndexOffsets: number[] = [];
    for (let r = 0; r < numPairs; ) {
      const name = names[order[r]!]!;
      let end = r;
      while (end < numPairs && names[order[end]!] === name) end++;
      f.out.pad(4, f.pos - f.out.length);
      labelIndexNames.push(name);
      labelIndexOffsets.push(f.pos);
      const n = end - r;
      f.out.be32(8 + 4 * n);
      f.crcBegin();
      f.out.be32(1);
      f.out.be32(n);
      for (; r < end; r++) {
        f.out.be32(values[order[r]!]!);
        if ((r & 0x3fff) === 0x3fff) {
          if (f.out.length >= 1 << 22) await f.flush();
          await y.tick(0x4000);
        }
      }
      f.out.be32(f.crcEnd());
      await f.maybeFlush();
    }

    // Postings: the all-postings list, then one list per pair in order.
    this.toc.postings = f.pos;
    f.out.pad(4, f.pos - f.out.length);
    const postingOffsets = new Float64Array(numPairs + 1);
    postingOffsets[0] = f.pos;
    await this.writePostingsList(this.allSeries.data, 0, this.allSeries.length);
    for (let r = 0, start = 0; r < numPairs; r++) {
      const pair = order[r]!;
      const n = counts[pair]!;
      f.out.pad(4, f.pos - f.out.length);
      postingOffsets[r + 1] = f.pos;
      await this.writePostingsList(postings, start, start + n);
      start += n;
      if ((r & 1023) === 1023) await y.tick(1024);
    }

    // Label offset table: name → offset of its label index.
    this.toc.labelIndicesTable = f.pos;
    {
      const table = new ByteBuffer(64 + labelIndexNames.length * 32);
      table.be32(labelIndexNames.length);
      for (let i = 0; i < labelIndexNames.length; i++) {
        table.uvarint(1);
        table.uvarintStr(this.symbols[labelIndexNames[i]!]!);
        table.uvarint(labelIndexOffsets[i]!);
      }
      const content = table.view();
      if (content.length > 0xffffffff) throw new RangeError(`${this.path}: label offset table exceeds 4 GiB`);
      f.out.be32(content.length);
      f.out.put(content);
      putBE32(this.crcBytes, 0, crc32c(content) >>> 0);
      f.out.put(this.crcBytes);
      await f.maybeFlush();
    }

    // Postings offset table: ("", "") first, then every pair in order.
    this.toc.postingsTable = f.pos;
    {
      const sb = this.symbolBytes;
      let len = 4 + 1 + 1 + 1 + uvarintSize(postingOffsets[0]!);
      for (let r = 0; r < numPairs; r++) {
        const pair = order[r]!;
        const nb = sb[names[pair]!]!;
        const vb = sb[values[pair]!]!;
        len += 1 + uvarintSize(nb) + nb + uvarintSize(vb) + vb + uvarintSize(postingOffsets[r + 1]!);
      }
      if (len > 0xffffffff) throw new RangeError(`${this.path}: postings offset table exceeds 4 GiB`);
      f.out.be32(len);
      f.crcBegin();
      f.out.be32(numPairs + 1);
      f.out.uvarint(2);
      f.out.uvarint(0);
      f.out.uvarint(0);
      f.out.uvarint(postingOffsets[0]!);
      for (let r = 0; r < numPairs; r++) {
        const pair = order[r]!;
        f.out.uvarint(2);
        f.out.uvarintStr(this.symbols[names[pair]!]!);
        f.out.uvarintStr(this.symbols[values[pair]!]!);
        f.out.uvarint(postingOffsets[r + 1]!);
        if ((r & 0x3ff) === 0x3ff) {
          if (f.out.length >= 1 << 22) await f.flush();
          await y.tick(0x400);
        }
      }
      f.out.be32(f.crcEnd());
    }

    // Table of contents.
    const tocBytes = new Uint8Array(INDEX_TOC_BYTES);
    const t = this.toc;
    [t.symbols, t.series, t.labelIndices, t.labelIndicesTable, t.postings, t.postingsTable].forEach((v, i) =>
      putBE64(tocBytes, i * 8, v),
    );
    putBE32(tocBytes, 48, crc32c(tocBytes.subarray(0, 48)) >>> 0);
    f.out.put(tocBytes);

    const size = await f.close();
    return {
      size,
      numSeries: this.numSeries,
      numSymbols: this.symbols.length,
      numPostings: numPairs + 1,
      maxSeriesBytes: this.maxSeriesBytes,
      toc: { ...this.toc },
    };
  }

  /** len | count | refs (BE uint32) | CRC32C of count and refs. */
  private async writePostingsList(refs: Uint32Array, from: number, to: number): Promise<void> {
    const f = this.file;
    const n = to - from;
    const len = 4 + 4 * n;
    if (len > 0xffffffff) throw new RangeError(`${this.path}: a postings list of ${n} series exceeds 4 GiB`);
    f.out.be32(len);
    f.crcBegin();
    f.out.be32(n);
    const STEP = 1 << 16;
    for (let i = from; i < to; ) {
      const end = Math.min(to, i + STEP);
      const out = f.out;
      out.ensure(4 * (end - i));
      let at = out.length;
      const bytes = out.bytes;
      for (; i < end; i++, at += 4) {
        const v = refs[i]!;
        bytes[at] = v >>> 24;
        bytes[at + 1] = (v >>> 16) & 0xff;
        bytes[at + 2] = (v >>> 8) & 0xff;
        bytes[at + 3] = v & 0xff;
      }
      out.length = at;
      if (out.length >= 1 << 22) await f.flush();
      if (i < to) await this.y.tick(STEP);
    }
    f.out.be32(f.crcEnd());
  }

  /**
   * Stable counting sort of pair ids by `keys[id]` (symbol refs). Sorts
   * `input` (or 0..n-1 when null); returns the ids in order.
   */
  private async countingSort(input: Uint32Array | null, keys: Uint32Array, n: number): Promise<Uint32Array> {
    const slots = new Uint32Array(this.symbols.length + 1);
    for (let i = 0; i < n; i++) slots[keys[input === null ? i : input[i]!]! + 1]!++;
    for (let s = 1; s < slots.length; s++) slots[s]! += slots[s - 1]!;
    const out = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const id = input === null ? i : input[i]!;
      out[slots[keys[id]!]!++] = id;
      if ((i & 0xffff) === 0xffff) await this.y.tick(0x10000);
    }
    return out;
  }

  /** Closes without finishing (after a failure); never throws. The file is left to the caller. */
  async abort(): Promise<void> {
    this.stage = 'done';
    await this.file.abort();
  }
}
