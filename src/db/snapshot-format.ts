/**
 * The head snapshot's file (docs/format/head-snapshot.md): its name, magic,
 * version and section framing. A snapshot named for WAL position (N, M)
 * holds the head as it stood when the WAL ended at offset M of segment N;
 * the engine writes one on a clean close only, after the checkpoint N
 * (so M is 0) and the chunk files were fsynced.
 */
import { crc32c } from '@node-rs/crc32';

/** "STHS": Strata head snapshot. */
export const SNAPSHOT_MAGIC = 0x53544853;
/**
 * Format version. A snapshot of another version is ignored (the WAL is
 * replayed instead): nothing needs reading an old snapshot, the checkpoint
 * beside it holds the same series.
 */
export const SNAPSHOT_VERSION = 1;
/** Magic (u32 BE), version (u8), three zero bytes. */
export const SNAPSHOT_HEADER_BYTES = 8;
/** Section header: kind (u32 LE), payload length (u32 LE); the payload's CRC32C (u32 LE) follows it, then zeros to a multiple of 8. */
export const SECTION_HEADER_BYTES = 8;

export const SECTION_META = 1;
export const SECTION_SERIES = 2;
export const SECTION_POSTINGS = 3;
/** Optional (snapshot-chunks.ts): the chunk files and each series' chunk list; older readers skip it. */
export const SECTION_CHUNKS = 4;

/** Words of the META section: WAL segment, WAL offset, series count, next series id, distinct label values. */
export const META_WORDS = 5;

/** Prometheus' prefix (tsdb/head_wal.go chunkSnapshotPrefix). */
const PREFIX = 'chunk_snapshot.';
const NAME_RE = /^chunk_snapshot\.(\d{6,10})\.(\d{10})$/;

/** File name of the snapshot covering the WAL up to offset `offset` of segment `segment`, as Prometheus spells it (%06d.%010d). */
export function snapshotName(segment: number, offset: number): string {
  return `${PREFIX}${String(segment).padStart(6, '0')}.${String(offset).padStart(10, '0')}`;
}

/** The WAL position a snapshot file name stands for; undefined for other names (temporary ones included). */
export function parseSnapshotName(name: string): { segment: number; offset: number } | undefined {
  const m = NAME_RE.exec(name);
  if (m === null) return undefined;
  return { segment: Number(m[1]), offset: Number(m[2]) };
}

/** Whether `name` is a snapshot file or one left half-written (`.tmp`). */
export function isSnapshotFile(name: string): boolean {
  return name.startsWith(PREFIX);
}

/** Bytes a section of `payload` bytes takes in the file: header, payload, CRC, padding to 8. */
export function sectionBytes(payload: number): number {
  return align8(SECTION_HEADER_BYTES + payload + 4);
}

/** `n` rounded up to a multiple of 8. */
export function align8(n: number): number {
  return (n + 7) & ~7;
}

/** Writes a section's header at `at` of `buf` and its CRC after the payload that sits at `at + 8`; returns where the next section starts. */
export function frameSection(buf: Buffer, at: number, kind: number, length: number): number {
  buf.writeUInt32LE(kind, at);
  buf.writeUInt32LE(length, at + 4);
  const from = at + SECTION_HEADER_BYTES;
  buf.writeUInt32LE(crc32c(buf.subarray(from, from + length)) >>> 0, from + length);
  return at + sectionBytes(length);
}
