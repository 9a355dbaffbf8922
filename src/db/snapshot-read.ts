import { mapWholeFile } from '../files/mmap.js';
import { crc32c } from '@node-rs/crc32';
import { readChunksSection, type SnapshotChunks } from './snapshot-chunks.js';
import {
  META_WORDS, SECTION_CHUNKS, SECTION_HEADER_BYTES, SECTION_META, SECTION_POSTINGS, SECTION_SERIES, SNAPSHOT_HEADER_BYTES, SNAPSHOT_MAGIC,
  SNAPSHOT_VERSION, sectionBytes,
} from './snapshot-format.js';
import { seriesColumns } from './snapshot-write.js';

/** A head snapshot read and checked whole; views into one buffer. */
export interface HeadSnapshot {
  /** The WAL position it covers: everything before offset `offset` of segment `segment`. */
  segment: number;
  offset: number;
  /** The id the next new series takes. */
  nextId: number;
  /** Series ids, ascending. */
  ids: Uint32Array;
  /** Series i's canonical label bytes are labels[offs[i], offs[i + 1]). */
  offs: Uint32Array;
  labels: Uint8Array;
  /** Ref of the series' newest chunk in the chunk files when written, -1 for none. */
  lastRef: Float64Array;
  /** Newest sample time, NaN for none; its value's bits in newestV[2i, 2i + 1]. */
  newestT: Float64Array;
  newestV: Uint32Array;
  /** The POSTINGS payload (snapshot-write.ts postingsPayload), its structure checked. */
  postings: Buffer;
  /** Distinct label values in it. */
  values: number;
  /** The chunk files and chunk lists (CHUNKS), when the snapshot has them. */
  chunks?: SnapshotChunks;
  /** The whole file, mapped read-only: every view above is into it (releasePages once loaded). */
  file: Buffer;
}

/** Raised for a snapshot that cannot be used: the engine logs it and replays the WAL instead. */
export function snapshotUnusable(path: string, reason: string): Error {
  return new Error(`head snapshot ${path}: ${reason}`);
}

/**
 * Reads and checks the snapshot at `path` (docs/format/head-snapshot.md):
 * magic, version, every section's length and CRC32C, the columns' order
 * and bounds, the postings' framing. Throws snapshotUnusable for anything
 * wrong, before the head is touched, so a damaged snapshot costs a read
 * and nothing else.
 */
export function readHeadSnapshot(path: string): HeadSnapshot {
  // Mapped, not read: no copy into the heap (a snapshot of 1M series is about 180 MB).
  const buf = mapWholeFile(path);
  const bad = (reason: string): Error => snapshotUnusable(path, reason);
  if (buf.length < SNAPSHOT_HEADER_BYTES || buf.readUInt32BE(0) !== SNAPSHOT_MAGIC) throw bad('not a head snapshot (bad magic number)');
  if (buf[4] !== SNAPSHOT_VERSION) throw bad(`format version ${buf[4]}, this build reads ${SNAPSHOT_VERSION}`);
  const sections = new Map<number, Buffer>();
  let at = SNAPSHOT_HEADER_BYTES;
  while (at < buf.length) {
    if (at + SECTION_HEADER_BYTES + 4 > buf.length) throw bad(`section header at ${at} cut short`);
    const kind = buf.readUInt32LE(at);
    const len = buf.readUInt32LE(at + 4);
    const from = at + SECTION_HEADER_BYTES;
    if (from + len + 4 > buf.length) throw bad(`section ${kind} at ${at}: ${len} bytes do not fit in the file (torn)`);
    const payload = buf.subarray(from, from + len);
    if ((crc32c(payload) >>> 0) !== buf.readUInt32LE(from + len)) throw bad(`section ${kind} at ${at}: CRC32C mismatch`);
    sections.set(kind, payload);
    at += sectionBytes(len);
  }
  const meta = sections.get(SECTION_META);
  const series = sections.get(SECTION_SERIES);
  const postings = sections.get(SECTION_POSTINGS);
  if (meta === undefined || series === undefined || postings === undefined) throw bad('a section is missing (torn)');
  if (meta.length !== 4 * META_WORDS) throw bad(`META section of ${meta.length} bytes`);
  const [segment, offset, n, nextId, values] = [0, 1, 2, 3, 4].map((i) => meta.readUInt32LE(4 * i)) as [number, number, number, number, number];
  const c = seriesColumns(n);
  if (series.length < c.labelsAt) throw bad(`SERIES section of ${series.length} bytes is short for ${n} series`);
  const ab = series.buffer;
  const base = series.byteOffset;
  const snap: HeadSnapshot = {
    segment, offset, nextId, values, postings, file: buf,
    ids: new Uint32Array(ab, base + c.idsAt, n),
    offs: new Uint32Array(ab, base + c.offsAt, n + 1),
    lastRef: new Float64Array(ab, base + c.lastRefAt, n),
    newestT: new Float64Array(ab, base + c.newestTAt, n),
    newestV: new Uint32Array(ab, base + c.newestVAt, 2 * n),
    labels: series.subarray(c.labelsAt),
  };
  checkSeries(snap, bad);
  checkPostings(postings, values, bad);
  const chunks = sections.get(SECTION_CHUNKS);
  if (chunks !== undefined) snap.chunks = readChunksSection(chunks, snap.lastRef, bad);
  return snap;
}

function checkSeries(s: HeadSnapshot, bad: (reason: string) => Error): void {
  const n = s.ids.length;
  for (let i = 1; i < n; i++) if (!(s.ids[i]! > s.ids[i - 1]!)) throw bad(`series ids not ascending at ${i}`);
  if (n > 0 && !(s.nextId > s.ids[n - 1]!)) throw bad(`next series id ${s.nextId} not past the last id ${s.ids[n - 1]}`);
  if (s.offs[0] !== 0 || s.offs[n] !== s.labels.length) throw bad('label offsets do not span the label bytes');
  for (let i = 0; i < n; i++) if (!(s.offs[i + 1]! >= s.offs[i]!)) throw bad(`label offsets not ascending at ${i}`);
}

/** Walks the postings' framing (snapshot-write.ts): lengths in bounds, ids ascending, as many values as META says. */
function checkPostings(p: Buffer, values: number, bad: (reason: string) => Error): void {
  if (p.byteOffset % 4 !== 0 || p.length % 4 !== 0) throw bad('postings not in whole 32-bit words');
  const u32 = new Uint32Array(p.buffer, p.byteOffset, p.length >>> 2);
  let at = 0;
  let seen = 0;
  const need = (bytes: number): void => {
    if (at + bytes > p.length) throw bad(`postings cut short at ${at}`);
  };
  while (at < p.length) {
    need(8);
    const nameLen = u32[at >>> 2]!;
    const count = u32[(at >>> 2) + 1]!;
    at += 8 + ((nameLen + 3) & ~3);
    need(0);
    for (let v = 0; v < count; v++) {
      need(8);
      const len = u32[at >>> 2]!;
      const ids = u32[(at >>> 2) + 1]!;
      at += 8 + ((len + 3) & ~3);
      need(4 * ids);
      let last = -1;
      for (let k = at >>> 2, end = k + ids; k < end; k++) {
        const id = u32[k]!;
        if (!(id > last)) throw bad(`postings ids not ascending at ${4 * k}`);
        last = id;
      }
      at += 4 * ids;
      seen++;
    }
  }
  if (seen !== values) throw bad(`${seen} label values in the postings, META says ${values}`);
}
