/**
 * Test-only readers for the files of a Prometheus TSDB block, as written by
 * Prometheus itself (for us: `promtool tsdb create-blocks-from openmetrics`).
 * They check every magic number, version and CRC and throw a
 * {@link BlockFormatError} naming the file and byte offset otherwise; they are
 * not fast and read whole files into memory, which suits small fixtures.
 *
 * Formats, from the Prometheus repository:
 * - tsdb/docs/format/chunks.md: segment = magic 0x85BD40DD (4 bytes, big
 *   endian), version 1 (1 byte), 3 bytes of zero padding, then chunks back to
 *   back, each `len <uvarint>`, `encoding <1 byte>`, `data <len bytes>`,
 *   CRC32C (Castagnoli, big endian) of encoding + data.
 * - tsdb/docs/format/index.md: index = magic 0xBAAAD700, version 2, symbol
 *   table, series (each 16-byte aligned), ..., and a 52-byte table of contents
 *   at the end. Only the parts needed to map series to chunks are read.
 *
 * @example
 * const block = readBlock('test/fixtures/prometheus/blocks/01H...');
 * for (const s of block.series) for (const c of s.chunks) decode(c.data);
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { crc32c } from '@node-rs/crc32';

/** Chunk encodings Prometheus writes (tsdb/chunkenc/chunk.go). */
export const CHUNK_ENCODING_XOR = 1;

/** Magic number at the start of a chunk segment file. */
export const CHUNK_SEGMENT_MAGIC = 0x85bd40dd;
/** Magic number at the start of a block index file. */
export const INDEX_MAGIC = 0xbaaad700;
/** Header = magic (4) + version (1) + padding (3). */
const CHUNK_SEGMENT_HEADER_BYTES = 8;
/** Six 8-byte section offsets and a CRC32C. */
const INDEX_TOC_BYTES = 6 * 8 + 4;

/** Thrown when a file is not what Prometheus writes; says where. */
export class BlockFormatError extends Error {
  override readonly name = 'BlockFormatError';
  constructor(
    readonly file: string,
    readonly offset: number,
    detail: string,
  ) {
    super(`${file}: ${detail} (at byte offset ${offset})`);
  }
}

/** One chunk of a segment file. `data` is a view into the file's bytes. */
export interface SegmentChunk {
  /** Byte offset of the chunk (its length field) in the segment file. */
  offset: number;
  encoding: number;
  data: Uint8Array;
}

/** A label of a series. */
export interface Label {
  name: string;
  value: string;
}

/** A chunk reference of a series, as the index holds it. */
export interface IndexChunkRef {
  /** Inclusive timestamps (ms) of the chunk's first and last sample. */
  minTime: bigint;
  maxTime: bigint;
  /** Segment sequence (0 = file chunks/000001) and byte offset in it. */
  segment: number;
  offset: number;
}

/** A series entry of the index. */
export interface IndexSeries {
  labels: Label[];
  chunks: IndexChunkRef[];
}

/** A series of a block with its chunks resolved against the segment files. */
export interface BlockSeries {
  labels: Label[];
  chunks: Array<IndexChunkRef & { file: string; encoding: number; data: Uint8Array }>;
}

/** A block directory read whole. */
export interface Block {
  dir: string;
  meta: { ulid: string; minTime: number; maxTime: number; stats?: Record<string, number> };
  /** Segment file paths, in sequence order (index 0 = chunks/000001). */
  segmentFiles: string[];
  series: BlockSeries[];
}

/** Reads bytes left to right; every failure names the file and offset. */
class Cursor {
  constructor(
    readonly file: string,
    readonly bytes: Uint8Array,
    public pos: number,
    /** Reads past this offset fail. */
    readonly end: number = bytes.length,
  ) {}

  fail(detail: string, at: number = this.pos): never {
    throw new BlockFormatError(this.file, at, detail);
  }

  need(n: number, what: string): void {
    if (n < 0 || this.pos + n > this.end) {
      this.fail(`truncated ${what}: need ${n} bytes, ${this.end - this.pos} left`);
    }
  }

  u8(what: string): number {
    this.need(1, what);
    return this.bytes[this.pos++]!;
  }

  u32be(what: string): number {
    this.need(4, what);
    const v = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 4).getUint32(0);
    this.pos += 4;
    return v;
  }

  u64be(what: string): bigint {
    this.need(8, what);
    const v = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 8).getBigUint64(0);
    this.pos += 8;
    return v;
  }

  /** Go's binary.Uvarint, at most 10 bytes, as a bigint. */
  uvarint(what: string): bigint {
    const start = this.pos;
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) this.fail(`truncated uvarint ${what}`, start);
      const b = this.bytes[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) {
        if (shift === 63n && b > 1) this.fail(`uvarint ${what} overflows 64 bits`, start);
        return result;
      }
    }
    return this.fail(`uvarint ${what} longer than 10 bytes`, start);
  }

  /** Go's binary.Varint (zig-zag). */
  varint(what: string): bigint {
    const u = this.uvarint(what);
    return BigInt.asIntN(64, (u >> 1n) ^ -(u & 1n));
  }

  /** A uvarint that must fit a JS safe integer (lengths, counts). */
  uvarintNumber(what: string): number {
    const start = this.pos;
    const v = this.uvarint(what);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(`${what} ${v} is too large`, start);
    return Number(v);
  }

  bytesOf(n: number, what: string): Uint8Array {
    this.need(n, what);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

function checkCrc(c: Cursor, covered: Uint8Array, coveredAt: number, what: string): void {
  const at = c.pos;
  const stored = c.u32be(`${what} CRC32C`);
  const computed = crc32c(covered) >>> 0;
  if (stored !== computed) {
    c.fail(
      `${what} CRC32C mismatch: stored 0x${hex32(stored)}, computed 0x${hex32(computed)} ` +
        `over bytes ${coveredAt}..${coveredAt + covered.length}`,
      at,
    );
  }
}

function hex32(n: number): string {
  return n.toString(16).padStart(8, '0');
}

/**
 * Splits a chunk segment file into its chunks, checking magic, version,
 * padding and every chunk's CRC32C. `file` only names the bytes in errors.
 * The returned `data` views share `bytes`' buffer.
 */
export function readChunkSegment(bytes: Uint8Array, file: string): SegmentChunk[] {
  const c = new Cursor(file, bytes, 0);
  const magic = c.u32be('segment magic');
  if (magic !== CHUNK_SEGMENT_MAGIC) {
    c.fail(`bad chunk segment magic 0x${hex32(magic)}, want 0x${hex32(CHUNK_SEGMENT_MAGIC)}`, 0);
  }
  const version = c.u8('segment version');
  if (version !== 1) c.fail(`unsupported chunk segment version ${version}, want 1`, 4);
  const padding = c.bytesOf(3, 'segment header padding');
  if (padding.some((b) => b !== 0)) c.fail('non-zero segment header padding', 5);

  const chunks: SegmentChunk[] = [];
  while (c.pos < bytes.length) {
    const offset = c.pos;
    const len = c.uvarintNumber('chunk length');
    const encodingAt = c.pos;
    const encoding = c.u8('chunk encoding');
    const data = c.bytesOf(len, 'chunk data');
    checkCrc(c, bytes.subarray(encodingAt, c.pos), encodingAt, `chunk at offset ${offset}`);
    chunks.push({ offset, encoding, data });
  }
  return chunks;
}

/** {@link readChunkSegment} of a file on disk. */
export function readChunkSegmentFile(path: string): SegmentChunk[] {
  return readChunkSegment(readFileSync(path), path);
}

/**
 * Reads the series of a block index (format version 2) with their labels and
 * chunk references, in index order (sorted by label set). Checks magic,
 * version, and the CRC32C of the table of contents, the symbol table and
 * every series entry.
 */
export function readBlockIndex(bytes: Uint8Array, file: string): IndexSeries[] {
  const head = new Cursor(file, bytes, 0);
  const magic = head.u32be('index magic');
  if (magic !== INDEX_MAGIC) {
    head.fail(`bad index magic 0x${hex32(magic)}, want 0x${hex32(INDEX_MAGIC)}`, 0);
  }
  const version = head.u8('index version');
  if (version !== 2) head.fail(`unsupported index version ${version}, want 2`, 4);

  if (bytes.length < 5 + INDEX_TOC_BYTES) head.fail('index too short for its table of contents');
  const tocAt = bytes.length - INDEX_TOC_BYTES;
  const toc = new Cursor(file, bytes, tocAt);
  const sections = [
    'symbols',
    'series',
    'label indices',
    'label offset table',
    'postings',
    'postings offset table',
  ].map((name) => {
    const ref = toc.u64be(`TOC ref(${name})`);
    if (ref >= BigInt(tocAt)) toc.fail(`TOC ref(${name}) = ${ref} points past the TOC`, toc.pos - 8);
    return Number(ref);
  });
  checkCrc(toc, bytes.subarray(tocAt, tocAt + 48), tocAt, 'TOC');
  const [symbolsAt = 0, seriesAt = 0, ...later] = sections;

  const symbols = readSymbols(new Cursor(file, bytes, symbolsAt));
  // The series section runs up to the next section present.
  const seriesEnd = Math.min(...later.filter((ref) => ref > seriesAt), tocAt);
  const series: IndexSeries[] = [];
  if (seriesAt === 0) return series;
  // Each entry starts 16-byte aligned (its ID is offset / 16), the first one
  // included: zero padding precedes every entry.
  for (let pos = align16(seriesAt); pos < seriesEnd; ) {
    const c = new Cursor(file, bytes, pos, seriesEnd);
    series.push(readSeriesEntry(c, symbols));
    pos = align16(c.pos);
  }
  return series;
}

/** One series entry: len, labels, chunk metas, CRC32C. Leaves `c` after the CRC. */
function readSeriesEntry(c: Cursor, symbols: string[]): IndexSeries {
  const len = c.uvarintNumber('series length');
  const bodyAt = c.pos;
  const body = c.bytesOf(len, 'series entry');
  checkCrc(c, body, bodyAt, `series entry at offset ${bodyAt}`);
  const b = new Cursor(c.file, c.bytes, bodyAt, bodyAt + len);
  const labelCount = b.uvarintNumber('label count');
  const labels: Label[] = [];
  for (let i = 0; i < labelCount; i++) {
    const name = symbol(b, symbols, 'label name');
    const value = symbol(b, symbols, 'label value');
    labels.push({ name, value });
  }
  const chunkCount = b.uvarintNumber('chunk count');
  const chunks: IndexChunkRef[] = [];
  let prevMaxTime = 0n;
  let prevRef = 0n;
  for (let i = 0; i < chunkCount; i++) {
    // The first chunk is absolute; later ones are deltas (index.md).
    const minTime = i === 0 ? b.varint('chunk mint') : prevMaxTime + b.uvarint('chunk mint delta');
    const maxTime = minTime + b.uvarint('chunk maxt delta');
    const ref = i === 0 ? b.uvarint('chunk ref') : prevRef + b.varint('chunk ref delta');
    if (ref < 0n || ref >= 1n << 64n) b.fail(`chunk ref ${ref} out of range`);
    chunks.push({
      minTime: BigInt.asIntN(64, minTime),
      maxTime: BigInt.asIntN(64, maxTime),
      segment: Number(ref >> 32n),
      offset: Number(ref & 0xffffffffn),
    });
    prevMaxTime = maxTime;
    prevRef = ref;
  }
  if (b.pos !== b.end) b.fail(`${b.end - b.pos} unread bytes at the end of a series entry`);
  return { labels, chunks };
}

function align16(n: number): number {
  return (n + 15) & ~15;
}

function readSymbols(c: Cursor): string[] {
  const len = c.u32be('symbol table length');
  const bodyAt = c.pos;
  const body = c.bytesOf(len, 'symbol table');
  checkCrc(c, body, bodyAt, 'symbol table');
  const b = new Cursor(c.file, c.bytes, bodyAt, bodyAt + len);
  const count = b.u32be('symbol count');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = b.uvarintNumber('symbol length');
    out.push(decoder.decode(b.bytesOf(n, 'symbol')));
  }
  return out;
}

function symbol(c: Cursor, symbols: string[], what: string): string {
  const at = c.pos;
  const ref = c.uvarintNumber(`${what} symbol ref`);
  const s = symbols[ref];
  if (s === undefined) c.fail(`${what} symbol ref ${ref} out of range (${symbols.length} symbols)`, at);
  return s;
}

/**
 * Reads a block directory: meta.json, index and chunks/*, resolving every
 * chunk reference of the index to the chunk bytes. Throws if a reference
 * does not point at the start of a chunk.
 */
export function readBlock(dir: string): Block {
  const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as Block['meta'];
  const chunkDir = join(dir, 'chunks');
  const segmentFiles = readdirSync(chunkDir)
    .filter((name) => /^\d{6}$/.test(name))
    .sort()
    .map((name) => join(chunkDir, name));
  const segments = segmentFiles.map((path) => {
    const byOffset = new Map<number, SegmentChunk>();
    for (const chunk of readChunkSegmentFile(path)) byOffset.set(chunk.offset, chunk);
    return byOffset;
  });
  const indexFile = join(dir, 'index');
  const series = readBlockIndex(readFileSync(indexFile), indexFile).map((s) => ({
    labels: s.labels,
    chunks: s.chunks.map((ref) => {
      const file = segmentFiles[ref.segment];
      const chunk = segments[ref.segment]?.get(ref.offset);
      if (file === undefined || chunk === undefined) {
        throw new BlockFormatError(
          indexFile,
          0,
          `series ${formatLabels(s.labels)} refers to segment ${ref.segment} offset ${ref.offset}, ` +
            'which is not the start of a chunk',
        );
      }
      return { ...ref, file, encoding: chunk.encoding, data: chunk.data };
    }),
  }));
  return { dir, meta, segmentFiles, series };
}

/** Prometheus' text form of a label set: `{a="1", b="2"}`. */
export function formatLabels(labels: readonly Label[]): string {
  return `{${labels.map((l) => `${l.name}=${JSON.stringify(l.value)}`).join(', ')}}`;
}
