import fs from 'node:fs';
import { join } from 'node:path';
import { isZero } from '../encoding/bytes.js';
import { syncFd } from '../files/durable.js';
import { mapFile, releasePages } from '../files/mmap.js';
import { crc32cRange } from '../encoding/crc32c.js';
import { ENCODING_XOR, isKnownEncoding } from '../chunkenc/encoding.js';
import { MAX_ENTRY_HEADER, readEntryHeader, writeEntryHeader } from './entry.js';
import type { EntryHeader } from './entry.js';
import { knownFilesMismatch, segmentName, type ChunkFileRecord } from './known-files.js';
import { chunkCorrupted } from './corruption.js';

/**
 * Full head chunks in memory-mapped segment files under DATA/chunks_head/.
 * Format: docs/format/chunks-head.md. One writer (the head); reads are
 * views of the maps and cost no copy.
 */

/** "STCH": Strata head chunks. */
export const CHUNK_SEGMENT_MAGIC = 0x53544348;
export const CHUNK_SEGMENT_VERSION = 2;
const FILE_HEADER = 8;
const CRC_BYTES = 4;
/**
 * 128 MiB, as Prometheus' head chunk files: a busy head fills one every
 * few minutes, and retention frees space in steps of this size.
 */
export const DEFAULT_CHUNK_SEGMENT_BYTES = 128 * 1024 * 1024;
const TWO_32 = 4294967296;
/** Scratch for read(): refs are read one at a time on one thread. */
const header: EntryHeader = { id: 0, minT: 0, maxT: 0, encoding: 0, dataAt: 0, dataLen: 0 };

export interface ChunkSegmentsOptions {
  dir: string;
  segmentBytes?: number;
  log?: { info(o: object, msg: string): void; warn(o: object, msg: string): void };
}

/** Called for every chunk found on open, in file order, with its encoding (1 XOR, 2 histogram, 3 float histogram). */
export type ChunkVisitor = (id: number, ref: number, minT: number, maxT: number, encoding: number) => void;

interface Segment {
  seq: number;
  path: string;
  /** -1 until the file is created (at its first flush: creating it may fail on a full disk). */
  fd: number;
  /** Empty until the file is created. */
  map: Buffer;
  /** Bytes in the file: the header and whole entries (the header counts before the file exists). */
  size: number;
  /** Entries added and not yet written to the file, which go at `size`. */
  stage: Buffer;
  staged: number;
  minT: number;
  maxT: number;
  chunks: number;
  /** Highest series id among its chunks (0 when none). */
  maxId: number;
  /**
   * Whether every entry's checksum was checked (the open scanned the file)
   * or the entries were written by this process. A file mapped on a
   * snapshot's word is not: read() checks each chunk's CRC, as
   * Prometheus' ChunkDiskMapper does on every read.
   */
  verified: boolean;
}

const NO_BYTES = Buffer.alloc(0);
/** Room staged for a segment's entries between writes. */
const STAGE_BYTES = 1 << 20;

export class ChunkSegments {
  private readonly segments = new Map<number, Segment>();
  private active!: Segment;
  /** Segments with staged entries a write failed to take (a full disk), oldest first; flush() tries them again. */
  private readonly unwritten: Segment[] = [];
  private readonly unsynced: Segment[] = [];
  private readonly segmentBytes: number;
  /** What the open found damaged and skipped: the chunks there are lost, no others. */
  readonly damaged: ChunkFileDamage[] = [];
  /** Whether the open read every entry of the files (false: they were mapped as a snapshot recorded them). */
  scanned = true;

  private constructor(private readonly opts: ChunkSegmentsOptions) {
    this.segmentBytes = opts.segmentBytes ?? DEFAULT_CHUNK_SEGMENT_BYTES;
  }

  /**
   * Opens the directory (creating it), calls `visit` for every chunk of the
   * existing segments, and starts a new segment for writing. A torn tail of
   * the last segment is truncated with a log line. Other damage is skipped
   * (logged with file and offset, listed in `damaged`): reading goes on at
   * the next whole chunk, so only the damaged chunks are lost.
   *
   * With `known` (the files as a clean stop recorded them, known-files.ts)
   * and the files exactly those, nothing is read and `visit` is not called:
   * the files are mapped, `scanned` is false, and each chunk's checksum is
   * checked when it is read. Any difference means the scan.
   */
  static open(opts: ChunkSegmentsOptions, visit: ChunkVisitor, known?: readonly ChunkFileRecord[]): ChunkSegments {
    const cs = new ChunkSegments(opts);
    fs.mkdirSync(opts.dir, { recursive: true });
    const seqs = fs.readdirSync(opts.dir).filter((f) => /^\d{6,}$/.test(f)).map(Number).sort((a, b) => a - b);
    const unknown = known === undefined ? undefined : knownFilesMismatch(opts.dir, seqs, known) ?? cs.adoptAll(known);
    if (known !== undefined && unknown === undefined) cs.scanned = false;
    else {
      if (unknown !== undefined) opts.log?.info({ dir: opts.dir, reason: unknown }, 'head chunk files differ from the snapshot\'s record: scanning them');
      seqs.forEach((seq, i) => cs.load(seq, i === seqs.length - 1, visit));
    }
    cs.active = cs.newSegment((seqs.at(-1) ?? 0) + 1);
    return cs;
  }

  /**
   * Stages a chunk of `encoding` (Prometheus' number: 1 XOR, the default,
   * 2 histogram, 3 float histogram) for writing and returns its ref. The
   * bytes reach the file at the next flush(); read() flushes first, so a
   * ref is readable as soon as it is returned. Does no I/O that can fail:
   * entries a full disk keeps out of the files stay staged, readable, until
   * a flush() gets them written.
   */
  add(id: number, minT: number, maxT: number, data: Uint8Array, encoding = ENCODING_XOR): number {
    const most = MAX_ENTRY_HEADER + data.length + CRC_BYTES;
    let seg = this.active;
    if (seg.size + seg.staged + most > this.segmentBytes && seg.size + seg.staged > FILE_HEADER) seg = this.roll();
    if (seg.staged + most > seg.stage.length && !this.tryWrite(seg)) grow(seg, seg.staged + most);
    if (most > seg.stage.length) grow(seg, most);
    const b = seg.stage;
    const at = seg.staged;
    const dataAt = writeEntryHeader(b, at, id, minT, maxT, encoding, data.length);
    b.set(data, dataAt);
    const end = dataAt + data.length;
    b.writeUInt32LE(crc32cRange(b, at, end), end);
    seg.staged = end + CRC_BYTES;
    if (minT < seg.minT) seg.minT = minT;
    if (maxT > seg.maxT) seg.maxT = maxT;
    if (id > seg.maxId) seg.maxId = id;
    seg.chunks++;
    return seg.seq * TWO_32 + seg.size + at;
  }

  /**
   * Writes the staged chunks to the OS (one write a segment, creating its
   * file first if need be). Throws the write's error (ENOSPC, EIO) with
   * the chunks still staged and readable: a later flush tries again.
   */
  flush(): void {
    while (this.unwritten.length > 0) {
      this.write(this.unwritten[0]!);
      this.unwritten.shift();
    }
    this.write(this.active);
  }

  /** Whether entries are staged that a write failed to take. */
  get backlog(): boolean {
    return this.unwritten.length > 0;
  }

  /**
   * The chunk's bytes: a view of the memory map, valid for as long as the
   * caller holds it (the map lives while any view of it does), read-only.
   * A chunk a full disk keeps staged is returned as a copy.
   */
  read(ref: number): Uint8Array {
    const seq = Math.floor(ref / TWO_32);
    const seg = this.segments.get(seq);
    if (seg === undefined) throw new RangeError(`chunk ref ${ref}: segment ${seq} is gone`);
    const at = ref - seq * TWO_32;
    const bytes = this.bytesAt(seg, at, ref);
    if (!seg.verified && bytes === seg.map) checkEntry(seg, at);
    return bytes === seg.map ? seg.map.subarray(header.dataAt, header.dataAt + header.dataLen) : bytes.slice(header.dataAt, header.dataAt + header.dataLen);
  }

  /**
   * The encoding of the chunk at `ref`, as its entry records it (1 XOR, 2
   * histogram, 3 float histogram): what a reader passes on with read()'s
   * bytes.
   */
  encodingOf(ref: number): number {
    const seq = Math.floor(ref / TWO_32);
    const seg = this.segments.get(seq);
    if (seg === undefined) throw new RangeError(`chunk ref ${ref}: segment ${seq} is gone`);
    this.bytesAt(seg, ref - seq * TWO_32, ref);
    return header.encoding;
  }

  /**
   * Reads the entry header at `at` of `seg` into `header` and returns what
   * its offsets are in: the map, or (for an entry a failed write left
   * staged) the stage, with `header`'s offsets made relative to it.
   */
  private bytesAt(seg: Segment, at: number, ref: number): Buffer {
    if (at >= seg.size && seg.staged > 0) this.tryWrite(seg);
    if (at < seg.size) {
      if (!readEntryHeader(seg.map, at, seg.size, header)) throw new RangeError(`chunk ref ${ref}: no entry there`);
      return seg.map;
    }
    if (!readEntryHeader(seg.stage, at - seg.size, seg.staged, header)) throw new RangeError(`chunk ref ${ref}: no entry there`);
    return seg.stage;
  }

  /** The segment number a ref points into. */
  static segmentOf(ref: number): number {
    return Math.floor(ref / TWO_32);
  }

  /**
   * Deletes every closed segment whose chunks all end before `cutoff` and
   * returns their numbers. Refs into them must not be read afterwards.
   */
  deleteEndingBefore(cutoff: number): number[] {
    const gone: number[] = [];
    for (const seg of this.segments.values()) {
      if (seg === this.active || seg.maxT >= cutoff) continue;
      if (this.unsynced.includes(seg) || seg.staged > 0) continue;
      fs.closeSync(seg.fd);
      fs.unlinkSync(seg.path);
      // A read in flight may still hold a view: the map stays valid, but its
      // pages need not count in the process' memory until it is collected.
      releasePages(seg.map);
      this.segments.delete(seg.seq);
      gone.push(seg.seq);
    }
    return gone;
  }

  /**
   * Lets the resident pages of every segment go (they were read once to
   * write a block, say); later reads fault back in what they touch. The
   * active one too: it grows by writes, never through its map.
   */
  releaseResidentPages(): void {
    for (const seg of this.segments.values()) if (seg.fd >= 0) releasePages(seg.map);
  }

  /** fsyncs every segment written since the last sync (off the event loop). */
  async sync(): Promise<void> {
    this.flush();
    const pending = this.unsynced.splice(0);
    await Promise.all(pending.map((seg) => syncFd(seg.fd)));
    if (this.active.fd >= 0) await syncFd(this.active.fd);
  }

  /** Bytes in use in all segments. */
  diskBytes(): number {
    let total = 0;
    for (const seg of this.segments.values()) total += (seg.fd >= 0 ? seg.size : 0) + seg.staged;
    return total;
  }

  get segmentCount(): number {
    return this.segments.size;
  }

  /**
   * Flushes, fsyncs and closes the files. Chunks a full disk keeps staged
   * are left out (their samples are in the WAL) and the flush's error is
   * thrown once every file is closed.
   */
  async close(): Promise<void> {
    try {
      await this.sync();
    } finally {
      for (const seg of this.segments.values()) if (seg.fd >= 0) fs.closeSync(seg.fd);
      this.segments.clear();
    }
  }

  /**
   * Each file as it stands, for the head snapshot (known-files.ts); call
   * after a flush and sync, with no more writes to come (a closing engine).
   * Undefined while entries a full disk refused are staged: the files are
   * not what the head lists.
   */
  files(): ChunkFileRecord[] | undefined {
    if (this.unwritten.length > 0 || this.active.staged > 0) return undefined;
    const out: ChunkFileRecord[] = [];
    for (const seg of [...this.segments.values()].sort((a, b) => a.seq - b.seq)) {
      if (seg.fd < 0) continue;
      const st = fs.fstatSync(seg.fd, { bigint: true });
      if (st.size !== BigInt(seg.size)) return undefined;
      out.push({
        seq: seg.seq, size: seg.size, mtimeNs: st.mtimeNs, lastCrc: seg.size > FILE_HEADER ? seg.map.readUInt32LE(seg.size - CRC_BYTES) : 0,
        chunks: seg.chunks, maxId: seg.maxId, minT: seg.minT, maxT: seg.maxT,
      });
    }
    return out;
  }

  /**
   * Maps the `known` files without reading their entries (open()); answers
   * why not when one's header or last checksum is not what was recorded,
   * leaving nothing open.
   */
  private adoptAll(known: readonly ChunkFileRecord[]): string | undefined {
    for (const k of known) {
      const path = join(this.opts.dir, segmentName(k.seq));
      const fd = fs.openSync(path, 'r+');
      const map = k.size > 0 ? mapFile(fd, k.size) : NO_BYTES;
      const problem = fileHeaderProblem(map)
        ?? (k.size > FILE_HEADER && map.readUInt32LE(k.size - CRC_BYTES) !== k.lastCrc ? `file ${k.seq}: its last checksum is not the recorded one` : undefined);
      if (problem !== undefined) {
        fs.closeSync(fd);
        for (const seg of this.segments.values()) fs.closeSync(seg.fd);
        this.segments.clear();
        return problem;
      }
      this.segments.set(k.seq, {
        seq: k.seq, path, fd, map, size: k.size, stage: NO_BYTES, staged: 0, minT: k.minT, maxT: k.maxT, chunks: k.chunks, maxId: k.maxId, verified: false,
      });
    }
    return undefined;
  }

  /** Starts the next segment; the full one is written now if it can be, or by a later flush. */
  private roll(): Segment {
    const old = this.active;
    if (old.staged > 0 && !this.tryWrite(old)) this.unwritten.push(old);
    if (old.fd >= 0) this.unsynced.push(old);
    this.active = this.newSegment(old.seq + 1);
    if (old.staged === 0) {
      // The stage is free: the new segment takes it over.
      this.active.stage = old.stage;
      old.stage = NO_BYTES;
    }
    return this.active;
  }

  /** A segment to stage entries for; its file is made by its first write. */
  private newSegment(seq: number): Segment {
    const path = join(this.opts.dir, segmentName(seq));
    const seg: Segment = {
      seq, path, fd: -1, map: NO_BYTES, size: FILE_HEADER, stage: Buffer.allocUnsafe(STAGE_BYTES), staged: 0, minT: Infinity, maxT: -Infinity, chunks: 0, maxId: 0, verified: true,
    };
    this.segments.set(seq, seg);
    return seg;
  }

  /**
   * Writes `seg`'s staged entries at its end, creating its file first
   * (header, then the full size mapped once: the file grows by these
   * writes only, never sparse, so that no page of the map is ever touched
   * that the filesystem has not given space for; later writes show through
   * the shared map). On an error the file is as before and the entries stay staged.
   */
  private write(seg: Segment): void {
    if (seg.staged === 0) return;
    if (seg.fd < 0) this.createFile(seg);
    const wrote = writeAll(seg.fd, seg.stage, seg.staged, seg.size);
    if (wrote !== undefined) {
      try {
        fs.ftruncateSync(seg.fd, seg.size);
      } catch {
        // The entries are written again at `size` by the next flush; bytes past them are the unused rest.
      }
      throw wrote;
    }
    seg.size += seg.staged;
    seg.staged = 0;
    if (seg !== this.active && seg.stage !== NO_BYTES) seg.stage = NO_BYTES;
  }

  /** write(), with a failure left for flush() to report. */
  private tryWrite(seg: Segment): boolean {
    try {
      this.write(seg);
      return true;
    } catch {
      if (seg !== this.active && !this.unwritten.includes(seg)) {
        this.unwritten.push(seg);
        this.unwritten.sort((a, b) => a.seq - b.seq);
      }
      return false;
    }
  }

  private createFile(seg: Segment): void {
    const fd = fs.openSync(seg.path, 'wx+');
    try {
      const head = Buffer.alloc(FILE_HEADER);
      head.writeUInt32BE(CHUNK_SEGMENT_MAGIC, 0);
      head[4] = CHUNK_SEGMENT_VERSION;
      const failed = writeAll(fd, head, FILE_HEADER, 0);
      if (failed !== undefined) throw failed;
      seg.map = mapFile(fd, this.segmentBytes);
    } catch (err) {
      // No file left behind: the next attempt creates it again.
      fs.closeSync(fd);
      fs.unlinkSync(seg.path);
      throw err;
    }
    seg.fd = fd;
  }

  private load(seq: number, last: boolean, visit: ChunkVisitor): void {
    const path = join(this.opts.dir, segmentName(seq));
    const fd = fs.openSync(path, 'r+');
    const fileSize = fs.fstatSync(fd).size;
    if (fileSize < FILE_HEADER) {
      fs.closeSync(fd);
      if (!last) {
        this.damage({ file: path, offset: 0, bytes: fileSize, reason: `${fileSize} bytes, shorter than the header` }, 'skipped a head chunk file shorter than its header');
        return;
      }
      fs.unlinkSync(path);
      this.opts.log?.warn({ file: path }, 'removed a chunk segment torn before its header');
      return;
    }
    const map = mapFile(fd, fileSize);
    const headerProblem = fileHeaderProblem(map);
    if (headerProblem !== undefined) {
      // Not a file of ours, or of another version: its chunks cannot be trusted. Left as it is, unread.
      fs.closeSync(fd);
      this.damage({ file: path, offset: 0, bytes: fileSize, reason: headerProblem }, 'skipped a head chunk file whose header is damaged: its chunks are lost');
      return;
    }
    const seg: Segment = { seq, path, fd, map, size: FILE_HEADER, stage: NO_BYTES, staged: 0, minT: Infinity, maxT: -Infinity, chunks: 0, maxId: 0, verified: true };
    const { end, damaged, torn } = scanEntries(map, fileSize, path, last, (at, h) => {
      if (h.minT < seg.minT) seg.minT = h.minT;
      if (h.maxT > seg.maxT) seg.maxT = h.maxT;
      if (h.id > seg.maxId) seg.maxId = h.id;
      seg.chunks++;
      visit(h.id, seq * TWO_32 + at, h.minT, h.maxT, h.encoding);
    });
    for (const d of damaged) {
      this.damage(d, d.offset + d.bytes < fileSize
        ? 'skipped a damaged stretch of a head chunk file; reading goes on at the next whole chunk'
        : 'skipped a damaged head chunk and the rest of its file: no whole chunk follows');
    }
    if (torn !== undefined) this.opts.log?.warn({ file: path, offset: end, dropped: fileSize - end }, `truncated a torn chunk segment tail (${torn})`);
    seg.size = end;
    if (fileSize > end) fs.ftruncateSync(fd, end);
    this.segments.set(seq, seg);
  }

  private damage(d: ChunkFileDamage, msg: string): void {
    this.damaged.push(d);
    this.opts.log?.warn(d, msg);
  }
}

/** A damaged stretch of a head chunk file that the open skipped. */
export interface ChunkFileDamage {
  file: string;
  offset: number;
  bytes: number;
  reason: string;
}

const ZERO_TAIL = 'zero tail';

/** What is wrong with a head chunk file's header, if anything. */
function fileHeaderProblem(map: Buffer): string | undefined {
  if (map.length < FILE_HEADER) return `${map.length} bytes, shorter than the header`;
  if (map.readUInt32BE(0) !== CHUNK_SEGMENT_MAGIC) return 'bad magic number';
  if (map[4] !== CHUNK_SEGMENT_VERSION) return `unknown version ${map[4]}`;
  return undefined;
}

/** What scanEntries() found past the whole entries. */
interface EntryScan {
  /** Where the file's data ends (a zero tail or a torn tail starts), else its size. */
  end: number;
  damaged: ChunkFileDamage[];
  /** Why the tail of the last file is torn, when it is. */
  torn?: string;
}

/**
 * Walks the entries of `map[FILE_HEADER, fileSize)`, calling `onEntry` for
 * each whole one (`h` holds it during the call). Damage is skipped to the
 * next whole entry; a failed entry with none after it ends the last file
 * as a torn tail. The one reading of a head chunk file: an open's and
 * `strata tsdb check`'s.
 */
function scanEntries(map: Buffer, fileSize: number, file: string, last: boolean, onEntry: (at: number, h: EntryHeader) => void): EntryScan {
  const h: EntryHeader = { id: 0, minT: 0, maxT: 0, encoding: 0, dataAt: 0, dataLen: 0 };
  const damaged: ChunkFileDamage[] = [];
  let at = FILE_HEADER;
  while (at < fileSize) {
    const bad = entryProblem(map, at, fileSize, h);
    if (bad === undefined) {
      onEntry(at, h);
      at = h.dataAt + h.dataLen + CRC_BYTES;
      continue;
    }
    if (bad === ZERO_TAIL) return { end: at, damaged };
    const next = nextEntryAfter(map, at, fileSize);
    if (last && next === undefined) return { end: at, damaged, torn: bad };
    damaged.push({ file, offset: at, bytes: (next ?? fileSize) - at, reason: bad });
    if (next === undefined) break;
    at = next;
  }
  return { end: fileSize, damaged };
}

/**
 * What is wrong with the entry at `at` (undefined: nothing, and `h` holds
 * it), or ZERO_TAIL where only zeros are left: series ids start at 1, so a
 * zero byte where an entry starts is the unused rest of the file.
 */
function entryProblem(map: Buffer, at: number, fileSize: number, h: EntryHeader): string | undefined {
  if (map[at] === 0) return isZero(map, at, fileSize) ? ZERO_TAIL : 'zero bytes followed by data';
  if (!readEntryHeader(map, at, fileSize, h)) return 'entry header cut short or malformed';
  const end = h.dataAt + h.dataLen;
  if (end + CRC_BYTES > fileSize) return `entry of ${h.dataLen} bytes runs past the end of the file`;
  // A segment holds Prometheus' XOR, HISTOGRAM and FLOAT_HISTOGRAM chunks.
  if (!isKnownEncoding(h.encoding)) return `unknown encoding ${h.encoding}`;
  if (crc32cRange(map, at, end) !== map.readUInt32LE(end)) return 'checksum mismatch';
  return undefined;
}

/**
 * Checks the entry at `at` of a file mapped unread (its header is in
 * `header`, bytesAt()'s): its checksum, its end within the file. Throws
 * chunkCorrupted: the read fails, as Prometheus' does on a bad CRC.
 */
function checkEntry(seg: Segment, at: number): void {
  const end = header.dataAt + header.dataLen;
  if (end + CRC_BYTES > seg.size) throw chunkCorrupted(seg.path, at, `entry of ${header.dataLen} bytes runs past the end of the file`);
  if (crc32cRange(seg.map, at, end) !== seg.map.readUInt32LE(end)) throw chunkCorrupted(seg.path, at, 'checksum mismatch');
}

/** The first offset after `from` where a whole entry (its CRC good) starts, if any. */
function nextEntryAfter(map: Buffer, from: number, fileSize: number): number | undefined {
  const h: EntryHeader = { id: 0, minT: 0, maxT: 0, encoding: 0, dataAt: 0, dataLen: 0 };
  for (let at = from + 1; at < fileSize; at++) {
    if (map[at] !== 0 && entryProblem(map, at, fileSize, h) === undefined) return at;
  }
  return undefined;
}

/** Writes `length` bytes of `bytes` at `position`, looping on short writes; returns the error instead of throwing it. */
function writeAll(fd: number, bytes: Buffer, length: number, position: number): Error | undefined {
  try {
    let done = 0;
    while (done < length) done += fs.writeSync(fd, bytes, done, length - done, position + done);
    return undefined;
  } catch (err) {
    return err as Error;
  }
}

/** Makes `seg`'s stage hold at least `bytes`, keeping what it has staged. */
function grow(seg: Segment, bytes: number): void {
  const next = Buffer.allocUnsafe(Math.max(bytes, seg.stage.length * 2, STAGE_BYTES));
  seg.stage.copy(next, 0, 0, seg.staged);
  seg.stage = next;
}

/** What checkChunkDir() found. */
export interface ChunkDirCheck {
  files: number;
  chunks: number;
  damaged: ChunkFileDamage[];
  /** A torn tail of the last file (an open cuts it off): not damage. */
  tornTail?: { file: string; offset: number; bytes: number };
}

/**
 * Reads the head chunk files of `dir` as an open would, changing nothing:
 * each entry's header and CRC checked, damage listed as the open would
 * skip it. For `strata tsdb check`.
 */
export function checkChunkDir(dir: string): ChunkDirCheck {
  const out: ChunkDirCheck = { files: 0, chunks: 0, damaged: [] };
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((f) => /^\d{6,}$/.test(f)).sort((a, b) => Number(a) - Number(b));
  } catch {
    return out;
  }
  names.forEach((name, i) => {
    const file = join(dir, name);
    const last = i === names.length - 1;
    const map = fs.readFileSync(file);
    out.files++;
    const headerProblem = fileHeaderProblem(map);
    if (headerProblem !== undefined) {
      if (last && map.length < FILE_HEADER) out.tornTail = { file, offset: 0, bytes: map.length };
      else out.damaged.push({ file, offset: 0, bytes: map.length, reason: headerProblem });
      return;
    }
    const scan = scanEntries(map, map.length, file, last, () => {
      out.chunks++;
    });
    out.damaged.push(...scan.damaged);
    if (scan.torn !== undefined) out.tornTail = { file, offset: scan.end, bytes: map.length - scan.end };
  });
  return out;
}
