/**
 * Lazy, memory-mapped reader of a Prometheus TSDB block `index` file (format
 * version 2, as Prometheus >= 2.1 writes it; tsdb/docs/format/index.md).
 *
 * Opening maps the file, checks magic, version and the table of contents,
 * walks the symbol table once (lengths only, keeping every 32nd symbol's
 * offset, as Prometheus does) and the postings offset table once (keeping,
 * per label name, where its entries start, how many there are and every
 * 32nd entry's offset); both tables' CRC32C are checked then. Nothing else
 * is decoded up front: symbols are decoded on first use and cached, series
 * entries and postings lists are decoded (and their CRC32C checked) on each
 * read.
 *
 * Every failure throws a {@link BlockFormatError} that names the file, the
 * byte offset and the problem.
 */
import type { IndexToc } from './index-writer.js';
import { closeSync, fstatSync, openSync } from 'node:fs';
import { endianness } from 'node:os';
import { crc32cRange } from '../encoding/crc32c.js';
import { readBE32 } from '../encoding/big-endian.js';
import { compareBytes } from '../encoding/bytes.js';
import { VarintReader } from '../encoding/varint.js';
import { mapFile, releasePages } from '../files/mmap.js';

/** First four bytes of an index file (big endian). */
export const INDEX_MAGIC = 0xbaaad700;
/** The index format version this reader decodes. */
export const INDEX_FORMAT_V2 = 2;

/** Six big-endian u64 section offsets and a CRC32C. */
const TOC_BYTES = 6 * 8 + 4;
/** Magic (4) and version (1). */
const HEADER_BYTES = 5;
/** Every how many symbols / postings offset entries an offset is kept. */
const SAMPLE_EVERY = 32;
const SAMPLE_SHIFT = 5;
const TWO_32 = 4294967296;

const LITTLE_ENDIAN_HOST = endianness() === 'LE';
const EMPTY_POSTINGS = new Uint32Array(0);

/** A block file is not what Prometheus writes (or is not there); says where. */
export class BlockFormatError extends Error {
  override readonly name = 'BlockFormatError';
  constructor(
    readonly file: string,
    readonly offset: number,
    readonly problem: string,
  ) {
    super(`${file}: ${problem} (at byte offset ${offset})`);
  }
}

/** Buffer's own UTF-8 slice (what toString('utf8', a, b) ends in), minus argument checks. */
type SliceableBuffer = Buffer & { utf8Slice?: (start: number, end: number) => string };

/** UTF-8 text of `b[start, end)` (invalid sequences become U+FFFD). */
export function utf8Text(b: Buffer, start: number, end: number): string {
  const fast = (b as SliceableBuffer).utf8Slice;
  return fast !== undefined ? fast.call(b, start, end) : b.toString('utf8', start, end);
}

function hex32(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}

// ------------------------------------------------------------ varints

/**
 * The cursor of the module's varint reads (it reads at `at`, never at or
 * past `end`, and stays at a varint it cannot read, for the error message).
 * One shared object rather than one per call keeps hot loops free of
 * allocations; a walk that pauses sets it again when it resumes.
 */
const cur = new VarintReader();

/** Entries a walk of a table covers between pauses (an async open pauses there when its budget is spent). */
const WALK_STEP = 4096;

/** Runs a walk to its end. */
function drain<T>(walk: Generator<void, T>): T {
  for (;;) {
    const r = walk.next();
    if (r.done === true) return r.value;
  }
}

/** Runs a walk to its end, pausing where `tick` asks. */
async function drainAsync<T>(walk: Generator<void, T>, tick: (work: number) => Promise<void> | undefined): Promise<T> {
  for (;;) {
    const r = walk.next();
    if (r.done === true) return r.value;
    const pause = tick(WALK_STEP);
    if (pause !== undefined) await pause;
  }
}

/** Whether `b[a, a+len)` equals `b[c, c+len)`. */
function sameBytes(b: Uint8Array, a: number, c: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (b[a + i] !== b[c + i]) return false;
  return true;
}

/**
 * Maps a whole file read-only. The fd is closed at once; the map lives
 * until the returned Buffer and all its views are collected.
 * @internal shared by the block readers.
 */
export function mapReadOnly(path: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw new BlockFormatError(path, 0, `cannot open: ${(err as Error).message}`);
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) throw new BlockFormatError(path, 0, 'file is empty');
    return mapFile(fd, size);
  } finally {
    closeSync(fd);
  }
}

/** Where one label name's entries sit in the postings offset table. */
interface NameEntries {
  name: string;
  /** Absolute offset of the name's first entry. */
  first: number;
  /** Number of entries (values) of the name. */
  count: number;
  /** Bytes of each entry before its value length: key count, name length, name. */
  prefix: number;
  /** Absolute offsets of entries 0, 32, 64, ... of the name. */
  samples: Float64Array;
}

/** Table of contents: absolute offsets of the sections, 0 when absent. */
type Toc = IndexToc;

export class BlockIndexReader {
  /** Size of the index file in bytes. */
  readonly size: number;
  /** Index format version (always 2). */
  readonly version: number;

  private buf: Buffer;
  private closed = false;
  private readonly toc: Toc;

  /** Absolute offset of the symbol table's body (its symbol count). */
  private readonly symBase: number;
  private readonly symEnd: number;
  /** Number of symbols. */
  private readonly symCount: number;
  /** Offsets (relative to symBase) of symbols 0, 32, 64, ... */
  private symSamples: Uint32Array = new Uint32Array(0);
  /** Offsets (relative to symBase) of every symbol, filled a group of 32 at a time; 0 = not yet. */
  private symOffsets: Uint32Array;
  /** Decoded symbols, by index; allocated on first lookup. */
  private symCache: (string | undefined)[] = [];
  private astral: boolean | undefined;

  /** Series entries lie in [seriesStart, seriesEnd). */
  private readonly seriesStart: number;
  /** 0 once closed, so that every series ref fails (then as "closed"). */
  private seriesEnd: number;

  /** Label names in table order (sorted by UTF-8 bytes), "" included. */
  private nameList: NameEntries[] = [];
  private names = new Map<string, NameEntries>();

  private constructor(
    readonly path: string,
    buf: Buffer,
    walkNow = true,
  ) {
    this.buf = buf;
    this.size = buf.length;
    if (buf.length < HEADER_BYTES + TOC_BYTES) {
      this.fail(0, `file of ${buf.length} bytes is too short for an index (header and TOC need ${HEADER_BYTES + TOC_BYTES})`);
    }
    const magic = readBE32(buf, 0);
    if (magic !== INDEX_MAGIC) this.fail(0, `bad index magic ${hex32(magic)}, want ${hex32(INDEX_MAGIC)}`);
    this.version = buf[4]!;
    if (this.version === 1) {
      this.fail(4, 'index format version 1 (written by Prometheus before 2.1) is not supported; rewrite the block with a newer Prometheus');
    }
    if (this.version !== INDEX_FORMAT_V2) this.fail(4, `unknown index format version ${this.version}, want 2`);

    this.toc = this.readToc();
    const tocAt = buf.length - TOC_BYTES;

    // Symbol table.
    const sym = this.section(this.toc.symbols, 'symbol table');
    this.symBase = sym.body;
    this.symEnd = sym.end;
    if (sym.end - sym.body < 4) this.fail(sym.body, 'symbol table too short for its symbol count');
    this.symCount = readBE32(buf, sym.body);
    if (walkNow) this.symSamples = drain(this.walkSymbols());
    this.symOffsets = new Uint32Array(0);

    // Series section: from its TOC entry to the next section present.
    this.seriesStart = this.toc.series;
    let seriesEnd = tocAt;
    if (this.seriesStart !== 0) {
      for (const at of [this.toc.labelIndices, this.toc.labelIndicesTable, this.toc.postings, this.toc.postingsTable]) {
        if (at > this.seriesStart && at < seriesEnd) seriesEnd = at;
      }
    } else {
      seriesEnd = 0;
    }
    this.seriesEnd = seriesEnd;

    // Postings offset table.
    if (walkNow) this.setNames(drain(this.walkPostingsTable()));
  }

  private setNames(list: NameEntries[]): void {
    this.nameList = list;
    this.names = new Map(list.map((e) => [e.name, e]));
  }

  /** Maps and checks the index file at `path`. */
  static open(path: string): BlockIndexReader {
    return new BlockIndexReader(path, mapReadOnly(path));
  }

  /**
   * open() for a server at work: the walks over the symbol table and the
   * postings offset table (the part of opening that grows with the index)
   * pause whenever `tick` says so.
   */
  static async openAsync(path: string, tick: (work: number) => Promise<void> | undefined): Promise<BlockIndexReader> {
    const r = new BlockIndexReader(path, mapReadOnly(path), false);
    r.symSamples = await drainAsync(r.walkSymbols(), tick);
    r.setNames(await drainAsync(r.walkPostingsTable(), tick));
    return r;
  }

  /** Drops the map; arrays and strings handed out stay valid. */
  /** Lets the process' resident pages of the index go; reads still work (see releasePages in src/files/mmap.ts). */
  releasePages(): void {
    releasePages(this.buf);
  }

  close(): void {
    this.closed = true;
    this.seriesEnd = 0;
    this.buf = Buffer.alloc(0);
    this.symCache = [];
    this.symOffsets = new Uint32Array(0);
  }

  // ---------------------------------------------------------- public reads

  /**
   * Whether a symbol may hold a character past U+FFFF (a 4-byte UTF-8
   * sequence, a surrogate pair in JS), where JS string order differs from
   * byte order. One scan of the symbol table for lead bytes 0xF0-0xF4; a
   * length byte may look like one, which only costs a slower sort.
   */
  hasAstralSymbols(): boolean {
    if (this.astral === undefined) {
      const b = this.buf;
      let found = false;
      for (let i = this.symBase; i < this.symEnd; i++) {
        if (b[i]! >= 0xf0 && b[i]! <= 0xf4) {
          found = true;
          break;
        }
      }
      this.astral = found;
    }
    return this.astral;
  }

  /** Symbol `i` of the symbol table. */
  symbol(i: number): string {
    const s = this.symCache[i];
    return s !== undefined ? s : this.loadSymbol(i);
  }

  /** Label names, sorted by UTF-8 bytes, without the all-postings key "". */
  labelNames(): string[] {
    this.checkOpen();
    const out: string[] = [];
    for (const e of this.nameList) if (e.name !== '') out.push(e.name);
    return out;
  }

  /** Values of label `name`, sorted by UTF-8 bytes; empty when the name is absent. */
  labelValues(name: string): string[] {
    return this.postingsOffsets(name)?.values ?? [];
  }

  /** Values of `name` with the offsets of their postings lists, in value order. */
  postingsOffsets(name: string): { values: string[]; offsets: Float64Array } | undefined {
    this.checkOpen();
    const e = this.names.get(name);
    if (e === undefined) return undefined;
    const b = this.buf;
    const values: string[] = new Array(e.count);
    const offsets = new Float64Array(e.count);
    cur.reset(b, e.first, this.postingsTableEnd());
    let p = e.first;
    for (let i = 0; i < e.count; i++) {
      cur.at = p + e.prefix;
      const vlen = cur.uvarint();
      if (vlen < 0 || cur.at + vlen > cur.end) this.fail(p, `bad postings offset table entry of label ${JSON.stringify(name)}`);
      const vAt = cur.at;
      values[i] = utf8Text(b, vAt, vAt + vlen);
      cur.at = vAt + vlen;
      const off = cur.uvarint();
      if (off < 0) this.fail(cur.at, `bad postings offset of label ${JSON.stringify(name)}`);
      offsets[i] = off;
      p = cur.at;
    }
    return { values, offsets };
  }

  /**
   * The postings list at `offset` (from postingsOffsets): series refs,
   * strictly ascending, in host byte order. Its CRC32C is checked.
   */
  postingsAt(offset: number): Uint32Array {
    this.checkOpen();
    const b = this.buf;
    const limit = b.length - TOC_BYTES;
    if (!Number.isSafeInteger(offset) || offset < HEADER_BYTES || offset + 4 > limit) {
      this.fail(offset, `postings list offset ${offset} outside the file's sections`);
    }
    const len = readBE32(b, offset);
    const body = offset + 4;
    const end = body + len;
    if (end + 4 > limit) this.fail(offset, `postings list of ${len} bytes runs past the end of the index sections (${limit})`);
    this.checkCrc(body, end, 'postings list');
    if (len < 4) this.fail(body, `postings list of ${len} bytes has no entry count`);
    const n = readBE32(b, body);
    if (len !== 4 + 4 * n) this.fail(body, `postings list says ${n} entries (${4 * n} bytes) but holds ${len - 4} bytes`);
    if (n === 0) return new Uint32Array(0);
    const out = new Uint32Array(n);
    const bytes = new Uint8Array(out.buffer);
    bytes.set(b.subarray(body + 4, end));
    if (LITTLE_ENDIAN_HOST) Buffer.from(out.buffer, 0, bytes.length).swap32();
    let prev = out[0]!;
    for (let i = 1; i < n; i++) {
      const r = out[i]!;
      if (r <= prev) this.fail(body + 4 + 4 * i, `postings list not strictly ascending: series ref ${r} after ${prev}`);
      prev = r;
    }
    return out;
  }

  /** The series refs of label pair name=value, ascending; empty when absent. */
  postings(name: string, value: string): Uint32Array {
    this.checkOpen();
    const e = this.names.get(name);
    if (e === undefined || e.count === 0) return EMPTY_POSTINGS.slice();
    const off = this.findPostingsOffset(e, Buffer.from(value, 'utf8'));
    return off < 0 ? EMPTY_POSTINGS.slice() : this.postingsAt(off);
  }

  /** Every series, ascending (= label set order): the ("", "") list. */
  allPostings(): Uint32Array {
    return this.postings('', '');
  }

  /**
   * Decodes series `ref` (its byte offset / 16) into `out`: labels as
   * [name, value, ...] and chunk metas as [minT, maxT, ref, ...]. The
   * entry's CRC32C is checked.
   */
  series(ref: number, out: { labels: string[]; chunks: number[] }): void {
    const b = this.buf;
    const at = ref * 16;
    if (!(at >= this.seriesStart && at < this.seriesEnd) || ref !== Math.floor(ref)) this.badSeriesRef(ref, at);
    // Entry length: a uvarint of at most 5 bytes (Go's MaxVarintLen32).
    cur.reset(b, at, at + 5 < this.seriesEnd ? at + 5 : this.seriesEnd);
    const len = cur.uvarint();
    const bodyAt = cur.at;
    const end = bodyAt + len;
    if (len < 0 || end + 4 > this.seriesEnd) this.badSeriesLength(ref, at, len);
    const stored = readBE32(b, end);
    if (crc32cRange(b, bodyAt, end) !== stored) this.badSeriesCrc(ref, bodyAt, end, stored);
    cur.end = end;

    // Written by index and trimmed at the end: `length = 0` would free the
    // backing store and make every call grow it again (2x slower).
    const labels = out.labels;
    const nLabels = cur.uvarint();
    if (nLabels < 0 || nLabels * 2 > end - cur.at) this.badSeries(ref, cur.at, 'bad label count');
    let cache = this.symCache;
    for (let i = 0; i < nLabels; i++) {
      const n = cur.uvarint();
      const v = cur.uvarint();
      if (v < 0 || n < 0) this.badSeries(ref, cur.at, 'bad label symbol reference');
      const ns = cache[n];
      labels[2 * i] = ns !== undefined ? ns : this.seriesSymbol(ref, n);
      const vs = cache[v];
      labels[2 * i + 1] = vs !== undefined ? vs : this.seriesSymbol(ref, v);
      cache = this.symCache;
    }

    if (labels.length !== 2 * nLabels) labels.length = 2 * nLabels;

    const chunks = out.chunks;
    const nChunks = cur.uvarint();
    if (nChunks < 0 || nChunks * 3 > end - cur.at) this.badSeries(ref, cur.at, 'bad chunk count');
    if (nChunks > 0) {
      const minT = cur.varint();
      const dt = cur.uvarint();
      const cref = cur.uvarint();
      if (cref < 0 || dt < 0 || !cur.ok) this.badSeries(ref, cur.at, 'bad first chunk meta');
      let maxT = minT + dt;
      let r = cref;
      chunks[0] = minT;
      chunks[1] = maxT;
      chunks[2] = r;
      for (let i = 1; i < nChunks; i++) {
        const dmin = cur.uvarint();
        const dmax = cur.uvarint();
        const dref = cur.varint();
        if (dmin < 0 || dmax < 0 || !cur.ok) this.badSeries(ref, cur.at, `bad meta of chunk ${i}`);
        const mint = maxT + dmin;
        maxT = mint + dmax;
        r += dref;
        if (r < 0) this.badSeries(ref, cur.at, `negative reference of chunk ${i}`);
        chunks[3 * i] = mint;
        chunks[3 * i + 1] = maxT;
        chunks[3 * i + 2] = r;
      }
    }
    if (chunks.length !== 3 * nChunks) chunks.length = 3 * nChunks;
    if (cur.at !== end) this.badSeries(ref, cur.at, `${end - cur.at} unread bytes at the end of the entry`);
  }

  // ---------------------------------------------------------- open-time walks

  private readToc(): Toc {
    const b = this.buf;
    const at = b.length - TOC_BYTES;
    const stored = readBE32(b, at + 48);
    const computed = crc32cRange(b, at, at + 48);
    if (stored !== computed) {
      this.fail(at + 48, `TOC CRC32C mismatch: stored ${hex32(stored)}, computed ${hex32(computed)} over bytes ${at}..${at + 48} (file truncated or corrupt?)`);
    }
    const names = ['symbols', 'series', 'label indices', 'label offset table', 'postings', 'postings offset table'];
    const refs = names.map((name, i) => {
      const p = at + i * 8;
      const hi = readBE32(b, p);
      const lo = readBE32(b, p + 4);
      const ref = hi * TWO_32 + lo;
      if (ref !== 0 && (ref < HEADER_BYTES || ref >= at)) this.fail(p, `TOC ref(${name}) = ${ref} lies outside the file's sections [${HEADER_BYTES}, ${at})`);
      return ref;
    });
    const toc: Toc = {
      symbols: refs[0]!,
      series: refs[1]!,
      labelIndices: refs[2]!,
      labelIndicesTable: refs[3]!,
      postings: refs[4]!,
      postingsTable: refs[5]!,
    };
    if (toc.symbols === 0) this.fail(at, 'TOC has no symbol table');
    if (toc.postingsTable === 0) this.fail(at + 40, 'TOC has no postings offset table');
    return toc;
  }

  /** A `len <4b> | body | CRC32C <4b>` section at `at`, CRC checked. */
  private section(at: number, what: string): { body: number; end: number } {
    const limit = this.buf.length - TOC_BYTES;
    if (at + 4 > limit) this.fail(at, `${what} length runs past the TOC`);
    const len = readBE32(this.buf, at);
    const body = at + 4;
    const end = body + len;
    if (end + 4 > limit) this.fail(at, `${what} of ${len} bytes runs past the TOC at ${limit}`);
    this.checkCrc(body, end, what);
    return { body, end };
  }

  private checkCrc(start: number, end: number, what: string): void {
    const stored = readBE32(this.buf, end);
    const computed = crc32cRange(this.buf, start, end);
    if (stored !== computed) {
      this.fail(end, `${what} CRC32C mismatch: stored ${hex32(stored)}, computed ${hex32(computed)} over bytes ${start}..${end}`);
    }
  }

  /** Checks every symbol's length and keeps every 32nd offset (relative to symBase). */
  private *walkSymbols(): Generator<void, Uint32Array> {
    const b = this.buf;
    const base = this.symBase;
    const count = this.symCount;
    const samples = new Uint32Array(Math.ceil(count / SAMPLE_EVERY));
    cur.reset(b, base + 4, this.symEnd);
    for (let i = 0; i < count; i++) {
      if ((i & (WALK_STEP - 1)) === WALK_STEP - 1) {
        const at = cur.at;
        yield;
        cur.reset(b, at, this.symEnd);
      }
      if ((i & (SAMPLE_EVERY - 1)) === 0) samples[i >>> SAMPLE_SHIFT] = cur.at - base;
      const at = cur.at;
      const len = cur.uvarint();
      if (len < 0 || cur.at + len > cur.end) this.fail(at, `symbol ${i} of ${count} runs past the end of the symbol table at ${cur.end}`);
      cur.at += len;
    }
    if (cur.at !== this.symEnd) this.fail(cur.at, `${this.symEnd - cur.at} bytes after the last of ${count} symbols in the symbol table`);
    return samples;
  }

  /** End (absolute) of the postings offset table's entries. */
  private postingsTableEnd(): number {
    return this.toc.postingsTable + 4 + readBE32(this.buf, this.toc.postingsTable);
  }

  /**
   * Walks the postings offset table once: per label name, its first entry,
   * entry count, prefix size and every 32nd entry's offset. Checks that each
   * entry has two keys, that names come in one run each and that offsets
   * lie in the file.
   */
  private *walkPostingsTable(): Generator<void, NameEntries[]> {
    const b = this.buf;
    const { body, end } = this.section(this.toc.postingsTable, 'postings offset table');
    if (end - body < 4) this.fail(body, 'postings offset table too short for its entry count');
    const count = readBE32(b, body);
    const limit = b.length - TOC_BYTES;
    const list: NameEntries[] = [];
    const seen = new Set<string>();
    let curName: NameEntries | undefined;
    let curNameAt = 0;
    let curNameLen = -1;
    let samples: number[] = [];
    const finish = (): void => {
      if (curName !== undefined) curName.samples = Float64Array.from(samples);
    };
    cur.reset(b, body + 4, end);
    for (let i = 0; i < count; i++) {
      if ((i & (WALK_STEP - 1)) === WALK_STEP - 1) {
        const at = cur.at;
        yield;
        cur.reset(b, at, end);
      }
      const at = cur.at;
      const keys = cur.uvarint();
      if (keys !== 2) this.fail(at, keys < 0 ? `postings offset table entry ${i} of ${count} is truncated` : `postings offset table entry ${i} has ${keys} keys, want 2`);
      const nlen = cur.uvarint();
      const nameAt = cur.at;
      if (nlen < 0 || nameAt + nlen > end) this.fail(at, `postings offset table entry ${i}: label name runs past the table`);
      cur.at = nameAt + nlen;
      const vlen = cur.uvarint();
      if (vlen < 0 || cur.at + vlen > end) this.fail(at, `postings offset table entry ${i}: label value runs past the table`);
      cur.at += vlen;
      const offAt = cur.at;
      const off = cur.uvarint();
      if (off < 0) this.fail(offAt, `postings offset table entry ${i}: bad postings offset`);
      if (off < HEADER_BYTES || off >= limit) this.fail(offAt, `postings offset table entry ${i}: postings offset ${off} lies outside the file's sections`);
      if (curName === undefined || nlen !== curNameLen || !sameBytes(b, nameAt, curNameAt, nlen)) {
        finish();
        const name = utf8Text(b, nameAt, nameAt + nlen);
        if (seen.has(name)) this.fail(at, `label name ${JSON.stringify(name)} appears in two runs of the postings offset table (not sorted)`);
        seen.add(name);
        curName = { name, first: at, count: 0, prefix: nameAt + nlen - at, samples: new Float64Array(0) };
        curNameAt = nameAt;
        curNameLen = nlen;
        samples = [];
        list.push(curName);
      }
      if (at + curName.prefix !== nameAt + nlen) this.fail(at, `postings offset table entry ${i}: key count or name length not encoded like the name's first entry`);
      if ((curName.count & (SAMPLE_EVERY - 1)) === 0) samples.push(at);
      curName.count++;
    }
    finish();
    if (cur.at !== end) this.fail(cur.at, `${end - cur.at} bytes after the last of ${count} postings offset table entries`);
    return list;
  }

  // ---------------------------------------------------------- lazy lookups

  /** A symbol for series `ref`'s entry, on a cache miss: keeps the series cursor. */
  private seriesSymbol(ref: number, i: number): string {
    const { at, end, ok } = cur;
    if (!(i < this.symCount)) this.badSeries(ref, at, `symbol reference ${i} out of range (${this.symCount} symbols)`);
    const s = this.loadSymbol(i);
    cur.reset(this.buf, at, end);
    cur.ok = ok;
    return s;
  }

  /** Decodes symbol `i` (filling its group's offsets on first use) and caches it. */
  private loadSymbol(i: number): string {
    this.checkOpen();
    const count = this.symCount;
    if (!(i >= 0 && i < count) || i !== Math.floor(i)) {
      this.fail(this.symBase, `symbol reference ${i} out of range (${count} symbols)`);
    }
    if (this.symCache.length === 0) this.symCache = new Array(count);
    if (this.symOffsets.length === 0) this.symOffsets = new Uint32Array(count);
    const b = this.buf;
    const base = this.symBase;
    const offs = this.symOffsets;
    if (offs[i] === 0) {
      // Lengths were checked at open, so the group walk cannot run off.
      const g = i >>> SAMPLE_SHIFT;
      const last = Math.min(count, (g + 1) * SAMPLE_EVERY);
      cur.reset(b, base + this.symSamples[g]!, this.symEnd);
      for (let j = g * SAMPLE_EVERY; j < last; j++) {
        offs[j] = cur.at - base;
        const len = cur.uvarint();
        cur.at += len;
      }
    }
    cur.reset(b, base + offs[i]!, this.symEnd);
    const len = cur.uvarint();
    const s = utf8Text(b, cur.at, cur.at + len);
    this.symCache[i] = s;
    return s;
  }

  /** Offset of the postings list of `e`'s value `q`, or -1. */
  private findPostingsOffset(e: NameEntries, q: Uint8Array): number {
    const b = this.buf;
    const samples = e.samples;
    const lim = this.postingsTableEnd();
    // Last sample whose value <= q.
    let lo = 0;
    let hi = samples.length - 1;
    if (this.compareEntryValue(e, samples[0]!, q, lim) > 0) return -1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.compareEntryValue(e, samples[mid]!, q, lim) <= 0) lo = mid;
      else hi = mid - 1;
    }
    let p = samples[lo]!;
    const n = Math.min(SAMPLE_EVERY, e.count - lo * SAMPLE_EVERY);
    for (let i = 0; i < n; i++) {
      cur.reset(b, p + e.prefix, lim);
      const vlen = cur.uvarint();
      if (vlen < 0 || cur.at + vlen > lim) this.fail(p, `bad postings offset table entry of label ${JSON.stringify(e.name)}`);
      const c = compareBytes(b, cur.at, vlen, q, 0, q.length);
      cur.at += vlen;
      const off = cur.uvarint();
      if (c === 0) return off;
      if (c > 0) return -1;
      p = cur.at;
    }
    return -1;
  }

  private compareEntryValue(e: NameEntries, entryAt: number, q: Uint8Array, lim: number): number {
    cur.reset(this.buf, entryAt + e.prefix, lim);
    const vlen = cur.uvarint();
    if (vlen < 0 || cur.at + vlen > lim) this.fail(entryAt, `bad postings offset table entry of label ${JSON.stringify(e.name)}`);
    return compareBytes(this.buf, cur.at, vlen, q, 0, q.length);
  }

  // ---------------------------------------------------------- errors

  private checkOpen(): void {
    if (this.closed) throw new Error(`${this.path}: index reader is closed`);
  }

  private fail(offset: number, problem: string): never {
    throw new BlockFormatError(this.path, offset, problem);
  }

  private badSeriesRef(ref: number, at: number): never {
    this.checkOpen();
    this.fail(at, `series ref ${ref} (offset ${at}) is not in the series section [${this.seriesStart}, ${this.seriesEnd})`);
  }

  private badSeriesLength(ref: number, at: number, len: number): never {
    this.fail(at, len < 0 ? `series ${ref}: bad entry length` : `series ${ref}: entry of ${len} bytes runs past the series section end ${this.seriesEnd}`);
  }

  private badSeriesCrc(ref: number, start: number, end: number, stored: number): never {
    this.fail(end, `series ${ref}: CRC32C mismatch: stored ${hex32(stored)}, computed ${hex32(crc32cRange(this.buf, start, end))} over bytes ${start}..${end}`);
  }

  private badSeries(ref: number, at: number, problem: string): never {
    this.fail(at, `series ${ref}: ${problem}`);
  }
}
