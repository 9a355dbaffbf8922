/**
 * The head snapshot's CHUNKS section (docs/format/head-snapshot.md): the
 * head chunk files as the clean stop left them and every series' chunk
 * list, so that a start whose files are still those maps them without
 * reading every entry (ChunkSegments.open with known files). Optional: a
 * snapshot without it (an older build's, or a stop whose disk refused
 * chunks) means the scan, as before.
 */
import type { ChunkFileRecord } from '../chunks/known-files.js';
import type { Series } from '../head/series.js';
import { align8 } from './snapshot-format.js';

/** The CHUNKS section, read: views into the mapped file. */
export interface SnapshotChunks {
  /**
   * Where the blocks ended at the stop: the lists hold the chunks from
   * there on. A start whose blocks end elsewhere (one quarantined, say)
   * scans the files instead, for the chunks the lists left out.
   */
  floor: number;
  files: ChunkFileRecord[];
  /** Series i (SERIES order) has counts[i] chunks, the next ones of `triples`. */
  counts: Uint32Array;
  /** [ref, minT, maxT] per chunk, series after series, each series' in time order. */
  triples: Float64Array;
}

/** Bytes of one file record: seq, size, mtime (u64), last CRC, chunks, max id, zero (u32 each but mtime), min time, max time (f64). */
const FILE_RECORD = 48;
const TWO_32 = 4294967296;
/** Files u32, chunks u32, floor f64. */
const HEADER = 16;

function layout(files: number, series: number, chunks: number): { countsAt: number; triplesAt: number; bytes: number } {
  const countsAt = HEADER + FILE_RECORD * files;
  const triplesAt = countsAt + align8(4 * series);
  return { countsAt, triplesAt, bytes: triplesAt + 24 * chunks };
}

/** The CHUNKS payload for `series` (SERIES order), the chunk `files` they point into, and where the blocks end (`floor`). */
export function chunksPayload(series: readonly Series[], files: readonly ChunkFileRecord[], floor: number): Buffer {
  let total = 0;
  for (const s of series) total += s.chunks.length / 3;
  const at = layout(files.length, series.length, total);
  const b = Buffer.alloc(at.bytes);
  b.writeUInt32LE(files.length, 0);
  b.writeUInt32LE(total, 4);
  b.writeDoubleLE(floor, 8);
  files.forEach((f, i) => {
    const o = HEADER + FILE_RECORD * i;
    b.writeUInt32LE(f.seq, o);
    b.writeUInt32LE(f.size, o + 4);
    b.writeBigUInt64LE(f.mtimeNs, o + 8);
    b.writeUInt32LE(f.lastCrc, o + 16);
    b.writeUInt32LE(f.chunks, o + 20);
    b.writeUInt32LE(f.maxId, o + 24);
    b.writeDoubleLE(f.minT, o + 32);
    b.writeDoubleLE(f.maxT, o + 40);
  });
  const counts = new Uint32Array(b.buffer, b.byteOffset + at.countsAt, series.length);
  const triples = new Float64Array(b.buffer, b.byteOffset + at.triplesAt, 3 * total);
  let k = 0;
  for (let i = 0; i < series.length; i++) {
    const c = series[i]!.chunks;
    counts[i] = c.length / 3;
    for (let j = 0; j < c.length; j++) triples[k++] = c[j]!;
  }
  return b;
}

/**
 * Reads and checks a CHUNKS payload for `n` series whose newest chunk
 * refs are `lastRef` (SERIES): its length, the files ascending, every
 * chunk inside a listed file, each series' last chunk the one SERIES
 * names. Throws `bad(reason)` for anything wrong.
 */
export function readChunksSection(p: Buffer, lastRef: Float64Array, bad: (reason: string) => Error): SnapshotChunks {
  const n = lastRef.length;
  if (p.length < HEADER) throw bad('CHUNKS section cut short');
  const m = p.readUInt32LE(0);
  const total = p.readUInt32LE(4);
  const at = layout(m, n, total);
  if (p.length !== at.bytes || p.byteOffset % 8 !== 0) throw bad(`CHUNKS section of ${p.length} bytes, ${at.bytes} expected`);
  const files: ChunkFileRecord[] = [];
  const sizes = new Map<number, number>();
  for (let i = 0; i < m; i++) {
    const o = HEADER + FILE_RECORD * i;
    const f: ChunkFileRecord = {
      seq: p.readUInt32LE(o), size: p.readUInt32LE(o + 4), mtimeNs: p.readBigUInt64LE(o + 8), lastCrc: p.readUInt32LE(o + 16),
      chunks: p.readUInt32LE(o + 20), maxId: p.readUInt32LE(o + 24), minT: p.readDoubleLE(o + 32), maxT: p.readDoubleLE(o + 40),
    };
    if (i > 0 && !(f.seq > files[i - 1]!.seq)) throw bad('CHUNKS files not ascending');
    files.push(f);
    sizes.set(f.seq, f.size);
  }
  const counts = new Uint32Array(p.buffer, p.byteOffset + at.countsAt, n);
  const triples = new Float64Array(p.buffer, p.byteOffset + at.triplesAt, 3 * total);
  let k = 0;
  let seq = -1;
  let size = 0;
  for (let i = 0; i < n; i++) {
    const c = counts[i]!;
    if (c === 0) {
      if (lastRef[i] !== -1) throw bad(`series ${i} has no chunks in CHUNKS, a newest chunk in SERIES`);
      continue;
    }
    if (k + 3 * c > triples.length) throw bad('CHUNKS counts exceed its chunks');
    for (let j = 0; j < c; j++, k += 3) {
      const ref = triples[k]!;
      if (Math.floor(ref / TWO_32) !== seq) {
        seq = Math.floor(ref / TWO_32);
        size = sizes.get(seq) ?? 0;
      }
      const off = ref - seq * TWO_32;
      if (!(off >= 8 && off < size)) throw bad(`series ${i}: chunk ref ${ref} is in no listed file`);
    }
    if (triples[k - 3] !== lastRef[i]) throw bad(`series ${i}: its last chunk in CHUNKS is not its newest in SERIES`);
  }
  if (k !== triples.length) throw bad('CHUNKS counts do not add up to its chunks');
  return { floor: p.readDoubleLE(8), files, counts, triples };
}
