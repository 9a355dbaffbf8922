/**
 * What a clean stop records of each head chunk file (in the head snapshot,
 * docs/format/head-snapshot.md, section CHUNKS) so that the next start can
 * map the files without reading every entry: a file that still has the
 * size, modification time and last checksum it had at the stop is the file
 * the stop wrote. Anything else (a file added, gone, grown, cut, touched)
 * means the full scan, which is also what finds damage at start; damage
 * that leaves all three alone is found by the checksum check on read.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';

/** One head chunk file as a clean stop left it. */
export interface ChunkFileRecord {
  /** The file's number (its name, zero-padded to six digits). */
  seq: number;
  /** Bytes in the file: the header and whole entries. */
  size: number;
  /** Modification time in nanoseconds, as the filesystem reports it. */
  mtimeNs: bigint;
  /** The CRC32C stored at the end of the last entry (0 when the file has none). */
  lastCrc: number;
  chunks: number;
  /** Highest series id and time span of its chunks (Infinity, -Infinity when none). */
  maxId: number;
  minT: number;
  maxT: number;
}

/** Why `dir`'s chunk files are not exactly the `known` ones (undefined when they are). */
export function knownFilesMismatch(dir: string, seqsOnDisk: number[], known: readonly ChunkFileRecord[]): string | undefined {
  if (seqsOnDisk.length !== known.length) return `${seqsOnDisk.length} files on disk, ${known.length} at the stop`;
  for (let i = 0; i < known.length; i++) {
    const k = known[i]!;
    if (seqsOnDisk[i] !== k.seq) return `file ${seqsOnDisk[i]} is not the stop's file ${k.seq}`;
    const st = statSync(join(dir, segmentName(k.seq)), { bigint: true });
    if (st.size !== BigInt(k.size)) return `file ${k.seq} has ${st.size} bytes, ${k.size} at the stop`;
    if (st.mtimeNs !== k.mtimeNs) return `file ${k.seq} was modified after the stop`;
  }
  return undefined;
}

/** A chunk file's name: its number, zero-padded to six digits. */
export function segmentName(seq: number): string {
  return String(seq).padStart(6, '0');
}
