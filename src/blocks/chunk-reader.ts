/**
 * Memory-mapped reader of a block's `chunks/` directory (Prometheus TSDB
 * chunk segment files, tsdb/docs/format/chunks.md).
 *
 * Each segment file `000001`, `000002`, ... starts with magic 0x85BD40DD
 * (big endian), version 1 and 3 bytes of padding, then holds chunks back to
 * back: `len <uvarint> | encoding <1b> | data <len bytes> | CRC32C <4b>` (of
 * encoding and data). A chunk reference is `segment index << 32 | offset`,
 * file 000001 being segment index 0.
 *
 * Opening maps every segment and checks its header. `chunk()` returns a view
 * of the map without checking the CRC (that would cost more than the query
 * path can pay); `verify()` and `checkAll()` check it.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readBE32 } from '../encoding/big-endian.js';
import { VarintReader } from '../encoding/varint.js';
import { releasePages } from '../files/mmap.js';
import { BlockFormatError, mapReadOnly } from './index-reader.js';
import { crc32cRange } from '../encoding/crc32c.js';

/** First four bytes of a chunk segment file (big endian). */
export const CHUNKS_MAGIC = 0x85bd40dd;
/** The chunk segment format version this reader decodes. */
export const CHUNKS_FORMAT_V1 = 1;
/** Magic (4), version (1), padding (3). */
export const SEGMENT_HEADER_BYTES = 8;
/** Longest chunk length field Prometheus reads (Go's MaxVarintLen32). */
const MAX_LENGTH_FIELD_BYTES = 5;
const TWO_32 = 4294967296;

/** Reads chunk length fields; one for the module, as chunk() is on the query path. */
const lengthField = new VarintReader();

/** Where a chunk sits in its segment, as `locate()` finds it. */
interface ChunkSpan {
  map: Buffer;
  file: string;
  /** Offset of the chunk's length field. */
  at: number;
  /** Offset of the encoding byte; data follows it. */
  encAt: number;
  /** End of data = offset of the CRC32C. */
  end: number;
}

export class BlockChunkReader {
  /** Total size of the segment files in bytes (Prometheus' chunks.Reader.Size()). */
  readonly size: number;
  /** Segment file paths, by segment index (0 = chunks/000001). */
  readonly files: readonly string[];

  private maps: Buffer[];
  private closed = false;

  private constructor(
    readonly dir: string,
    files: string[],
    maps: Buffer[],
  ) {
    this.files = files;
    this.maps = maps;
    let size = 0;
    for (const m of maps) size += m.length;
    this.size = size;
  }

  /**
   * Maps every segment file of `chunksDir` and checks its header. Segment
   * files are the names made of digits only (as Prometheus'
   * sequenceFiles), which must be numbered 1, 2, ... without gaps.
   */
  static open(chunksDir: string): BlockChunkReader {
    let names: string[];
    try {
      names = readdirSync(chunksDir);
    } catch (err) {
      throw new BlockFormatError(chunksDir, 0, `cannot list the chunks directory: ${(err as Error).message}`);
    }
    const numbered = names
      .filter((n) => /^[0-9]+$/.test(n))
      .map((n) => ({ n, seq: Number(n) }))
      .sort((a, b) => a.seq - b.seq);
    const files: string[] = [];
    const maps: Buffer[] = [];
    for (let i = 0; i < numbered.length; i++) {
      const { n, seq } = numbered[i]!;
      const file = join(chunksDir, n);
      if (seq !== i + 1) {
        throw new BlockFormatError(file, 0, `chunk segment numbered ${seq} where ${i + 1} was expected (segments must be numbered 1, 2, ... without gaps)`);
      }
      const map = mapReadOnly(file);
      if (map.length < SEGMENT_HEADER_BYTES) {
        throw new BlockFormatError(file, 0, `chunk segment of ${map.length} bytes is too short for its ${SEGMENT_HEADER_BYTES}-byte header`);
      }
      const magic = readBE32(map, 0);
      if (magic !== CHUNKS_MAGIC) {
        throw new BlockFormatError(file, 0, `bad chunk segment magic 0x${magic.toString(16).padStart(8, '0')}, want 0x${CHUNKS_MAGIC.toString(16)}`);
      }
      if (map[4] !== CHUNKS_FORMAT_V1) {
        throw new BlockFormatError(file, 4, `unknown chunk segment format version ${map[4]}, want ${CHUNKS_FORMAT_V1}`);
      }
      files.push(file);
      maps.push(map);
    }
    return new BlockChunkReader(chunksDir, files, maps);
  }

  /** Drops the maps; chunk views handed out stay valid. */
  close(): void {
    this.closed = true;
    this.maps = [];
  }

  /** Lets the process' resident pages of the segments go; reads still work (see releasePages in src/files/mmap.ts). */
  releasePages(): void {
    for (const map of this.maps) releasePages(map);
  }

  /**
   * The chunk at `ref`: its encoding and a read-only view of its bytes in
   * the map (no copy, no CRC check; see verify()).
   */
  chunk(ref: number): { encoding: number; data: Uint8Array } {
    const seg = Math.floor(ref / TWO_32);
    const at = ref - seg * TWO_32;
    const map = this.maps[seg];
    // Fast path: a one- or two-byte length, well inside the file.
    if (map !== undefined && at >= SEGMENT_HEADER_BYTES && at + 2 < map.length) {
      lengthField.reset(map, at, at + 2);
      const len = lengthField.uvarint();
      const encAt = lengthField.at;
      const end = encAt + 1 + len;
      if (lengthField.ok && end + 4 <= map.length) {
        return { encoding: map[encAt]!, data: new Uint8Array(map.buffer, map.byteOffset + encAt + 1, len) };
      }
    }
    const s = this.locate(ref);
    return { encoding: s.map[s.encAt]!, data: new Uint8Array(s.map.buffer, s.map.byteOffset + s.encAt + 1, s.end - s.encAt - 1) };
  }

  /** Checks the CRC32C of the chunk at `ref`; throws naming file and offset on a mismatch. */
  verify(ref: number): void {
    const s = this.locate(ref);
    const stored = readBE32(s.map, s.end);
    const computed = crc32cRange(s.map, s.encAt, s.end);
    if (stored !== computed) {
      throw new BlockFormatError(
        s.file,
        s.end,
        `CRC32C mismatch of the chunk at offset ${s.at} (ref ${ref}): stored 0x${stored.toString(16).padStart(8, '0')}, computed 0x${computed.toString(16).padStart(8, '0')}`,
      );
    }
  }

  /**
   * Walks every segment from its header to its end, checking each chunk's
   * length, bounds and CRC32C. For tests and tools; reads every byte.
   */
  checkAll(): { segments: number; chunks: number; bytes: number } {
    this.checkOpen();
    let chunks = 0;
    for (let i = 0; i < this.maps.length; i++) {
      const map = this.maps[i]!;
      let at = SEGMENT_HEADER_BYTES;
      while (at < map.length) {
        const s = this.locate(i * TWO_32 + at);
        const stored = readBE32(map, s.end);
        const computed = crc32cRange(map, s.encAt, s.end);
        if (stored !== computed) {
          throw new BlockFormatError(s.file, s.end, `CRC32C mismatch of the chunk at offset ${at}: stored 0x${stored.toString(16).padStart(8, '0')}, computed 0x${computed.toString(16).padStart(8, '0')}`);
        }
        chunks++;
        at = s.end + 4;
      }
    }
    return { segments: this.maps.length, chunks, bytes: this.size };
  }

  /** Bounds-checked location of the chunk at `ref`; throws a clear error otherwise. */
  private locate(ref: number): ChunkSpan {
    this.checkOpen();
    if (!Number.isSafeInteger(ref) || ref < 0) {
      throw new BlockFormatError(this.dir, 0, `chunk ref ${ref} is not a non-negative integer`);
    }
    const seg = Math.floor(ref / TWO_32);
    const at = ref - seg * TWO_32;
    const map = this.maps[seg];
    const file = this.files[seg];
    if (map === undefined || file === undefined) {
      throw new BlockFormatError(
        join(this.dir, String(seg + 1).padStart(6, '0')),
        at,
        `chunk ref ${ref} names segment index ${seg} (file ${String(seg + 1).padStart(6, '0')}), but the block has ${this.maps.length} segment file(s)`,
      );
    }
    if (at < SEGMENT_HEADER_BYTES || at >= map.length) {
      throw new BlockFormatError(file, at, `chunk ref ${ref}: offset ${at} is outside the segment's chunks [${SEGMENT_HEADER_BYTES}, ${map.length})`);
    }
    lengthField.reset(map, at, Math.min(map.length, at + MAX_LENGTH_FIELD_BYTES));
    const len = lengthField.uvarint();
    if (!lengthField.ok) throw new BlockFormatError(file, at, `chunk ref ${ref}: bad chunk length field`);
    const encAt = lengthField.at;
    const end = encAt + 1 + len;
    if (end + 4 > map.length) {
      throw new BlockFormatError(file, at, `chunk ref ${ref}: chunk of ${len} data bytes (with encoding and CRC32C, up to byte ${end + 4}) runs past the segment's end at ${map.length}`);
    }
    return { map, file, at, encAt, end };
  }

  private checkOpen(): void {
    if (this.closed) throw new Error(`${this.dir}: chunk reader is closed`);
  }
}
